// WindowFirstPaneState: the incremental window contents of the heap backend, one flat table of keys per window.
import { IllegalStateError } from '../../core/errors.ts';
import type { AggregateFunction, ReduceFunction } from '../../core/aggregate-function.ts';
import type { AggregatingStateDescriptor, ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import type { KeyContext } from '../../state/key-context.ts';
import type { NormalizedKey } from '../../state/key-hash.ts';
import type { NamespaceHashing } from '../../state/namespace.ts';
import type { StateTable } from '../../state/heap/state-table.ts';

/** Initial pairs of a window's table: a power of two. */
const INITIAL_CAPACITY = 16;

/**
 * One window's panes: its keys and their values. Integer keys in the int32 range (what numbered keys normalise to)
 * lie with their values in one array of (key, value) pairs, found by linear probing from the key's home pair; any
 * other key goes to a Map. A pair whose value is `undefined` is free (the heap backend reads a stored `undefined` as
 * no entry too), so a lookup reads one pair, usually one cache line, and has the value: a JS `Map` reads its hash
 * bucket and then the entry it points to, two cache misses for a key last touched many elements before. The table
 * holds at most three quarters of its pairs (a probe then reads about two pairs for a key held, all but always in the
 * home pair's cache line of eight; at most half made the table of 10,000 keys twice as large, 256 KB, and the job
 * slower: docs/performance.md); a removal shifts the pairs after it back (no tombstones).
 */
class PaneTable<W> {
  /** 2 × capacity - 1: a slot index wraps with `& mask` (pairs start at even indices). */
  private mask: number;
  /** 32 - log2(capacity): the top bits of the multiplicative hash give the home pair. */
  private shift: number;
  private intKeys = 0;
  private others: Map<NormalizedKey, unknown> | undefined = undefined;
  /** The next window's table of the same folded hash. */
  next: PaneTable<W> | undefined = undefined;

  constructor(
    readonly window: W,
    readonly hash: number,
    /**
     * (key, value) pairs, every pair free to begin with; a free pair holds 0 and `undefined`, so the array holds small
     * integers and values only. Its length is twice a power of two.
     */
    public slots: unknown[],
  ) {
    this.mask = slots.length - 1;
    this.shift = 32 - Math.log2(slots.length >> 1);
  }

  get size(): number {
    return this.intKeys + (this.others === undefined ? 0 : this.others.size);
  }

  /** The key's value, or undefined. */
  get(key: NormalizedKey): unknown {
    if (typeof key !== 'number' || (key | 0) !== key) return this.others?.get(key);
    const slots = this.slots;
    const mask = this.mask;
    for (let i = this.home(key); ; i = (i + 2) & mask) {
      const value = slots[i + 1];
      if (value === undefined || slots[i] === key) return value;
    }
  }

  /** Sets the key's value (not undefined). */
  set(key: NormalizedKey, value: unknown): void {
    if (typeof key !== 'number' || (key | 0) !== key) {
      (this.others ??= new Map()).set(key, value);
      return;
    }
    const slots = this.slots;
    const mask = this.mask;
    for (let i = this.home(key); ; i = (i + 2) & mask) {
      if (slots[i + 1] === undefined) {
        slots[i] = key;
        slots[i + 1] = value;
        // mask + 1 is twice the capacity: grow past three quarters of it.
        if (++this.intKeys * 8 > 3 * (mask + 1)) this.grow();
        return;
      }
      if (slots[i] === key) {
        slots[i + 1] = value;
        return;
      }
    }
  }

  /** Removes the key; returns its value, or undefined when it had none. */
  delete(key: NormalizedKey): unknown {
    if (typeof key !== 'number' || (key | 0) !== key) {
      const others = this.others;
      if (others === undefined) return undefined;
      const value = others.get(key);
      others.delete(key);
      return value;
    }
    const slots = this.slots;
    const mask = this.mask;
    let hole = this.home(key);
    for (; ; hole = (hole + 2) & mask) {
      if (slots[hole + 1] === undefined) return undefined;
      if (slots[hole] === key) break;
    }
    const value = slots[hole + 1];
    this.intKeys--;
    for (let j = (hole + 2) & mask; slots[j + 1] !== undefined; j = (j + 2) & mask) {
      // The pair at j may fill the hole unless its home lies cyclically in (hole, j]: then the hole is before it.
      const home = this.home(slots[j] as number);
      const stays = hole < j ? home > hole && home <= j : home > hole || home <= j;
      if (stays) continue;
      slots[hole] = slots[j];
      slots[hole + 1] = slots[j + 1];
      hole = j;
    }
    slots[hole] = 0;
    slots[hole + 1] = undefined;
    return value;
  }

  /** Calls `f` with every (key, value): integer keys in table order, then the others in insertion order. */
  forEach(f: (key: NormalizedKey, value: unknown) => void): void {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 2)
      if (slots[i + 1] !== undefined) f(slots[i] as number, slots[i + 1]);
    this.others?.forEach((value, key) => f(key, value));
  }

  /** Fibonacci hashing: the top bits of key × 2^32/φ, so consecutive keys spread over the table; a slot index. */
  private home(key: number): number {
    return (Math.imul(key, 0x9e3779b1) >>> this.shift) << 1;
  }

  private grow(): void {
    const old = this.slots;
    const capacity = old.length; // pairs: twice the old capacity
    this.slots = freeSlots(capacity);
    this.mask = 2 * capacity - 1;
    this.shift--;
    const slots = this.slots;
    const mask = this.mask;
    for (let o = 0; o < old.length; o += 2) {
      const value = old[o + 1];
      if (value === undefined) continue;
      const key = old[o] as number;
      let i = this.home(key);
      while (slots[i + 1] !== undefined) i = (i + 2) & mask;
      slots[i] = key;
      slots[i + 1] = value;
    }
  }
}

/**
 * `capacity` free pairs (a power of two), doubled by `concat` so that the array is packed (no hole checks on its loads)
 * and allocated at its size, not grown push by push.
 */
function freeSlots(capacity: number): unknown[] {
  let slots: unknown[] = [0, undefined];
  while (slots.length < 2 * capacity) slots = slots.concat(slots);
  return slots;
}

/**
 * The panes of a non-merging window operator whose contents are one value per (key, window): an aggregate's
 * accumulator or a reduced value, on the heap backend. Namespace first, as the backend's table (window → key →
 * value), where an element that lands in one window (tumbling windows) makes one lookup; but a window's keys lie in
 * one {@link PaneTable}, whose lookup of an integer key reads one (key, value) pair instead of a Map's bucket and
 * entry: one cache miss fewer per element, and per key when the window fires. The window looked up last is kept, so
 * consecutive elements of one window (most of them) find its table without a lookup.
 *
 * Each window's value receives the key's elements one by one in arrival order through the function's `add` (or
 * `reduce`), exactly as the heap backend's aggregating and reducing states do: same calls, same floating-point
 * order, no `merge`. Only where the values live changes. A window whose last pane is removed drops its table.
 * Snapshots hold the heap backend's form: before one, the operator writes every pane into the backend's table
 * ({@link writeTo}), and on restore it takes the restored entries from there ({@link takeFrom}), so a savepoint
 * reads the same either way (and as {@link KeyFirstPaneState}'s).
 */
export class WindowFirstPaneState<W, IN, ACC> {
  /** The windows' tables by folded hash, windows of one hash chained. */
  private readonly byHash = new Map<number, PaneTable<W>>();
  /** The current window and its table (undefined while it has none). */
  private window: W | undefined = undefined;
  private current: PaneTable<W> | undefined = undefined;
  /**
   * The pairs of the last table dropped, every one free again: the next window's table starts with them. Windows of
   * one operator hold about as many keys each, so a new window's table is then neither grown pair by pair to the size
   * the window before it reached nor allocated (a table of 10,000 keys is 256 KB, each a fresh mapping of memory).
   */
  private spare: unknown[] | undefined = undefined;
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

  /** Windows holding at least one pane. */
  get windows(): number {
    let n = 0;
    for (const head of this.byHash.values())
      for (let table: PaneTable<W> | undefined = head; table !== undefined; table = table.next) n++;
    return n;
  }

  setCurrentNamespace(window: W): void {
    if (window === this.window) return;
    this.window = window;
    this.current = this.tableOf(window);
  }

  /** Adds `value` to the current key's pane of the current window; true when this call created the pane. */
  add(value: IN): boolean {
    const key = this.keys.currentNormalizedKey();
    const table = this.current;
    if (table !== undefined) {
      const stored = table.get(key);
      if (stored !== undefined) {
        const aggregate = this.aggregate;
        const next =
          aggregate !== undefined
            ? aggregate.add(value, stored as ACC)
            : this.reduce!(stored as ACC, value as never);
        // A mutated accumulator is already stored; only a new value needs a write.
        if (next !== stored) this.replace(table, key, next);
        return false;
      }
    }
    this.create(key, value);
    return true;
  }

  /** The current pane's contents as the window function sees them (an aggregate's result), or undefined. */
  get(): unknown {
    const table = this.current;
    if (table === undefined) return undefined;
    const stored = table.get(this.keys.currentNormalizedKey());
    if (stored === undefined) return undefined;
    const aggregate = this.aggregate;
    return aggregate !== undefined ? aggregate.getResult(stored as ACC) : stored;
  }

  /** The current pane's raw accumulator (or reduced value), or undefined. */
  getAccumulator(): unknown {
    return this.current?.get(this.keys.currentNormalizedKey());
  }

  /** Removes the current key's pane of the current window. */
  clear(): void {
    this.take();
  }

  /**
   * Removes the current key's pane of the current window and returns what {@link get} would have returned before:
   * a window's end fires and then clears its pane, and this does both with one lookup.
   */
  getAndClear(): unknown {
    const stored = this.take();
    if (stored === undefined) return undefined;
    const aggregate = this.aggregate;
    return aggregate !== undefined ? aggregate.getResult(stored as ACC) : stored;
  }

  mergeNamespaces(): void {
    throw new IllegalStateError('Panes in a table per window belong to non-merging windows only');
  }

  /**
   * Writes every pane into `table` (the heap backend's entries of the same state, emptied first), in the form the
   * backend snapshots: namespace → key → value. The values are the panes' own objects; the table is emptied again
   * after the snapshot (the operator's `snapshotOperatorState`).
   */
  writeTo(table: StateTable<unknown>): void {
    table.clear();
    for (const head of this.byHash.values()) {
      for (let panes: PaneTable<W> | undefined = head; panes !== undefined; panes = panes.next) {
        const window = panes.window;
        const entries = table.entriesForWrite(table.keyOf(window), window);
        panes.forEach((key, value) => entries.set(key, value));
      }
    }
  }

  /** Takes every entry of `table` (restored from a snapshot) as a pane, and empties it. */
  takeFrom(table: StateTable<unknown>): void {
    for (const inner of table.namespaces()) {
      const window = inner.namespace as W;
      for (const [key, value] of inner) {
        if (value === undefined) continue;
        const panes = this.tableOf(window) ?? this.newTable(window);
        if (panes.get(key) === undefined) this.panes++;
        panes.set(key, value);
      }
    }
    this.window = undefined;
    this.current = undefined;
    table.clear();
  }

  /** Replaces the value of a pane that exists; a value of `undefined` removes it, as the heap backend reads it. */
  private replace(table: PaneTable<W>, key: NormalizedKey, value: unknown): void {
    if (value !== undefined) table.set(key, value);
    else this.take();
  }

  /** The first element of the current key's pane of the current window. */
  private create(key: NormalizedKey, value: IN): void {
    const aggregate = this.aggregate;
    const first = aggregate !== undefined ? aggregate.add(value, aggregate.createAccumulator()) : value;
    if (first === undefined) return; // stored as no entry, as the heap backend reads it
    const table = this.current ?? this.newTable(this.window as W);
    table.set(key, first);
    this.panes++;
  }

  /** Removes the current key's pane of the current window; returns its stored value, or undefined if none. */
  private take(): unknown {
    const table = this.current;
    if (table === undefined) return undefined;
    const stored = table.delete(this.keys.currentNormalizedKey());
    if (stored === undefined) return undefined;
    this.panes--;
    if (table.size === 0) this.dropTable(table);
    return stored;
  }

  /** The window's table, or undefined. */
  private tableOf(window: W): PaneTable<W> | undefined {
    const hashing = this.hashing;
    let table = this.byHash.get(foldHash(hashing.hash(window)));
    while (table !== undefined && table.window !== window && !hashing.equals(table.window, window))
      table = table.next;
    return table;
  }

  /** A table for a window that has none, made current when the window is. */
  private newTable(window: W): PaneTable<W> {
    const hash = foldHash(this.hashing.hash(window));
    let slots = this.spare;
    if (slots !== undefined) this.spare = undefined;
    else slots = freeSlots(INITIAL_CAPACITY);
    const table = new PaneTable(window, hash, slots);
    table.next = this.byHash.get(hash);
    this.byHash.set(hash, table);
    if (this.window !== undefined && (this.window === window || this.hashing.equals(this.window, window)))
      this.current = table;
    return table;
  }

  /** Removes an empty table from its hash's chain. */
  private dropTable(table: PaneTable<W>): void {
    let head = this.byHash.get(table.hash);
    if (head === table) {
      if (table.next === undefined) this.byHash.delete(table.hash);
      else this.byHash.set(table.hash, table.next);
    } else {
      while (head !== undefined && head.next !== table) head = head.next;
      if (head !== undefined) head.next = table.next;
    }
    if (this.current === table) this.current = undefined;
    // A table is dropped empty: every pair of its array is free.
    const spare = this.spare;
    if (spare === undefined || spare.length < table.slots.length) this.spare = table.slots;
  }
}

/** A namespace's hash as a small non-negative integer: equal hashes stay equal (windows of one folded hash are told apart by `equals`). */
function foldHash(hash: number): number {
  return hash & 0x3fffffff;
}
