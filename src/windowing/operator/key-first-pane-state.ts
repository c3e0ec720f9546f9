// KeyFirstPaneState: the incremental window contents of the heap backend looked up by key first, one lookup per element.
import { IllegalStateError } from '../../core/errors.ts';
import type { AggregateFunction, ReduceFunction } from '../../core/aggregate-function.ts';
import type { AggregatingStateDescriptor, ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import type { KeyContext } from '../../state/key-context.ts';
import type { NormalizedKey } from '../../state/key-hash.ts';
import type { NamespaceHashing } from '../../state/namespace.ts';
import type { StateTable } from '../../state/heap/state-table.ts';

/** The hash slot of a free triple: a window's hash is always a number. */
const FREE = undefined;

/**
 * The panes of a non-merging window operator whose contents are one value per (key, window): an aggregate's
 * accumulator or a reduced value. The heap backend's table is namespace first (window → key → value), so an element
 * of a sliding window pays one lookup in a Map of every key per window it lands in: five for a 10 s window sliding
 * by 2 s, each a cache miss on a Map of ~10,000 keys. Here a key's panes lie together, found by one lookup of the
 * key (kept while the key stays current, so an element's further windows and a timer's read and clear find them
 * without another), as one flat array of (hash, window, value) triples, scanned by the window's hash: a key has a
 * pane in each window it has elements in that has not fired, a handful.
 *
 * Each window's value receives the key's elements one by one in arrival order through the function's `add` (or
 * `reduce`), exactly as the heap backend's aggregating and reducing states do: same calls, same floating-point
 * order, no `merge`. Only where the values live changes. Snapshots hold the heap backend's form: before one, the
 * operator writes every pane into the backend's table ({@link writeTo}), and on restore it takes the restored
 * entries from there ({@link takeFrom}), so a savepoint reads the same either way.
 */
export class KeyFirstPaneState<W, IN, ACC> {
  /**
   * Per key: (hash, window, value) triples, grown by concat to exactly the length needed. A pane cleared leaves its
   * triple free ({@link FREE}) for the key's next pane: a key of a sliding window gains a pane each slide as one
   * fires, so its array stays as it is, at the most panes it has held at once.
   */
  private readonly byKey = new Map<NormalizedKey, unknown[]>();
  /** The key whose triples `cachedSlots` holds, or undefined; reset whenever that key's array is replaced or dropped. */
  private cachedKey: NormalizedKey | undefined = undefined;
  private cachedSlots: unknown[] | undefined = undefined;
  private window: W = undefined as W;
  private hash = 0;
  /** Panes held: (key, window) pairs with a value. */
  panes = 0;
  private readonly aggregate: AggregateFunction<IN, ACC, unknown> | undefined;
  private readonly reduce: ReduceFunction<ACC> | undefined;

  constructor(
    private readonly keys: KeyContext,
    descriptor: AggregatingStateDescriptor<IN, ACC, unknown> | ReducingStateDescriptor<ACC>,
    private readonly hashing: NamespaceHashing<W>,
  ) {
    if (descriptor.kind === 'aggregating') {
      this.aggregate = descriptor.aggregateFunction;
      this.reduce = undefined;
    } else {
      this.aggregate = undefined;
      this.reduce = descriptor.reduceFunction;
    }
  }

  setCurrentNamespace(window: W): void {
    this.window = window;
    this.hash = this.hashing.hash(window);
  }

  /** Adds `value` to the current key's pane of the current window; true when this call created the pane. */
  add(value: IN): boolean {
    const key = this.keys.currentNormalizedKey();
    const slots = this.slotsOf(key);
    if (slots !== undefined) {
      const i = this.indexIn(slots);
      if (i >= 0) {
        const current = slots[i + 2] as ACC;
        const aggregate = this.aggregate;
        slots[i + 2] =
          aggregate !== undefined ? aggregate.add(value, current) : this.reduce!(current, value as never);
        return false;
      }
    }
    const aggregate = this.aggregate;
    const first = aggregate !== undefined ? aggregate.add(value, aggregate.createAccumulator()) : value;
    this.put(key, slots, first);
    return true;
  }

  /** The current pane's contents as the window function sees them (an aggregate's result), or undefined. */
  get(): unknown {
    const stored = this.value();
    if (stored === undefined) return undefined;
    const aggregate = this.aggregate;
    return aggregate !== undefined ? aggregate.getResult(stored as ACC) : stored;
  }

  /** The current pane's raw accumulator (or reduced value), or undefined. */
  getAccumulator(): unknown {
    return this.value();
  }

  /** Removes the current key's pane of the current window. */
  clear(): void {
    const key = this.keys.currentNormalizedKey();
    const slots = this.slotsOf(key);
    if (slots === undefined) return;
    const i = this.indexIn(slots);
    if (i < 0) return;
    this.panes--;
    slots[i] = FREE;
    slots[i + 1] = undefined;
    slots[i + 2] = undefined;
    for (let j = 0; j < slots.length; j += 3) if (slots[j] !== FREE) return;
    // The key's last pane: the key leaves, as its entry would leave the backend's table.
    this.byKey.delete(key);
    this.cachedKey = undefined;
    this.cachedSlots = undefined;
  }

  mergeNamespaces(): void {
    throw new IllegalStateError('Panes looked up by key first belong to non-merging windows only');
  }

  /**
   * Writes every pane into `table` (the heap backend's entries of the same state, emptied first), in the form the
   * backend snapshots: namespace → key → value. The values are the panes' own objects; the table is emptied again
   * after the snapshot ({@link emptyTable}).
   */
  writeTo(table: StateTable<unknown>): void {
    table.clear();
    for (const [key, slots] of this.byKey) {
      for (let i = 0; i < slots.length; i += 3) {
        if (slots[i] === FREE) continue;
        const window = slots[i + 1];
        table.entriesForWrite(table.keyOf(window), window).set(key, slots[i + 2]);
      }
    }
  }

  /** Takes every entry of `table` (restored from a snapshot) as a pane, and empties it. */
  takeFrom(table: StateTable<unknown>): void {
    for (const inner of table.namespaces()) {
      const window = inner.namespace as W;
      const hash = this.hashing.hash(window);
      for (const [key, value] of inner) {
        const slots = this.byKey.get(key);
        this.byKey.set(
          key,
          slots === undefined ? [hash, window, value] : slots.concat([hash, window, value]),
        );
        this.panes++;
      }
    }
    this.cachedKey = undefined;
    this.cachedSlots = undefined;
    table.clear();
  }

  /** The current pane's stored value, or undefined. */
  private value(): unknown {
    const slots = this.slotsOf(this.keys.currentNormalizedKey());
    if (slots === undefined) return undefined;
    const i = this.indexIn(slots);
    return i < 0 ? undefined : slots[i + 2];
  }

  private slotsOf(key: NormalizedKey): unknown[] | undefined {
    if (key === this.cachedKey) return this.cachedSlots;
    const slots = this.byKey.get(key);
    this.cachedKey = key;
    this.cachedSlots = slots;
    return slots;
  }

  /** The index of the current window's triple in `slots`, or -1. Windows of one hash are told apart by `equals`. */
  private indexIn(slots: unknown[]): number {
    const hash = this.hash;
    const window = this.window;
    for (let i = 0; i < slots.length; i += 3) {
      if (slots[i] !== hash) continue;
      const held = slots[i + 1] as W;
      if (held === window || this.hashing.equals(held, window)) return i;
    }
    return -1;
  }

  /** Adds the current window's pane for `key` holding `value`, in a free triple of the key's if it has one. */
  private put(key: NormalizedKey, slots: unknown[] | undefined, value: unknown): void {
    this.panes++;
    if (slots !== undefined) {
      for (let i = 0; i < slots.length; i += 3) {
        if (slots[i] !== FREE) continue;
        slots[i] = this.hash;
        slots[i + 1] = this.window;
        slots[i + 2] = value;
        return;
      }
    }
    // concat allocates exactly the new length (a push would grow the array by half plus 16 slots); the triple is
    // passed as one array so that a value that is itself an array stays one element.
    const grown =
      slots === undefined ? [this.hash, this.window, value] : slots.concat([this.hash, this.window, value]);
    this.byKey.set(key, grown);
    this.cachedKey = key;
    this.cachedSlots = grown;
  }
}
