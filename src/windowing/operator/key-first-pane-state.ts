// KeyFirstPaneState: the incremental window contents of the heap backend looked up by key first, one lookup per element.
import { IllegalStateError } from '../../core/errors.ts';
import type { AggregateFunction, ReduceFunction } from '../../core/aggregate-function.ts';
import type { AggregatingStateDescriptor, ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import type { KeyContext } from '../../state/key-context.ts';
import type { NormalizedKey } from '../../state/key-hash.ts';
import type { NamespaceHashing } from '../../state/namespace.ts';
import type { StateTable } from '../../state/heap/state-table.ts';
import { BlockIndex, NO_BLOCK } from '../../state/heap/block-index.ts';

/**
 * The hash slot of a free triple. Stored hashes are folded into [0, 2^30) ({@link foldHash}), so -1 matches none,
 * and every hash slot holds a small integer: the scan's `!==` then compiles to an inline integer compare. With
 * `undefined` for a free slot V8's feedback saw numbers and an oddball, and each compare was a call of the generic
 * StrictEqual builtin (3 % of hot items' samples in `perf`).
 */
const FREE = -1;
/** No block: the end of a key's chain of blocks, or of the free blocks. */
const NONE = NO_BLOCK;

/**
 * The panes of a non-merging window operator whose contents are one value per (key, window): an aggregate's
 * accumulator or a reduced value. The heap backend's table is namespace first (window → key → value), so an element
 * of a sliding window pays one lookup in a Map of every key per window it lands in: five for a 10 s window sliding
 * by 2 s, each a cache miss on a Map of ~10,000 keys. Here a key's panes lie together, found by one lookup of the
 * key (kept while the key stays current, so an element's further windows and a timer's read and clear find them
 * without another), scanned by the window's hash: a key has a pane in each window it has elements in that has not
 * fired, a handful.
 *
 * **Layout.** Every key's panes live in one shared array, the arena, in blocks of `panesPerBlock` (hash, window,
 * value) triples and a last slot naming the key's next block (or {@link NONE}); a {@link BlockIndex} gives a key's first
 * block as the index where it starts (an integer key without a Map: one cache miss, not two). A key of its own array cost two cache misses
 * before its first hash (the array object, then its elements store, each read last seconds of event time before
 * for most keys: 75 % of the samples of the timer path's pane read in `perf annotate`); a block in the arena is one.
 * The operator sizes a block for the windows an element lands in plus the one the watermark has not yet closed, so
 * a key of a sliding window needs one block; more panes chain further blocks. A pane cleared leaves its triple free
 * for the key's next pane (a key gains a pane each slide as one fires, so it keeps its block), and a key whose last
 * pane is cleared leaves the index and its blocks go to a free list that new keys take first: the arena grows only to
 * the most blocks held at once.
 *
 * Each window's value receives the key's elements one by one in arrival order through the function's `add` (or
 * `reduce`), exactly as the heap backend's aggregating and reducing states do: same calls, same floating-point
 * order, no `merge`. Only where the values live changes. Snapshots hold the heap backend's form: before one, the
 * operator writes every pane into the backend's table ({@link writeTo}), and on restore it takes the restored
 * entries from there ({@link takeFrom}), so a savepoint reads the same either way.
 */
export class KeyFirstPaneState<W, IN, ACC> {
  /** Each key's first block: the index of its first slot in {@link arena}. */
  private readonly byKey = new BlockIndex();
  /** Blocks of (hash, window, value) triples and a next-block slot; hashes and next slots are small integers. */
  private arena: unknown[] = [];
  /** Slots of a block's triples; the block's next-block slot follows them. */
  private readonly tripleSlots: number;
  /** The first free block, chained through their next-block slots, or {@link NONE}. */
  private freeBlocks = NONE;
  /** The key whose first block `cachedBlock` is, or undefined; reset whenever that key's blocks are dropped. */
  private cachedKey: NormalizedKey | undefined = undefined;
  private cachedBlock = NONE;
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
    /** Triples per block: the panes a key usually holds at once. */
    panesPerBlock = 4,
  ) {
    if (!(panesPerBlock >= 1))
      throw new IllegalStateError(`A block holds at least one pane, got ${panesPerBlock}`);
    this.tripleSlots = 3 * Math.floor(panesPerBlock);
    if (descriptor.kind === 'aggregating') {
      this.aggregate = descriptor.aggregateFunction;
      this.reduce = undefined;
    } else {
      this.aggregate = undefined;
      this.reduce = descriptor.reduceFunction;
    }
  }

  /** Slots of the arena: blocks held by keys and free ones. */
  get arenaSlots(): number {
    return this.arena.length;
  }

  setCurrentNamespace(window: W): void {
    this.window = window;
    this.hash = foldHash(this.hashing.hash(window));
  }

  /** Adds `value` to the current key's pane of the current window; true when this call created the pane. */
  add(value: IN): boolean {
    const key = this.keys.currentNormalizedKey();
    const block = this.blockOf(key);
    if (block !== NONE) {
      const i = this.indexFrom(block);
      if (i >= 0) {
        const arena = this.arena;
        const current = arena[i + 2] as ACC;
        const aggregate = this.aggregate;
        arena[i + 2] =
          aggregate !== undefined ? aggregate.add(value, current) : this.reduce!(current, value as never);
        return false;
      }
    }
    const aggregate = this.aggregate;
    const first = aggregate !== undefined ? aggregate.add(value, aggregate.createAccumulator()) : value;
    this.put(key, block, this.hash, this.window, first);
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
    this.take();
  }

  /**
   * Removes the current key's pane of the current window and returns what {@link get} would have returned before:
   * a window's end fires and then clears its pane, and this does both with one scan of the key's blocks.
   */
  getAndClear(): unknown {
    const stored = this.take();
    if (stored === undefined) return undefined;
    const aggregate = this.aggregate;
    return aggregate !== undefined ? aggregate.getResult(stored as ACC) : stored;
  }

  /** Removes the current key's pane of the current window; returns its stored value, or undefined if none. */
  private take(): unknown {
    const key = this.keys.currentNormalizedKey();
    const first = this.blockOf(key);
    if (first === NONE) return undefined;
    const i = this.indexFrom(first);
    if (i < 0) return undefined;
    this.panes--;
    const arena = this.arena;
    const stored = arena[i + 2];
    arena[i] = FREE;
    arena[i + 1] = undefined;
    arena[i + 2] = undefined;
    this.releaseIfEmpty(key, first);
    return stored;
  }

  /** After a pane of `key` was freed: if it was the key's last, the key leaves and its blocks go to the free list. */
  private releaseIfEmpty(key: NormalizedKey, first: number): void {
    const arena = this.arena;
    const tripleSlots = this.tripleSlots;
    let last = first;
    for (let block = first; block !== NONE; block = arena[block + tripleSlots] as number) {
      for (let j = block; j < block + tripleSlots; j += 3) if (arena[j] !== FREE) return;
      last = block;
    }
    // The key's last pane: the key leaves, as its entry would leave the backend's table, and its blocks (every
    // triple free) go to the free list.
    arena[last + tripleSlots] = this.freeBlocks;
    this.freeBlocks = first;
    this.byKey.delete(key);
    this.cachedKey = undefined;
    this.cachedBlock = NONE;
  }

  mergeNamespaces(): void {
    throw new IllegalStateError('Panes looked up by key first belong to non-merging windows only');
  }

  /**
   * Writes every pane into `table` (the heap backend's entries of the same state, emptied first), in the form the
   * backend snapshots: namespace → key → value. The values are the panes' own objects; the table is emptied again
   * after the snapshot (the operator's `snapshotOperatorState`).
   */
  writeTo(table: StateTable<unknown>): void {
    table.clear();
    const arena = this.arena;
    const tripleSlots = this.tripleSlots;
    for (const [key, first] of this.byKey.entries()) {
      for (let block = first; block !== NONE; block = arena[block + tripleSlots] as number) {
        for (let i = block; i < block + tripleSlots; i += 3) {
          if (arena[i] === FREE) continue;
          const window = arena[i + 1];
          table.entriesForWrite(table.keyOf(window), window).set(key, arena[i + 2]);
        }
      }
    }
  }

  /** Takes every entry of `table` (restored from a snapshot) as a pane, and empties it. */
  takeFrom(table: StateTable<unknown>): void {
    for (const inner of table.namespaces()) {
      const window = inner.namespace as W;
      const hash = foldHash(this.hashing.hash(window));
      for (const [key, value] of inner) this.put(key, this.byKey.get(key), hash, window, value);
    }
    this.cachedKey = undefined;
    this.cachedBlock = NONE;
    table.clear();
  }

  /** The current pane's stored value, or undefined. */
  private value(): unknown {
    const block = this.blockOf(this.keys.currentNormalizedKey());
    if (block === NONE) return undefined;
    const i = this.indexFrom(block);
    return i < 0 ? undefined : this.arena[i + 2];
  }

  private blockOf(key: NormalizedKey): number {
    if (key === this.cachedKey) return this.cachedBlock;
    const block = this.byKey.get(key);
    this.cachedKey = key;
    this.cachedBlock = block;
    return block;
  }

  /**
   * The arena index of the current window's triple in the key's blocks from `block` on, or -1. Windows of one hash
   * are told apart by `equals`.
   */
  private indexFrom(block: number): number {
    const arena = this.arena;
    const hash = this.hash;
    const window = this.window;
    const tripleSlots = this.tripleSlots;
    for (let b = block; b !== NONE; b = arena[b + tripleSlots] as number) {
      const end = b + tripleSlots;
      for (let i = b; i < end; i += 3) {
        if (arena[i] !== hash) continue;
        const held = arena[i + 1] as W;
        if (held === window || this.hashing.equals(held, window)) return i;
      }
    }
    return -1;
  }

  /**
   * Adds the pane (hash, window) for `key` holding `value`, in a free triple of the key's blocks from `first` on
   * ({@link NONE}: the key has none), or in a new block chained after its last.
   */
  private put(key: NormalizedKey, first: number, hash: number, window: W, value: unknown): void {
    this.panes++;
    const arena = this.arena;
    const tripleSlots = this.tripleSlots;
    let last = NONE;
    for (let block = first; block !== NONE; block = arena[block + tripleSlots] as number) {
      for (let i = block; i < block + tripleSlots; i += 3) {
        if (arena[i] !== FREE) continue;
        arena[i] = hash;
        arena[i + 1] = window;
        arena[i + 2] = value;
        return;
      }
      last = block;
    }
    const block = this.newBlock();
    this.arena[block] = hash;
    this.arena[block + 1] = window;
    this.arena[block + 2] = value;
    if (last !== NONE) {
      this.arena[last + tripleSlots] = block;
    } else {
      this.byKey.set(key, block);
      this.cachedKey = key;
      this.cachedBlock = block;
    }
  }

  /** A block with every triple free and no next block: from the free list, else appended to the arena. */
  private newBlock(): number {
    const arena = this.arena;
    const tripleSlots = this.tripleSlots;
    const free = this.freeBlocks;
    if (free !== NONE) {
      this.freeBlocks = arena[free + tripleSlots] as number;
      arena[free + tripleSlots] = NONE;
      return free;
    }
    const block = arena.length;
    for (let i = 0; i < tripleSlots; i += 3) arena.push(FREE, undefined, undefined);
    arena.push(NONE);
    return block;
  }
}

/**
 * A namespace's hash as a small non-negative integer: equal hashes stay equal (windows of one folded hash are told
 * apart by `equals`, as windows of one hash), and no hash is {@link FREE}.
 */
function foldHash(hash: number): number {
  return hash & 0x3fffffff;
}
