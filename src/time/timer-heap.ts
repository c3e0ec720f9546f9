// TimerHeap: a priority queue of timers with de-duplication and cheap deletion, grouped by timestamp.
import type { NormalizedKey } from '../state/key-hash.ts';

/** A timer in the queue. `bucket` and `index` locate it, so deletion needs no search. */
export interface HeapTimer<N> {
  readonly timestamp: number;
  readonly key: unknown;
  readonly normalizedKey: NormalizedKey;
  readonly namespace: N;
  readonly nsKey: string | number;
  /** Insertion order: timers with equal timestamps fire first-registered first, so runs are deterministic. */
  readonly seq: number;
  /** The slot in its bucket's list while queued. */
  index: number;
  /** The bucket of its timestamp while queued, undefined once polled or removed. */
  bucket: TimerBucket<N> | undefined;
  /** The next timer of the same key: each key's timers form a short intrusive list (the de-duplication index). */
  nextOfKey: HeapTimer<N> | undefined;
}

/** The timers of one timestamp, in registration order; removed timers leave holes until the list is compacted. */
export class TimerBucket<N> {
  timers: (HeapTimer<N> | undefined)[] = [];
  /** Slots before `head` are holes: the timers there fired. */
  head = 0;
  /** Timers still queued. A bucket with none is dropped at once. */
  live = 0;
  heapIndex = 0;

  constructor(readonly timestamp: number) {}
}

/**
 * Flink's HeapPriorityQueueSet, with timers grouped by timestamp: a binary min-heap of buckets, one per distinct
 * timestamp, each a FIFO list of its timers, plus a per-key index that rejects duplicates of (timestamp, key,
 * namespace). Event-time timers cluster on few timestamps (every key's window ends at the same millisecond), so
 * most adds land in the bucket used last and a poll takes the next timer of the head bucket without touching the
 * heap. Polling order is (timestamp, registration order), exactly that of a heap ordered by (timestamp, seq).
 *
 * A key seldom has more than a few timers, so the per-key list (linked through the timers themselves, so a key
 * costs one Map entry and no array) is scanned linearly: no allocation when a duplicate is registered again,
 * which window triggers do per record.
 *
 * Costs: add O(1) into an existing bucket, O(log b) for a new timestamp (b = distinct timestamps queued); poll
 * amortised O(1), plus O(log b) when it empties a bucket; remove O(1) amortised (holes are compacted once they
 * outnumber the live timers); peek O(1) amortised; duplicate check O(timers of that key).
 */
export class TimerHeap<N> {
  private readonly heap: TimerBucket<N>[] = [];
  private readonly byTimestamp = new Map<number, TimerBucket<N>>();
  /** The bucket the last add went to: consecutive timers of one window share it, so they skip the Map. */
  private lastBucket: TimerBucket<N> | undefined = undefined;
  /** The first timer of each key that has any; the rest follow through `nextOfKey`. */
  private readonly byKey = new Map<NormalizedKey, HeapTimer<N>>();
  private seq = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The earliest timer, without removing it. */
  peek(): HeapTimer<N> | undefined {
    const bucket = this.heap[0];
    if (bucket === undefined) return undefined;
    const timers = bucket.timers;
    // A queued bucket holds a live timer, so this stops inside the list.
    let head = bucket.head;
    while (timers[head] === undefined) head++;
    bucket.head = head;
    return timers[head];
  }

  /** Adds a timer unless it exists. Returns true when added. */
  add(
    timestamp: number,
    key: unknown,
    normalizedKey: NormalizedKey,
    namespace: N,
    nsKey: string | number,
  ): boolean {
    // New timers go to the end of the key's list, so the key's oldest timer, usually the next to fire, is first.
    let last: HeapTimer<N> | undefined;
    for (let t = this.byKey.get(normalizedKey); t !== undefined; t = t.nextOfKey) {
      if (t.timestamp === timestamp && t.nsKey === nsKey) return false;
      last = t;
    }
    const bucket = this.bucketFor(timestamp);
    const timer: HeapTimer<N> = {
      timestamp,
      key,
      normalizedKey,
      namespace,
      nsKey,
      seq: this.seq++,
      index: bucket.timers.length,
      bucket,
      nextOfKey: undefined,
    };
    bucket.timers.push(timer);
    bucket.live++;
    this.count++;
    if (last === undefined) this.byKey.set(normalizedKey, timer);
    else last.nextOfKey = timer;
    return true;
  }

  /** Removes the timer (timestamp, key, namespace) if present. Returns true when removed. */
  remove(timestamp: number, normalizedKey: NormalizedKey, nsKey: string | number): boolean {
    let previous: HeapTimer<N> | undefined;
    for (let t = this.byKey.get(normalizedKey); t !== undefined; previous = t, t = t.nextOfKey) {
      if (t.timestamp === timestamp && t.nsKey === nsKey) {
        this.unlink(t, previous);
        const bucket = t.bucket!;
        bucket.timers[t.index] = undefined;
        t.bucket = undefined;
        this.count--;
        if (--bucket.live === 0) {
          this.dropBucket(bucket);
          return true;
        }
        // Stryker disable next-line all: when to compact only decides how soon holes are reclaimed; the order and contents are the same
        if (bucket.timers.length - bucket.head > 2 * bucket.live + 16) this.compact(bucket);
        return true;
      }
    }
    return false;
  }

  /** Removes and returns the earliest timer. */
  poll(): HeapTimer<N> | undefined {
    const top = this.peek();
    if (top === undefined) return undefined;
    const bucket = top.bucket!;
    // Stryker disable next-line UpdateOperator: peek skips the emptied slot from any head at or before it
    bucket.timers[bucket.head++] = undefined;
    top.bucket = undefined;
    this.count--;
    let previous: HeapTimer<N> | undefined;
    for (let t = this.byKey.get(top.normalizedKey); t !== top; t = t!.nextOfKey) previous = t;
    this.unlink(top, previous);
    if (--bucket.live === 0) {
      this.dropBucket(bucket);
      return top;
    }
    // Stryker disable next-line all: when to compact only decides how soon holes are reclaimed; the order and contents are the same
    if (bucket.head > 64 && bucket.head * 2 > bucket.timers.length) this.compact(bucket);
    return top;
  }

  /** All timers, in no particular order (a fresh array). */
  values(): readonly HeapTimer<N>[] {
    const all: HeapTimer<N>[] = [];
    for (const bucket of this.heap) {
      // Stryker disable next-line EqualityOperator: the slot past the end is undefined and skipped
      for (let i = bucket.head; i < bucket.timers.length; i++) {
        const t = bucket.timers[i];
        if (t !== undefined) all.push(t);
      }
    }
    return all;
  }

  clear(): void {
    for (const bucket of this.heap) {
      for (const t of bucket.timers) if (t !== undefined) t.bucket = undefined;
    }
    this.heap.length = 0;
    this.byTimestamp.clear();
    this.lastBucket = undefined;
    this.byKey.clear();
    this.count = 0;
  }

  private bucketFor(timestamp: number): TimerBucket<N> {
    const last = this.lastBucket;
    // Stryker disable next-line ConditionalExpression: a cache; the Map holds the same bucket
    if (last !== undefined && last.timestamp === timestamp) return last;
    let bucket = this.byTimestamp.get(timestamp);
    if (bucket === undefined) {
      bucket = new TimerBucket<N>(timestamp);
      this.byTimestamp.set(timestamp, bucket);
      bucket.heapIndex = this.heap.length;
      this.heap.push(bucket);
      this.siftUp(bucket.heapIndex);
    }
    this.lastBucket = bucket;
    return bucket;
  }

  /** Takes `timer` out of its key's list; `previous` is the timer before it, undefined when it is the first. */
  private unlink(timer: HeapTimer<N>, previous: HeapTimer<N> | undefined): void {
    const next = timer.nextOfKey;
    timer.nextOfKey = undefined;
    if (previous !== undefined) previous.nextOfKey = next;
    // Stryker disable next-line ConditionalExpression: a key mapped to undefined reads as a key with no timers
    else if (next !== undefined) this.byKey.set(timer.normalizedKey, next);
    else this.byKey.delete(timer.normalizedKey);
  }

  /** Rewrites a bucket's list without holes, keeping the order. */
  // Stryker disable next-line BlockStatement: compaction only reclaims holes; every timer keeps a valid index without it
  private compact(bucket: TimerBucket<N>): void {
    const timers: HeapTimer<N>[] = [];
    // Stryker disable next-line EqualityOperator: the slot past the end is undefined and skipped
    for (let i = bucket.head; i < bucket.timers.length; i++) {
      const t = bucket.timers[i];
      if (t === undefined) continue;
      t.index = timers.length;
      timers.push(t);
    }
    bucket.timers = timers;
    bucket.head = 0;
  }

  private dropBucket(bucket: TimerBucket<N>): void {
    this.byTimestamp.delete(bucket.timestamp);
    // Stryker disable next-line ConditionalExpression: forgetting a cached bucket only costs a Map lookup
    if (this.lastBucket === bucket) this.lastBucket = undefined;
    const heap = this.heap;
    const last = heap.pop()!;
    if (last !== bucket) {
      heap[bucket.heapIndex] = last;
      last.heapIndex = bucket.heapIndex;
      this.siftDown(last.heapIndex);
      this.siftUp(last.heapIndex);
    }
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const bucket = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      // Stryker disable next-line EqualityOperator: buckets have distinct timestamps
      if (parent.timestamp <= bucket.timestamp) break;
      heap[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    heap[index] = bucket;
    bucket.heapIndex = index;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const n = heap.length;
    const bucket = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      // Stryker disable next-line EqualityOperator: buckets have distinct timestamps
      const child = right < n && heap[right]!.timestamp < heap[left]!.timestamp ? right : left;
      const c = heap[child]!;
      // Stryker disable next-line all: buckets have distinct timestamps, and a bucket sifted too far down is sifted back up by dropBucket
      if (bucket.timestamp <= c.timestamp) break;
      heap[index] = c;
      c.heapIndex = index;
      index = child;
    }
    heap[index] = bucket;
    bucket.heapIndex = index;
  }
}
