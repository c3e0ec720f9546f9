// DueBuffer: what the CEP operator waits for in event time (buffered elements and partial-match timeouts), by time.
import { emptyTaggedArray } from '../../core/stable-hidden-classes.ts';

/** The first slot of a timeout entry. */
export const TIMEOUT_ENTRY: unique symbol = Symbol('timeout');
/** The first slot of an entry for an element that may start something (see {@link DueBuffer.addStartingElement}). */
export const STARTING_ELEMENT: unique symbol = Symbol('starting element');

/** What an entry is, from its first slot (see {@link entryKind}). */
export const PLAIN_ELEMENT = 0;
export const MARKED_ELEMENT = 1;
export const TIMEOUT = 2;

/**
 * The kind of the entry whose first slot holds `first`: {@link TIMEOUT} ({@link TIMEOUT_ENTRY}), {@link MARKED_ELEMENT}
 * ({@link STARTING_ELEMENT}) or {@link PLAIN_ELEMENT} (anything else, a symbol of the user's included). The type is
 * tested first: a first slot holds elements of any type as well as the markers, and V8 compiles `===` between values
 * of mixed types seen at one place into a call of its generic comparison (~4 % of the CEP workload's time at
 * 1,000,000 keys, two such calls per entry in each of the watermark round's passes); after the type test the
 * comparisons see symbols only and compile to a pointer comparison.
 */
export function entryKind(first: unknown): number {
  // Stryker disable next-line ConditionalExpression: the type test only spares V8's generic comparison: the comparisons below answer alike without it
  if (typeof first !== 'symbol') return PLAIN_ELEMENT;
  return first === TIMEOUT_ENTRY ? TIMEOUT : first === STARTING_ELEMENT ? MARKED_ELEMENT : PLAIN_ELEMENT;
}

/**
 * The entries of one due time, the first `count` slots of `entries`, in the order they were added (see
 * {@link DueBuffer}): an element takes two slots (element, key), or three when marked as one that may start
 * something ({@link STARTING_ELEMENT}, element, key); a timeout three ({@link TIMEOUT_ENTRY}, its holder, its sequence
 * number). A first slot holding neither marker is an element.
 */
export class DueBucket {
  count = 0;
  constructor(
    public timestamp: number,
    /** Created at the size of the first entry: a time holding one timeout costs three slots, not a default capacity. */
    public entries: unknown[],
  ) {}
}

/** Slots of the table of buckets by time (a power of two): due times spread over more milliseconds than this share. */
const SLOTS = 4096;
// Stryker disable next-line ArithmeticOperator: the mask only spreads times over slots; a bucket whose slot is taken is found in the overflow map
const SLOT_MASK = SLOTS - 1;

/**
 * One operator-wide buffer of entries by due time instead of per-key queues and timers: a binary min-heap of buckets,
 * one per distinct time, each holding its entries in the order they were added: the order Flink's timers registered
 * at that time would fire in. Holds nothing per key: a key with nothing due has no entry.
 *
 * Buckets are found by time in a table of {@link SLOTS} slots indexed by the time's low bits (due times cluster within
 * a few seconds of the watermark, so they rarely share a slot), and in a Map only when their slot is taken.
 */
export class DueBuffer {
  // Buckets from the start: an empty literal changes its hidden class at its first bucket, in every operator of every
  // job (core/stable-hidden-classes.ts).
  private readonly heap: DueBucket[] = emptyTaggedArray();
  /** Each live bucket is in the slot of its time, or, when another bucket holds that slot, in `overflow`. */
  // Stryker disable next-line ArrayDeclaration: an empty array reads undefined in every slot as well (the size only presizes it)
  private readonly slots: (DueBucket | undefined)[] = new Array<DueBucket | undefined>(SLOTS).fill(undefined);
  private readonly overflow = new Map<number, DueBucket>();
  /** The bucket the last entry went to: elements arrive in near timestamp order, so most skip the lookup. */
  private lastBucket: DueBucket | undefined = undefined;

  /** Adds an element at `time` (later than any time taken so far). */
  addElement(time: number, element: unknown, key: unknown): void {
    const bucket = this.bucketFor(time, 2);
    const entries = bucket.entries;
    const i = bucket.count;
    entries[i] = element;
    entries[i + 1] = key;
    bucket.count = i + 2;
  }

  /**
   * Adds an element at `time` (later than any time taken so far), marked as one that may start something: the reader
   * of the entries decides what that means (the CEP operator: an element that may start a partial match, which a key
   * with none needs to be woken for; the others are two-slot entries).
   */
  addStartingElement(time: number, element: unknown, key: unknown): void {
    this.addTagged(time, STARTING_ELEMENT, element, key);
  }

  /** Adds a timeout at `time` (later than any time taken so far) for `holder`, numbered `seq`. */
  addTimeout(time: number, holder: unknown, seq: number): void {
    this.addTagged(time, TIMEOUT_ENTRY, holder, seq);
  }

  /** Adds a three-slot entry at `time`: its tag, then two values. */
  private addTagged(time: number, tag: unknown, first: unknown, second: unknown): void {
    const bucket = this.bucketFor(time, 3);
    const entries = bucket.entries;
    const i = bucket.count;
    entries[i] = tag;
    entries[i + 1] = first;
    entries[i + 2] = second;
    bucket.count = i + 3;
  }

  /** The earliest due time, or Infinity when nothing is buffered. */
  firstTime(): number {
    const bucket = this.heap[0];
    return bucket === undefined ? Number.POSITIVE_INFINITY : bucket.timestamp;
  }

  /**
   * Takes the buckets due at or before `time` out of the buffer into `out` (cleared first), ascending by time. Entries
   * added afterwards (at later times) go to new buckets. Emptied buckets are not reused: one that held a millisecond
   * of elements would keep its capacity for a time that holds one timeout.
   */
  takeUpTo(time: number, out: DueBucket[]): void {
    out.length = 0;
    for (;;) {
      const bucket = this.heap[0];
      if (bucket === undefined || bucket.timestamp > time) return;
      this.dropHead(bucket);
      out.push(bucket);
    }
  }

  /** Every live bucket in no particular order (the buffer's own list: read it, do not change it). */
  unorderedBuckets(): readonly DueBucket[] {
    return this.heap;
  }

  /** Every live bucket, ascending by time (a copy: for snapshots and tools, not the record path). */
  buckets(): DueBucket[] {
    return [...this.heap].sort((a, b) => a.timestamp - b.timestamp);
  }

  private bucketFor(time: number, slots: number): DueBucket {
    const last = this.lastBucket;
    // Stryker disable next-line ConditionalExpression: a shortcut: the lookup below finds the same bucket
    if (last !== undefined && last.timestamp === time) return last;
    const slot = time & SLOT_MASK;
    let bucket = this.slots[slot];
    if (bucket === undefined || bucket.timestamp !== time) {
      // Stryker disable next-line ConditionalExpression: a shortcut: an empty map finds nothing either
      bucket = this.overflow.size === 0 ? undefined : this.overflow.get(time);
      if (bucket === undefined) bucket = this.newBucket(time, slot, slots);
    }
    this.lastBucket = bucket;
    return bucket;
  }

  private newBucket(time: number, slot: number, slots: number): DueBucket {
    // Stryker disable next-line ArrayDeclaration: presized only: the first entry's writes grow an empty array alike
    const bucket = new DueBucket(time, new Array<unknown>(slots));
    // Stryker disable next-line ConditionalExpression,EqualityOperator: either way each bucket is found, in its slot or the map
    if (this.slots[slot] === undefined) this.slots[slot] = bucket;
    else this.overflow.set(time, bucket);
    this.heap.push(bucket);
    this.siftUp(this.heap.length - 1);
    return bucket;
  }

  private dropHead(bucket: DueBucket): void {
    const slot = bucket.timestamp & SLOT_MASK;
    // Memory only: a taken bucket's time is never asked for again (entries come at later times).
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
    if (this.slots[slot] === bucket) this.slots[slot] = undefined;
    else this.overflow.delete(bucket.timestamp);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
    if (this.lastBucket === bucket) this.lastBucket = undefined;
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const bucket = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      // Stryker disable next-line EqualityOperator: one bucket per time: no two times in the heap are equal
      if (parent.timestamp <= bucket.timestamp) break;
      heap[index] = parent;
      index = parentIndex;
    }
    heap[index] = bucket;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const n = heap.length;
    const bucket = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      // Stryker disable next-line EqualityOperator: one bucket per time, as above
      const child = right < n && heap[right]!.timestamp < heap[left]!.timestamp ? right : left;
      const c = heap[child]!;
      // Stryker disable next-line EqualityOperator: as above
      if (bucket.timestamp <= c.timestamp) break;
      heap[index] = c;
      index = child;
    }
    heap[index] = bucket;
  }
}
