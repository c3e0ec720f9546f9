// FlatTimerQueue: one timer per small integer key in a binary heap of flat arrays, deleted lazily (TimerHeap's first form).

/**
 * The timers of a process function while each key holds at most one, its keys small non-negative integers: the form
 * {@link TimerHeap.deleteLazily} starts a heap in. A timer is an entry (timestamp, registration number, key) of one
 * 4-ary min-heap laid out in three typed arrays, ordered by timestamp and then registration number (so a
 * timestamp's timers come in registration order, as the buckets of `TimerHeap` keep them); and the key's row in two
 * tables indexed by the key holds the entry's timestamp and number. Deleting a timer clears the key's row; its entry
 * stays in the heap, no timer once the row no longer holds its timestamp and number, until it comes up at the top
 * and is dropped (the limit's loop deletes the same way). So adding a timer writes to the end of the arrays and to
 * the key's row, deleting it reads and writes the row, and neither touches memory last used long before, where
 * finding a timestamp's bucket and its place there took three dependent cache misses. Four children a node, side by
 * side, halve the levels a poll sifts through against two, each level a cache miss or two in the lower part of a
 * heap of thousands of entries.
 *
 * Costs: add O(log n) (O(1) for a timestamp at or past the others', the usual case), delete O(1), poll O(log n)
 * amortised over the deleted entries it drops (n = entries, deleted ones included). Deleted entries are dropped all
 * at once when they outnumber the timers by {@link STALE_SLACK}, so a timer pushed back record after record does not
 * leave an entry per record. Memory: 20 bytes an entry, 16 bytes a key up to the largest key.
 */
export class FlatTimerQueue {
  private times = new Float64Array(64);
  private numbers = new Float64Array(64);
  private keys = new Int32Array(64);
  /** Entries in the heap, deleted ones included. */
  private length = 0;
  /** `rowTimes[k]`, `rowNumbers[k]`: key k's timer, NaN when it has none. */
  private rowTimes = new Float64Array(0);
  private rowNumbers = new Float64Array(0);
  private nextNumber = 0;
  private count = 0;

  /** How many timers are queued. */
  get size(): number {
    return this.count;
  }

  /**
   * Whether a timer of key `k` can be kept here: a small non-negative integer, whose row the tables hold or may grow
   * to (up to 65,536 keys, or eight rows a queued timer). Grows the tables when it may.
   */
  accepts(k: number): boolean {
    if ((k | 0) !== k || k < 0) return false;
    const rows = this.rowTimes.length;
    if (k < rows) return true;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: memory only: a key past the bound leaves the queue for the buckets
    if (k >= Math.max(MAX_ROWS_ALWAYS, 8 * this.count)) return false;
    let length = Math.max(64, rows);
    while (length <= k) length *= 2;
    this.rowTimes = grown(this.rowTimes, length);
    this.rowNumbers = grown(this.rowNumbers, length);
    return true;
  }

  /** The timestamp of key `k`'s timer, NaN when it has none (`k` accepted). */
  timeOf(k: number): number {
    return this.rowTimes[k]!;
  }

  /** Adds a timer of key `k`, which has none (`k` accepted). */
  add(timestamp: number, k: number): void {
    const number = this.nextNumber++;
    this.rowTimes[k] = timestamp;
    this.rowNumbers[k] = number;
    this.count++;
    let i = this.length;
    if (i === this.times.length) {
      this.times = grown(this.times, 2 * i);
      this.numbers = grown(this.numbers, 2 * i);
      const keys = new Int32Array(2 * i);
      keys.set(this.keys);
      this.keys = keys;
    }
    this.length = i + 1;
    const times = this.times;
    const numbers = this.numbers;
    const keys = this.keys;
    // Numbers only grow, so a parent of the same timestamp is never later.
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const parentTime = times[parent]!;
      if (parentTime <= timestamp) break;
      times[i] = parentTime;
      numbers[i] = numbers[parent]!;
      keys[i] = keys[parent]!;
      i = parent;
    }
    times[i] = timestamp;
    numbers[i] = number;
    keys[i] = k;
  }

  /** Deletes key `k`'s timer at `timestamp`, if it has one there; its entry stays until polled past. */
  remove(timestamp: number, k: number): boolean {
    const rows = this.rowTimes;
    if (!(k < rows.length) || rows[k] !== timestamp) return false;
    rows[k] = Number.NaN;
    this.count--;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: memory only: the compaction drops what the polls would
    if (this.length > 2 * this.count + STALE_SLACK) this.compact();
    return true;
  }

  /** The earliest timer's timestamp, or undefined when there is none (deleted entries at the top dropped). */
  peekTimestamp(): number | undefined {
    return this.liveTop() ? this.times[0] : undefined;
  }

  /** The earliest timer's key; call only when {@link peekTimestamp} gave a timestamp. */
  peekKey(): number {
    return this.keys[0]!;
  }

  /** Removes the earliest timer and returns its key; call only when {@link peekTimestamp} gave a timestamp. */
  poll(): number {
    const k = this.keys[0]!;
    this.rowTimes[k] = Number.NaN;
    this.count--;
    this.pop();
    return k;
  }

  /** Every timer as timestamp, key, timestamp, key, ... in firing order. */
  values(): number[] {
    const live = this.liveEntries();
    const out: number[] = [];
    for (const i of live) out.push(this.times[i]!, this.keys[i]!);
    return out;
  }

  clear(): void {
    this.length = 0;
    this.count = 0;
    this.rowTimes.fill(Number.NaN);
  }

  /** Whether the top entry is a timer, once the deleted entries above it are dropped. */
  private liveTop(): boolean {
    const times = this.times;
    const numbers = this.numbers;
    const keys = this.keys;
    while (this.length > 0) {
      const k = keys[0]!;
      if (this.rowTimes[k] === times[0] && this.rowNumbers[k] === numbers[0]) return true;
      this.pop();
    }
    return false;
  }

  /** Removes the top entry. */
  private pop(): void {
    const n = --this.length;
    if (n === 0) return;
    const times = this.times;
    const numbers = this.numbers;
    const keys = this.keys;
    const time = times[n]!;
    const number = numbers[n]!;
    const key = keys[n]!;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      // The earliest of up to four children, which lie side by side (one or two cache lines of each array).
      let child = first;
      let childTime = times[first]!;
      const end = Math.min(first + 4, n);
      for (let c = first + 1; c < end; c++) {
        const t = times[c]!;
        if (t < childTime || (t === childTime && numbers[c]! < numbers[child]!)) {
          child = c;
          childTime = t;
        }
      }
      if (time < childTime || (time === childTime && number < numbers[child]!)) break;
      times[i] = childTime;
      numbers[i] = numbers[child]!;
      keys[i] = keys[child]!;
      i = child;
    }
    times[i] = time;
    numbers[i] = number;
    keys[i] = key;
  }

  /** The indices of the timers' entries, in firing order. */
  private liveEntries(): number[] {
    const times = this.times;
    const numbers = this.numbers;
    const keys = this.keys;
    const live: number[] = [];
    for (let i = 0; i < this.length; i++) {
      const k = keys[i]!;
      if (this.rowTimes[k] === times[i] && this.rowNumbers[k] === numbers[i]) live.push(i);
    }
    return live.sort((a, b) => times[a]! - times[b]! || numbers[a]! - numbers[b]!);
  }

  /** Keeps only the timers' entries: sorted, which is a heap. */
  private compact(): void {
    const live = this.liveEntries();
    const times = new Float64Array(Math.max(64, 2 * live.length));
    const numbers = new Float64Array(times.length);
    const keys = new Int32Array(times.length);
    live.forEach((from, to) => {
      times[to] = this.times[from]!;
      numbers[to] = this.numbers[from]!;
      keys[to] = this.keys[from]!;
    });
    this.times = times;
    this.numbers = numbers;
    this.keys = keys;
    this.length = live.length;
  }
}

/** Keys below this always get a row; larger ones while the rows stay within eight a queued timer. */
const MAX_ROWS_ALWAYS = 65_536;

/** How many deleted entries beyond the number of timers the queue keeps before it drops them all. */
const STALE_SLACK = 4096;

/** `array` copied into a new array of `length` (at least its own), the new slots NaN. */
function grown(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(length).fill(Number.NaN);
  next.set(array);
  return next;
}
