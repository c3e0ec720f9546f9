// DueKeyQueue: the CEP operator's keys that need the watermark, ordered by the time each must wake up at.
/** What the queue needs of a key's record; the operator's records extend it with what the key holds. */
export interface DueKey {
  /** The time the key is due at; Infinity while it is out of the queue. */
  wakeAt: number;
  /** The stamp of the key's live entry in the queue, or -1: other entries of the key are stale and skipped. */
  stamp: number;
}

/** The entries of one due time, ordered by stamp once the first is taken; `head` is the next to take. */
class Bucket<K extends DueKey> {
  keys: K[] = [];
  stamps: number[] = [];
  head = 0;
  sorted = false;
  constructor(readonly timestamp: number) {}
}

/**
 * One entry per key, at its due time, instead of event-time timers per key: a binary min-heap of buckets, one per
 * distinct time. Keys due at the same time come out in the order of their stamps (the caller's sequence numbers:
 * the order in which the timers they stand for were registered), however they were scheduled. Moving a key to
 * another time appends a new entry and leaves the old one stale (its stamp no longer matches the key's), so no
 * entry is ever searched for; stamps are unique per registration, and a key taken out has stamp -1, so a key
 * scheduled twice under one stamp still comes out once.
 *
 * Costs: `schedule` O(1) into an existing bucket, O(log b) for a new time (b = distinct due times queued);
 * `takeDue` amortised O(1) per entry when stamps arrive in order (one pass checks that), O(log n) when a bucket of
 * n entries must be sorted, plus O(log b) per bucket emptied.
 */
export class DueKeyQueue<K extends DueKey> {
  private readonly heap: Bucket<K>[] = [];
  private readonly byTime = new Map<number, Bucket<K>>();
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
    bucket.keys.push(key);
    bucket.stamps.push(stamp);
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
      while (bucket.head < keys.length) {
        const i = bucket.head++;
        const key = keys[i]!;
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
    let bucket = this.byTime.get(time);
    if (bucket === undefined) {
      bucket = new Bucket<K>(time);
      this.byTime.set(time, bucket);
      this.heap.push(bucket);
      this.siftUp(this.heap.length - 1);
    }
    this.lastBucket = bucket;
    return bucket;
  }

  private dropHead(bucket: Bucket<K>): void {
    this.byTime.delete(bucket.timestamp);
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

/**
 * Orders a bucket's entries by stamp, once, before its first entry is taken. Entries mostly arrive in stamp order
 * or nearly (a key scheduled again under an older registration), so small buckets are insertion-sorted in place;
 * large ones, which may be in any order, are sorted through an index.
 */
function sortByStamp<K extends DueKey>(bucket: Bucket<K>): void {
  bucket.sorted = true;
  const stamps = bucket.stamps;
  const keys = bucket.keys;
  const n = stamps.length;
  if (n <= 64) {
    for (let i = 1; i < n; i++) {
      const stamp = stamps[i]!;
      if (stamps[i - 1]! <= stamp) continue;
      const key = keys[i]!;
      let j = i - 1;
      while (j >= 0 && stamps[j]! > stamp) {
        stamps[j + 1] = stamps[j]!;
        keys[j + 1] = keys[j]!;
        j--;
      }
      stamps[j + 1] = stamp;
      keys[j + 1] = key;
    }
    return;
  }
  const order = stamps.map((_, i) => i).sort((a, b) => stamps[a]! - stamps[b]!);
  bucket.keys = order.map((i) => keys[i]!);
  bucket.stamps = order.map((i) => stamps[i]!);
}
