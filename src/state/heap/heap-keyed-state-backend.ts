// The heap keyed state backend: live objects in Maps, snapshotted to bytes by key group.
import { deserialize, serialize } from 'node:v8';
import { IllegalStateError } from '../../api/errors.ts';
import type { KeyedStateBackend, KeyGroupSnapshot, InternalStateFor } from '../keyed-state-backend.ts';
import { KeyGroupRange } from '../key-group-range.ts';
import { denormalizeKey, keyGroupFor, normalizeKey, type NormalizedKey } from '../key-hash.ts';
import type { NamespaceSerializer } from '../namespace.ts';
import type { StateDescriptor } from '../state-descriptor.ts';
import type { AbstractHeapState, HeapStateHost, TtlValue } from './abstract-heap-state.ts';
import { HeapAggregatingState } from './heap-aggregating-state.ts';
import { HeapListState } from './heap-list-state.ts';
import { HeapMapState } from './heap-map-state.ts';
import { HeapReducingState } from './heap-reducing-state.ts';
import { HeapValueState } from './heap-value-state.ts';

/** One state's entries of one key group, as stored in a snapshot. */
interface StateEntries {
  name: string;
  kind: string;
  /** [namespace bytes, normalised key, value bytes, last access (TTL) or -1] */
  entries: [Uint8Array, NormalizedKey, Uint8Array, number][];
}

/**
 * Keeps keyed state as live JavaScript values (Flink's HashMapStateBackend): reads and writes cost a Map lookup
 * and never serialize. Serialization happens only in `snapshot`, one key group at a time, so snapshots can be
 * redistributed to another parallelism.
 */
export class HeapKeyedStateBackend implements KeyedStateBackend, HeapStateHost {
  private currentKey: unknown = undefined;
  private currentNormalized: NormalizedKey = 0;
  private currentKeyGroup = -1;
  private readonly states = new Map<string, AbstractHeapState<any, any>>();
  /** Restored entries waiting for their state to be registered (operators register state in `open`). */
  private readonly pendingRestore = new Map<string, StateEntries['entries']>();

  constructor(
    readonly maxParallelism: number,
    readonly keyGroupRange: KeyGroupRange,
    private readonly clock: () => number,
    private readonly operatorName = 'operator',
  ) {}

  now(): number {
    return this.clock();
  }

  setCurrentKey(key: unknown): void {
    this.currentKey = key;
    this.currentNormalized = normalizeKey(key);
    this.currentKeyGroup = -1;
  }

  /** Sets the current key from its normalised form (timers keep keys normalised). */
  setCurrentNormalizedKey(normalized: NormalizedKey, key: unknown): void {
    this.currentKey = key;
    this.currentNormalized = normalized;
    this.currentKeyGroup = -1;
  }

  getCurrentKey(): unknown {
    return this.currentKey;
  }

  currentNormalizedKey(): NormalizedKey {
    return this.currentNormalized;
  }

  getCurrentKeyGroup(): number {
    if (this.currentKeyGroup < 0) this.currentKeyGroup = keyGroupFor(this.currentNormalized, this.maxParallelism);
    return this.currentKeyGroup;
  }

  getOrCreateKeyedState<D extends StateDescriptor<any, any>, N>(
    descriptor: D,
    namespaceSerializer: NamespaceSerializer<N>,
  ): InternalStateFor<D, N> {
    const existing = this.states.get(descriptor.name);
    if (existing !== undefined) {
      if (existing.descriptor.kind !== descriptor.kind) {
        throw new IllegalStateError(
          `Operator '${this.operatorName}': state '${descriptor.name}' was registered as ${existing.descriptor.kind} state and is now asked for as ${descriptor.kind} state`,
        );
      }
      return existing as unknown as InternalStateFor<D, N>;
    }
    const initial = undefined as unknown as N;
    let state: AbstractHeapState<N, any>;
    switch (descriptor.kind) {
      case 'value':
        state = new HeapValueState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'list':
        state = new HeapListState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'map':
        state = new HeapMapState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'reducing':
        state = new HeapReducingState(this, descriptor, namespaceSerializer, initial);
        break;
      case 'aggregating':
        state = new HeapAggregatingState(this, descriptor, namespaceSerializer, initial);
        break;
      default:
        throw new IllegalStateError(`Unknown state kind ${String(descriptor.kind)}`);
    }
    this.states.set(descriptor.name, state);
    const pending = this.pendingRestore.get(descriptor.name);
    if (pending !== undefined) {
      this.pendingRestore.delete(descriptor.name);
      this.load(state, pending);
    }
    return state as unknown as InternalStateFor<D, N>;
  }

  numStateEntries(): number {
    let n = 0;
    for (const state of this.states.values()) n += state.table.size();
    for (const entries of this.pendingRestore.values()) n += entries.length;
    return n;
  }

  *getKeys(stateName: string): Iterable<unknown> {
    const state = this.states.get(stateName);
    if (state === undefined) return;
    const seen = new Set<NormalizedKey>();
    for (const inner of state.table.byNamespace.values()) {
      for (const key of inner.keys()) {
        if (seen.has(key)) continue;
        seen.add(key);
        yield denormalizeKey(key);
      }
    }
  }

  snapshot(): KeyGroupSnapshot[] {
    const now = this.clock();
    const byGroup = new Map<number, StateEntries[]>();
    const groupStates = (kg: number, name: string, kind: string): StateEntries => {
      let list = byGroup.get(kg);
      if (list === undefined) byGroup.set(kg, (list = []));
      let entry = list.find((s) => s.name === name);
      if (entry === undefined) list.push((entry = { name, kind, entries: [] }));
      return entry;
    };
    for (const [name, state] of this.states) {
      const nsSerializer = state.namespaceSerializer.serializer;
      for (const [nsKey, inner] of state.table.byNamespace) {
        const nsBytes = nsSerializer.serialize(state.table.namespaces.get(nsKey));
        for (const [key, stored] of inner) {
          if (state.isExpired(stored, now)) continue;
          const kg = keyGroupFor(key, this.maxParallelism);
          const lastAccess = state.descriptor.ttl ? (stored as TtlValue<unknown>).lastAccess : -1;
          groupStates(kg, name, state.descriptor.kind).entries.push([
            nsBytes,
            key,
            state.descriptor.serializer.serialize(state.unwrap(stored)),
            lastAccess,
          ]);
        }
      }
    }
    for (const [name, entries] of this.pendingRestore) {
      for (const entry of entries) groupStates(keyGroupFor(entry[1], this.maxParallelism), name, 'pending').entries.push(entry);
    }
    return [...byGroup]
      .sort((a, b) => a[0] - b[0])
      .map(([keyGroup, states]) => ({ keyGroup, bytes: new Uint8Array(serialize(states)) }));
  }

  restore(snapshots: Iterable<KeyGroupSnapshot>): void {
    for (const { keyGroup, bytes } of snapshots) {
      if (!this.keyGroupRange.contains(keyGroup)) continue;
      const states = deserialize(bytes) as StateEntries[];
      for (const { name, entries } of states) {
        const state = this.states.get(name);
        if (state !== undefined) this.load(state, entries);
        else {
          let pending = this.pendingRestore.get(name);
          if (pending === undefined) this.pendingRestore.set(name, (pending = []));
          for (const e of entries) pending.push(e);
        }
      }
    }
  }

  private load(state: AbstractHeapState<any, any>, entries: StateEntries['entries']): void {
    const now = this.clock();
    for (const [nsBytes, key, valueBytes, lastAccess] of entries) {
      const namespace = state.namespaceSerializer.serializer.deserialize(nsBytes);
      const nsKey = state.namespaceSerializer.key(namespace);
      const value = state.descriptor.serializer.deserialize(valueBytes);
      const wrapped = state.wrap(value, lastAccess >= 0 ? lastAccess : now);
      state.table.entriesForWrite(nsKey, namespace).set(key, wrapped);
    }
  }

  dispose(): void {
    for (const state of this.states.values()) state.table.clear();
    this.states.clear();
    this.pendingRestore.clear();
  }
}
