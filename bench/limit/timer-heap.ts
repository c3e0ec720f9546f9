// A binary min-heap of (time, item) pairs: the event-time timer queue of the hand-written limit loops.
// Deletion is lazy (the owner checks on pop whether the entry is still current), which is the cheapest
// honest equivalent of Flink's InternalTimerService for a single-threaded loop. push/pop are O(log n).

export class TimerHeap<T> {
  private readonly times: number[] = [];
  private readonly items: T[] = [];

  get size(): number {
    return this.times.length;
  }

  /** The smallest time, or +Infinity when empty. */
  peekTime(): number {
    return this.times.length === 0 ? Infinity : (this.times[0] as number);
  }

  push(time: number, item: T): void {
    const times = this.times;
    const items = this.items;
    let i = times.length;
    times.push(time);
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentTime = times[parent] as number;
      if (parentTime <= time) break;
      times[i] = parentTime;
      items[i] = items[parent] as T;
      i = parent;
    }
    times[i] = time;
    items[i] = item;
  }

  /** Removes and returns the item with the smallest time; call only when size > 0. */
  pop(): T {
    const times = this.times;
    const items = this.items;
    const top = items[0] as T;
    const lastTime = times.pop() as number;
    const lastItem = items.pop() as T;
    const n = times.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && (times[child + 1] as number) < (times[child] as number)) child++;
        if ((times[child] as number) >= lastTime) break;
        times[i] = times[child] as number;
        items[i] = items[child] as T;
        i = child;
      }
      times[i] = lastTime;
      items[i] = lastItem;
    }
    return top;
  }
}
