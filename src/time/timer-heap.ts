// TimerHeap: an indexed binary min-heap of timers with de-duplication and O(log n) deletion.
import type { NormalizedKey } from '../state/key-hash.ts';

/** A timer in the heap. `index` is its heap slot, so deletion needs no search. */
export interface HeapTimer<N> {
  readonly timestamp: number;
  readonly key: unknown;
  readonly normalizedKey: NormalizedKey;
  readonly namespace: N;
  readonly nsKey: string | number;
  /** Insertion order: timers with equal timestamps fire first-registered first, so runs are deterministic. */
  readonly seq: number;
  index: number;
}

/**
 * Flink's HeapPriorityQueueSet: a min-heap ordered by (timestamp, seq) plus a per-key index that rejects
 * duplicates of (timestamp, key, namespace). A key seldom has more than a few timers, so the per-key list is
 * scanned linearly: no allocation when a duplicate is registered again, which window triggers do per record.
 * Costs: add and remove O(log n), peek O(1), duplicate check O(timers of that key).
 */
export class TimerHeap<N> {
  private readonly heap: HeapTimer<N>[] = [];
  private readonly byKey = new Map<NormalizedKey, HeapTimer<N>[]>();
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  peek(): HeapTimer<N> | undefined {
    return this.heap[0];
  }

  /** Adds a timer unless it exists. Returns true when added. */
  add(timestamp: number, key: unknown, normalizedKey: NormalizedKey, namespace: N, nsKey: string | number): boolean {
    let list = this.byKey.get(normalizedKey);
    if (list !== undefined) {
      for (let i = 0; i < list.length; i++) {
        const t = list[i]!;
        if (t.timestamp === timestamp && t.nsKey === nsKey) return false;
      }
    } else {
      list = [];
      this.byKey.set(normalizedKey, list);
    }
    const timer: HeapTimer<N> = { timestamp, key, normalizedKey, namespace, nsKey, seq: this.seq++, index: this.heap.length };
    list.push(timer);
    this.heap.push(timer);
    this.siftUp(timer.index);
    return true;
  }

  /** Removes the timer (timestamp, key, namespace) if present. Returns true when removed. */
  remove(timestamp: number, normalizedKey: NormalizedKey, nsKey: string | number): boolean {
    const list = this.byKey.get(normalizedKey);
    if (list === undefined) return false;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      if (t.timestamp === timestamp && t.nsKey === nsKey) {
        this.removeAt(t.index);
        this.unindex(t, list, i);
        return true;
      }
    }
    return false;
  }

  /** Removes and returns the earliest timer. */
  poll(): HeapTimer<N> | undefined {
    const top = this.heap[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    const list = this.byKey.get(top.normalizedKey)!;
    this.unindex(top, list, list.indexOf(top));
    return top;
  }

  /** All timers, in no particular order. */
  values(): readonly HeapTimer<N>[] {
    return this.heap;
  }

  clear(): void {
    this.heap.length = 0;
    this.byKey.clear();
  }

  private unindex(timer: HeapTimer<N>, list: HeapTimer<N>[], at: number): void {
    const last = list.pop()!;
    if (at < list.length) list[at] = last;
    if (list.length === 0) this.byKey.delete(timer.normalizedKey);
  }

  private removeAt(index: number): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (index < heap.length) {
      heap[index] = last;
      last.index = index;
      this.siftDown(index);
      this.siftUp(last.index);
    }
  }

  private less(a: HeapTimer<N>, b: HeapTimer<N>): boolean {
    return a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.seq < b.seq);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const timer = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (!this.less(timer, parent)) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = timer;
    timer.index = index;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const n = heap.length;
    const timer = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.less(heap[right]!, heap[left]!) ? right : left;
      const c = heap[child]!;
      if (!this.less(c, timer)) break;
      heap[index] = c;
      c.index = index;
      index = child;
    }
    heap[index] = timer;
    timer.index = index;
  }
}
