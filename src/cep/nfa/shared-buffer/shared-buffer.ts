// SharedBuffer: the matched events and versioned links between them, as an object graph, with per-key counters in keyed state.
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.ts';
import type { InternalValueState } from '../../../state/internal-state.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../../../state/namespace.ts';
import { ValueStateDescriptor } from '../../../core/state-descriptor.ts';
import type { DeweyNumber } from '../dewey-number.ts';
import type { EventId } from './event-id.ts';

/**
 * A stored event (Flink's `Lockable<V>` in the events map, with its `EventId`): locked once while it is processed
 * and once per entry that holds it. A removed event has `refCounter === REMOVED`.
 */
export interface SharedBufferEvent<V> extends EventId {
  readonly id: number;
  readonly timestamp: number;
  readonly element: V;
  refCounter: number;
}

/**
 * An (event, stage) entry (Flink's `SharedBufferNode` under its `NodeId`): the stage that took the event
 * (`pageName`, the user's stage name), its outgoing edges, and the number of partial matches and edges holding
 * it. A removed entry has `refCounter === REMOVED`.
 */
export interface SharedBufferNode<V> {
  readonly event: SharedBufferEvent<V>;
  readonly pageName: string;
  refCounter: number;
  readonly edges: SharedBufferEdge<V>[];
}

/** A link from an entry to the entry taken before it, stamped with the version of the partial match that made it. */
export interface SharedBufferEdge<V> {
  readonly target: SharedBufferNode<V> | null;
  readonly version: DeweyNumber;
  refCounter: number;
}

/** The counter value that marks a removed event or entry (Flink would no longer find it in its MapState). */
export const REMOVED = -1;

// One creation site per shape, fields always in the same order, so every access site stays monomorphic.
export function newSharedBufferEvent<V>(
  id: number,
  timestamp: number,
  element: V,
  refCounter: number,
): SharedBufferEvent<V> {
  return { id, timestamp, element, refCounter };
}

/**
 * A new entry with its first edge, if any (an array literal of one: no spare capacity; most entries keep one edge).
 */
export function newSharedBufferNode<V>(
  event: SharedBufferEvent<V>,
  pageName: string,
  refCounter: number,
  firstEdge: SharedBufferEdge<V> | null,
): SharedBufferNode<V> {
  return { event, pageName, refCounter, edges: firstEdge === null ? [] : [firstEdge] };
}

export function newSharedBufferEdge<V>(
  target: SharedBufferNode<V> | null,
  version: DeweyNumber,
  refCounter: number,
): SharedBufferEdge<V> {
  return { target, version, refCounter };
}

/** Per key: the next event id and the live events and entries (the sizes Flink's MapStates would have). */
export interface SharedBufferCounters {
  nextEventId: number;
  numEvents: number;
  numEntries: number;
}

/** Name of the keyed state holding the counters. */
export const SHARED_BUFFER_STATE_NAME = 'sharedBuffer-counters';

/**
 * Flink's `SharedBuffer` keeps events and entries in MapStates and names them by key (`EventId`, `NodeId`); every
 * step of a partial match then costs several hashed lookups and string keys. Here the entries form an object
 * graph: a partial match points at its latest entry, an entry at its event and, through versioned edges, at the
 * entries before it. The graph is reachable only from the key's `NFAState`, which lives in one keyed
 * `ValueState` and is snapshotted with a serializer that flattens the graph (`nfa-state-serializer.ts`), so it
 * survives snapshot, restore and rescaling like any keyed state. What remains here, in a keyed ValueState of its
 * own, are the per-key counters: the next event id and the numbers of live events and entries.
 *
 * Reference counting is Flink's (see {@link SharedBufferAccessor}), so memory follows the live partial matches;
 * the counters are updated only when an event or entry is created or removed. When a key's buffer becomes empty
 * its counters are cleared, so an idle key keeps nothing here.
 */
export class SharedBuffer<V> {
  private readonly counters: InternalValueState<VoidNamespace, SharedBufferCounters>;
  /** While pinned: the current key's counters once read (undefined = not read yet), written back by `unpin`. */
  private pinned = false;
  private cached: SharedBufferCounters | undefined = undefined;

  constructor(backend: Pick<KeyedStateBackend, 'getOrCreateKeyedState'>) {
    this.counters = backend.getOrCreateKeyedState(
      new ValueStateDescriptor<SharedBufferCounters>(SHARED_BUFFER_STATE_NAME),
      voidNamespaceSerializer,
    );
    this.counters.setCurrentNamespace(VoidNamespace);
  }

  /**
   * Keeps the current key's counters in hand until {@link unpin}, so the many updates of one event cost one state
   * read and one write (and none when the event stores nothing). The current key must not change in between; the
   * NFA pins around each `process` and `advanceTime` call.
   */
  pin(): void {
    this.pinned = true;
    this.cached = undefined;
  }

  /** Writes the pinned counters back (or clears them when the buffer is empty) and stops pinning. */
  unpin(): void {
    const c = this.cached;
    this.pinned = false;
    this.cached = undefined;
    if (c !== undefined) this.store(c);
  }

  /**
   * Stores an event, locked once for the duration of its processing, under the key's next id. O(1).
   */
  registerEvent(value: V, timestamp: number): SharedBufferEvent<V> {
    const c = this.load();
    const event = newSharedBufferEvent(c.nextEventId, timestamp, value, 1);
    c.nextEventId++;
    c.numEvents++;
    if (!this.pinned) this.store(c);
    return event;
  }

  /** Records that `events` events and `entries` entries were created (positive) or removed (negative). O(1). */
  adjust(events: number, entries: number): void {
    const c = this.load();
    c.numEvents += events;
    c.numEntries += entries;
    if (c.numEvents < 0 || c.numEntries < 0)
      throw new Error('Shared buffer counters of the current key went negative');
    if (!this.pinned) this.store(c);
  }

  private load(): SharedBufferCounters {
    if (this.pinned && this.cached !== undefined) return this.cached;
    const c = this.counters.value() ?? { nextEventId: 0, numEvents: 0, numEntries: 0 };
    // Stryker disable next-line ConditionalExpression: unpinned, the cache is never read (pin() empties it first)
    if (this.pinned) this.cached = c;
    return c;
  }

  private store(c: SharedBufferCounters): void {
    // An empty buffer holds no event an id could be compared with: drop the counters, ids restart at 0.
    if (c.numEvents === 0 && c.numEntries === 0) this.counters.clear();
    else this.counters.update(c);
  }

  /** True when the current key holds no events. */
  isEmpty(): boolean {
    return this.numEvents() === 0;
  }

  /** The number of stored events of the current key. */
  numEvents(): number {
    return this.peek()?.numEvents ?? 0;
  }

  /** The number of (event, stage) entries of the current key. */
  numEntries(): number {
    return this.peek()?.numEntries ?? 0;
  }

  private peek(): SharedBufferCounters | undefined {
    return this.pinned && this.cached !== undefined ? this.cached : this.counters.value();
  }

  /** Forgets the counters of the current key (its graph goes with its NFA state). */
  clear(): void {
    this.cached = undefined;
    this.counters.clear();
  }
}
