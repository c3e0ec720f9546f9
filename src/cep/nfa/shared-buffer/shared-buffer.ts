// SharedBuffer: where matched events and the versioned links between them live, in the key's MapState.
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../../../state/namespace.ts';
import type { InternalMapState } from '../../../state/internal-state.ts';
import { MapStateDescriptor } from '../../../state/state-descriptor.ts';
import type { DeweyNumber } from '../dewey-number.ts';
import { newEventId, type EventId, type NodeId } from './event-id.ts';

/** A stored event and the number of buffer entries (plus the event being processed) that refer to it. */
export interface LockableEvent<V> {
  readonly element: V;
  refCounter: number;
}

/** A link from an entry to the entry taken before it, stamped with the version of the partial match that made it. */
export interface SharedBufferEdge {
  readonly target: NodeId | null;
  readonly version: DeweyNumber;
  refCounter: number;
}

/** An (event, stage) entry: its outgoing edges and the number of partial matches and edges that hold it. */
export interface SharedBufferNode {
  refCounter: number;
  readonly edges: SharedBufferEdge[];
}

/** Names of the keyed states, as Flink's SharedBuffer names them. */
export const SHARED_BUFFER_STATE_NAMES = {
  entries: 'sharedBuffer-entries',
  events: 'sharedBuffer-events',
  eventsCount: 'sharedBuffer-events-count',
} as const;

/**
 * The storage of Flink's `SharedBuffer`: each matched event stored once (`events`), each (event, stage) entry
 * with its versioned edges (`entries`), and the per-timestamp counters that make event ids unique
 * (`eventsCount`). All three are MapStates of the current key, so the buffer is keyed state: the runtime's current
 * key selects whose buffer is read, and it is snapshotted and restored with the rest of the keyed state. The
 * algorithms that walk it are in {@link SharedBufferAccessor}.
 *
 * Values are read, changed and written back with `put`, so a backend that hands out copies works too; the heap
 * backend hands out the live objects and `put` is a Map write.
 */
export class SharedBuffer<V> {
  private readonly entries: InternalMapState<VoidNamespace, string, SharedBufferNode>;
  private readonly events: InternalMapState<VoidNamespace, string, LockableEvent<V>>;
  private readonly eventsCount: InternalMapState<VoidNamespace, number, number>;

  constructor(backend: Pick<KeyedStateBackend, 'getOrCreateKeyedState'>) {
    this.entries = backend.getOrCreateKeyedState(
      new MapStateDescriptor<string, SharedBufferNode>(SHARED_BUFFER_STATE_NAMES.entries),
      voidNamespaceSerializer,
    );
    this.events = backend.getOrCreateKeyedState(
      new MapStateDescriptor<string, LockableEvent<V>>(SHARED_BUFFER_STATE_NAMES.events),
      voidNamespaceSerializer,
    );
    this.eventsCount = backend.getOrCreateKeyedState(
      new MapStateDescriptor<number, number>(SHARED_BUFFER_STATE_NAMES.eventsCount),
      voidNamespaceSerializer,
    );
    this.entries.setCurrentNamespace(VoidNamespace);
    this.events.setCurrentNamespace(VoidNamespace);
    this.eventsCount.setCurrentNamespace(VoidNamespace);
  }

  /**
   * Stores an event once, locked once for the duration of its processing, under a fresh id
   * (timestamp, n-th event of that timestamp).
   */
  registerEvent(value: V, timestamp: number): EventId {
    const id = this.eventsCount.get(timestamp) ?? 0;
    const eventId = newEventId(id, timestamp);
    this.eventsCount.put(timestamp, id + 1);
    this.events.put(eventId.key, { element: value, refCounter: 1 });
    return eventId;
  }

  /** No event with a timestamp below `timestamp` will come: forget the id counters of earlier timestamps. */
  advanceTime(timestamp: number): void {
    let stale: number[] | undefined;
    for (const ts of this.eventsCount.keys()) if (ts < timestamp) (stale ??= []).push(ts);
    if (stale !== undefined) for (const ts of stale) this.eventsCount.remove(ts);
  }

  /** True when the current key holds no events. */
  isEmpty(): boolean {
    return this.events.isEmpty();
  }

  getEntry(node: NodeId): SharedBufferNode | undefined {
    return this.entries.get(node.key);
  }

  upsertEntry(node: NodeId, value: SharedBufferNode): void {
    this.entries.put(node.key, value);
  }

  removeEntry(node: NodeId): void {
    this.entries.remove(node.key);
  }

  getEvent(eventId: EventId): LockableEvent<V> | undefined {
    return this.events.get(eventId.key);
  }

  upsertEvent(eventId: EventId, value: LockableEvent<V>): void {
    this.events.put(eventId.key, value);
  }

  removeEvent(eventId: EventId): void {
    this.events.remove(eventId.key);
  }

  /** The number of stored events of the current key. */
  numEvents(): number {
    return this.events.size();
  }

  /** The number of (event, stage) entries of the current key. */
  numEntries(): number {
    return this.entries.size();
  }

  /** Removes everything of the current key. */
  clear(): void {
    this.entries.clear();
    this.events.clear();
    this.eventsCount.clear();
  }
}
