// DueKeyQueue: the CEP operator's keys that need the watermark, ordered by the time each must wake up at.
/** What the queue needs of a key's record; the operator's records extend it with what the key holds. */
export interface DueKey {
  /** The time the key is due at; Infinity while it is out of the queue. */
  wakeAt: number;
  /** The stamp of the key's live entry in the queue, or -1: other entries of the key are stale and skipped. */
  stamp: number;
}

/**
 * The entries of one due time, the first `count` slots of two parallel arrays, ordered by stamp once the first is
 * taken; `head` is the next to take. Emptied buckets are reused for later times, arrays and all.
 */
class Bucket<K extends DueKey> {
  keys: (K | undefined)[] = [];
  stamps: number[] = [];
  count = 0;
  head = 0;
  sorted = false;
  constructor(public timestamp: number) {}
}

/** Slots of the table of buckets by time (a power of two): due times spread over more milliseconds than this share. */
const SLOTS = 4096;
const SLOT_MASK = SLOTS - 1;
/** Emptied buckets kept for reuse, at most this many. */
const BUCKET_POOL_SIZE = 64;

/**
 * One entry per key, at its due time, instead of event-time timers per key: a binary min-heap of buckets, one per
 * distinct time. Keys due at the same time come out in the order of their stamps (the caller's sequence numbers:
 * the order in which the timers they stand for were registered), however they were scheduled. Moving a key to
 * another time appends a new entry and leaves the old one stale (its stamp no longer matches the key's), so no
 * entry is ever searched for; stamps are unique per registration, and a key taken out has stamp -1, so a key
 * scheduled twice under one stamp still comes out once.
 *
 * Buckets are found by time in a table of {@link SLOTS} slots indexed by the time's low bits (due times cluster within
 * a few seconds of the watermark, so they rarely share a slot), and in a Map only when their slot is taken: scheduling
 * into an existing bucket costs an array read, not a hashed lookup.
 *
 * Costs: `schedule` O(1) into an existing bucket, O(log b) for a new time (b = distinct due times queued);
 * `takeDue` amortised O(1) per entry when stamps arrive in order (one pass checks that), O(log n) when a bucket of
 * n entries must be sorted, plus O(log b) per bucket emptied.
 */
export class DueKeyQueue<K extends DueKey> {
  private readonly heap: Bucket<K>[] = [];
  /** Each live bucket is in the slot of its time, or, when another bucket holds that slot, in `overflow`. */
  private readonly slots: (Bucket<K> | undefined)[] = new Array<Bucket<K> | undefined>(SLOTS).fill(undefined);
  private readonly overflow = new Map<number, Bucket<K>>();
  private readonly pool: Bucket<K>[] = [];
  /** The bucket the last entry went to: elements arrive in near timestamp order, so most skip the Map. */
  private lastBucket: Bucket<K> | undefined = undefined;
  /**
   * Queues `key` at `time` (finite, later than any time being taken) under `stamp` (>= 0, unique to this
   * registration), replacing its entry if it had one.
   */
  schedule(key: K, time: number, stamp: number): void {
    key.wakeAt = time;
    key.stamp = stamp;
    const bucket = this.bucketFor(time);
    const i = bucket.count++;
    bucket.keys[i] = key;
    bucket.stamps[i] = stamp;
  }

  /** Takes `key` out of the queue (its entry goes stale). */
  unschedule(key: K): void {
    key.wakeAt = Number.POSITIVE_INFINITY;
    key.stamp = -1;
  }

  /**
   * The next key due at or before `time`, taken out of the queue (its `wakeAt` stays, its stamp is cleared), or
   * undefined when none is. Keys scheduled meanwhile at times > `time` do not disturb the iteration.
   */
  takeDue(time: number): K | undefined {
    for (;;) {
      const bucket = this.heap[0];
      if (bucket === undefined || bucket.timestamp > time) return undefined;
      if (!bucket.sorted) sortByStamp(bucket);
      const keys = bucket.keys;
      const stamps = bucket.stamps;
      while (bucket.head < bucket.count) {
        const i = bucket.head++;
        const key = keys[i]!;
        keys[i] = undefined;
        if (key.stamp === stamps[i]) {
          key.stamp = -1;
          return key;
        }
      }
      this.dropHead(bucket);
    }
  }

  private bucketFor(time: number): Bucket<K> {
    const last = this.lastBucket;
    if (last !== undefined && last.timestamp === time) return last;
    const slot = time & SLOT_MASK;
    let bucket = this.slots[slot];
    if (bucket === undefined || bucket.timestamp !== time) {
      bucket = this.overflow.size === 0 ? undefined : this.overflow.get(time);
      if (bucket === undefined) bucket = this.newBucket(time, slot);
    }
    this.lastBucket = bucket;
    return bucket;
  }

  private newBucket(time: number, slot: number): Bucket<K> {
    let bucket = this.pool.pop();
    if (bucket === undefined) {
      bucket = new Bucket<K>(time);
    } else {
      bucket.timestamp = time;
      bucket.count = 0;
      bucket.head = 0;
      bucket.sorted = false;
    }
    if (this.slots[slot] === undefined) this.slots[slot] = bucket;
    else this.overflow.set(time, bucket);
    this.heap.push(bucket);
    this.siftUp(this.heap.length - 1);
    return bucket;
  }

  private dropHead(bucket: Bucket<K>): void {
    const slot = bucket.timestamp & SLOT_MASK;
    if (this.slots[slot] === bucket) this.slots[slot] = undefined;
    else this.overflow.delete(bucket.timestamp);
    if (this.lastBucket === bucket) this.lastBucket = undefined;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the pool only saves allocations
    if (this.pool.length < BUCKET_POOL_SIZE) this.pool.push(bucket);
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
      const child = right < n && heap[right]!.timestamp < heap[left]!.timestamp ? right : left;
      const c = heap[child]!;
      if (bucket.timestamp <= c.timestamp) break;
      heap[index] = c;
      index = child;
    }
    heap[index] = bucket;
  }
}

/** Scratch for {@link sortByStamp}: the entries set aside, reused by every bucket (cleared after each use). */
const asideKeys: (DueKey | undefined)[] = [];
const asideStamps: number[] = [];

/**
 * Orders a bucket's entries by stamp, once, before its first entry is taken. Entries arrive mostly in stamp order,
 * with some behind (a key scheduled again under the older registration it kept, as a Flink timer keeps its place):
 * one pass keeps the ascending run in place and sets the others aside, those few are sorted, and both are merged
 * from the back. O(n + a log a) for a bucket of n entries, a of them behind; allocates nothing.
 */
function sortByStamp<K extends DueKey>(bucket: Bucket<K>): void {
  bucket.sorted = true;
  const stamps = bucket.stamps;
  const keys = bucket.keys;
  const n = bucket.count;
  let kept = 0;
  let aside = 0;
  for (let i = 0; i < n; i++) {
    const stamp = stamps[i]!;
    if (kept === 0 || stamps[kept - 1]! <= stamp) {
      stamps[kept] = stamp;
      keys[kept] = keys[i];
      kept++;
    } else {
      asideStamps[aside] = stamp;
      asideKeys[aside] = keys[i];
      aside++;
    }
  }
  if (aside === 0) return;
  if (aside > 32) sortAsideByIndex(aside);
  // the entries set aside, by insertion (few, in the usual case; already in order after the sort above)
  for (let i = 1; i < aside; i++) {
    const stamp = asideStamps[i]!;
    const key = asideKeys[i];
    let j = i - 1;
    while (j >= 0 && asideStamps[j]! > stamp) {
      asideStamps[j + 1] = asideStamps[j]!;
      asideKeys[j + 1] = asideKeys[j];
      j--;
    }
    asideStamps[j + 1] = stamp;
    asideKeys[j + 1] = key;
  }
  // merge from the back: the kept run ends at kept - 1, the merged result at n - 1 (stamps are unique)
  let k = kept - 1;
  let w = n - 1;
  for (let a = aside - 1; a >= 0; w--) {
    if (k >= 0 && stamps[k]! > asideStamps[a]!) {
      stamps[w] = stamps[k]!;
      keys[w] = keys[k];
      k--;
    } else {
      stamps[w] = asideStamps[a]!;
      keys[w] = asideKeys[a] as K;
      asideKeys[a] = undefined;
      a--;
    }
  }
}

/** Sorts many entries set aside through an index (the rare case: a bucket filled in no particular order). */
function sortAsideByIndex(aside: number): void {
  const order = Array.from({ length: aside }, (_, i) => i).sort((a, b) => asideStamps[a]! - asideStamps[b]!);
  const keys = order.map((i) => asideKeys[i]);
  const stamps = order.map((i) => asideStamps[i]!);
  for (let i = 0; i < aside; i++) {
    asideKeys[i] = keys[i];
    asideStamps[i] = stamps[i]!;
  }
}
