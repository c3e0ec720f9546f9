// DueKeyQueue: the CEP operator's keys that need the watermark, ordered by the time each must wake up at.
import type { NormalizedKey } from '../../state/key-hash.ts';

/**
 * A key the operator holds something for in event time: queued elements, a live partial match that can time out,
 * or both. `wakeAt` is the earliest of its first queued timestamp and its next timeout (Infinity when neither).
 * `queue` is the key's element queue, the very object its keyed state holds (written through on every change),
 * so buffering an element reads no state.
 */
export interface DueKey<Q> {
  readonly key: unknown;
  readonly normalizedKey: NormalizedKey;
  queue: Q | undefined;
  wakeAt: number;
  /** The stamp of the key's live entry in the queue, or -1: older entries of the key are stale and skipped. */
  stamp: number;
}

/** The entries of one wake-up time, in the order they were made; `head` is the next to take. */
class Bucket<Q> {
  readonly keys: DueKey<Q>[] = [];
  readonly stamps: number[] = [];
  head = 0;
  constructor(readonly timestamp: number) {}
}

/**
 * One entry per key, at its wake-up time, instead of an event-time timer per key: a binary min-heap of buckets,
 * one per distinct time, each a FIFO list. Keys due at the same time come out in the order their wake-up time was
 * set. Moving a key to another time appends a new entry and leaves the old one stale (its stamp no longer matches
 * the key's), so no entry is ever searched for.
 *
 * Costs: `schedule` O(1) into an existing bucket, O(log b) for a new time (b = distinct wake-up times queued);
 * `takeDue` amortised O(1) per entry, plus O(log b) per bucket emptied. Nothing is allocated per entry.
 */
export class DueKeyQueue<Q> {
  private readonly heap: Bucket<Q>[] = [];
  private readonly byTime = new Map<number, Bucket<Q>>();
  /** The bucket the last entry went to: elements arrive in near timestamp order, so most skip the Map. */
  private lastBucket: Bucket<Q> | undefined = undefined;
  private nextStamp = 0;

  /** Queues `key` at `time` (finite), replacing its entry if it had one. */
  schedule(key: DueKey<Q>, time: number): void {
    key.wakeAt = time;
    const stamp = this.nextStamp++;
    key.stamp = stamp;
    const bucket = this.bucketFor(time);
    bucket.keys.push(key);
    bucket.stamps.push(stamp);
  }

  /** Takes `key` out of the queue (its entry goes stale). */
  unschedule(key: DueKey<Q>): void {
    key.wakeAt = Number.POSITIVE_INFINITY;
    key.stamp = -1;
  }

  /**
   * The next key due at or before `time`, taken out of the queue (its `wakeAt` stays, its stamp is cleared), or
   * undefined when none is. Keys scheduled meanwhile at times > `time` do not disturb the iteration.
   */
  takeDue(time: number): DueKey<Q> | undefined {
    for (;;) {
      const bucket = this.heap[0];
      if (bucket === undefined || bucket.timestamp > time) return undefined;
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

  private bucketFor(time: number): Bucket<Q> {
    const last = this.lastBucket;
    if (last !== undefined && last.timestamp === time) return last;
    let bucket = this.byTime.get(time);
    if (bucket === undefined) {
      bucket = new Bucket<Q>(time);
      this.byTime.set(time, bucket);
      this.heap.push(bucket);
      this.siftUp(this.heap.length - 1);
    }
    this.lastBucket = bucket;
    return bucket;
  }

  private dropHead(bucket: Bucket<Q>): void {
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
