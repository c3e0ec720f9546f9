// BroadcastStateStore: the broadcast states of one operator subtask, by descriptor name, with snapshot and restore.
import { IllegalStateError } from '../core/errors.ts';
import { HeapBroadcastState } from './heap-broadcast-state.ts';
import type { MapStateDescriptor } from '../core/state-descriptor.ts';
import { declaredClassOf, lostClassOf, structuredCloneSerializer } from '../core/type-serializer.ts';
import { lostClassError } from './lost-class-error.ts';

/** What a subtask's broadcast states snapshot to: each state's map, serialized by its descriptor's serializer. */
export interface BroadcastStateSnapshot {
  readonly broadcastStates: Record<string, Uint8Array>;
}

/**
 * Flink's broadcast part of the OperatorStateBackend. Only the states declared in `stream.broadcast(...)` exist;
 * asking for another fails with the same advice as Flink. Snapshots hold this subtask's copy; on restore at
 * another parallelism a subtask takes one old subtask's copy (all copies are equal, see docs/broadcast-state.md).
 */
export class BroadcastStateStore {
  private readonly states = new Map<string, HeapBroadcastState<any, any>>();
  private readonly descriptors = new Map<string, MapStateDescriptor<any, any>>();

  constructor(
    descriptors: readonly MapStateDescriptor<any, any>[],
    private readonly operatorName: string,
  ) {
    for (const d of descriptors) {
      this.descriptors.set(d.name, d);
      this.states.set(d.name, new HeapBroadcastState());
    }
  }

  /** The state of `descriptor`, writable. */
  get<K, V>(descriptor: MapStateDescriptor<K, V>): HeapBroadcastState<K, V> {
    const state = this.states.get(descriptor?.name);
    if (state === undefined) {
      throw new IllegalStateError(
        `Operator '${this.operatorName}': the requested broadcast state '${String(descriptor?.name)}' does not exist. ` +
          'Check for typos in your state descriptor, or specify the state descriptor in the datastream.broadcast(...) call if you forgot to register it.',
      );
    }
    return state as HeapBroadcastState<K, V>;
  }

  snapshot(): BroadcastStateSnapshot {
    const broadcastStates: Record<string, Uint8Array> = {};
    for (const [name, state] of this.states) {
      const serializer = this.descriptors.get(name)!.serializer;
      const declared = declaredClassOf(serializer);
      if (serializer === structuredCloneSerializer || declared !== undefined) {
        const lost = lostClassOf(state.map, declared);
        if (lost !== undefined) throw lostClassError(name, this.operatorName, lost);
      }
      broadcastStates[name] = serializer.serialize(state.map);
    }
    return { broadcastStates };
  }

  /** Replaces the states with a snapshot's; states the snapshot does not hold stay empty. */
  restore(snapshot: BroadcastStateSnapshot): void {
    for (const [name, bytes] of Object.entries(snapshot.broadcastStates)) {
      const descriptor = this.descriptors.get(name);
      if (descriptor === undefined) continue;
      const map = descriptor.serializer.deserialize(bytes) as Map<unknown, unknown>;
      const state = this.states.get(name)!;
      state.map.clear();
      for (const [k, v] of map) state.map.set(k, v);
    }
  }
}
