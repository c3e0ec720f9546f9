// FlatTimerQueue: one timer per small integer key in a binary heap of flat arrays, deleted lazily (TimerHeap's first form).

/**
 * The timers of a process function while each key holds at most one, its keys small non-negative integers: the form
 * {@link TimerHeap.deleteLazily} starts a heap in. A timer is an entry (timestamp, registration number, key) of one
 * 4-ary min-heap laid out in three typed arrays, ordered by timestamp and then registration number (so a
 * timestamp's timers come in registration order, as the buckets of `TimerHeap` keep them); a table indexed by the key
 * holds the key's timer's timestamp, and another where its entry is. Deleting a timer clears the key's timestamp; its
 * entry stays in the heap, no timer any more, until the key's next timer takes it (it moves to the new timer's place,
 * most often a leaf, where it stays) or it comes up at the top and is dropped. So adding a timer writes to the end of
 * the arrays or to the key's old entry, deleting it writes the key's row, and neither touches memory last used long
 * before, where finding a timestamp's bucket and its place there took three dependent cache misses; and a deleted
 * timer whose key registers again (a batch that closes early, then the next one) is never sifted from the top. Four
 * children a node, side by side, halve the levels a poll sifts through against two.
 *
 * Costs: add O(log n) (O(1) for a timestamp at or past the others', the usual case), delete O(1), poll O(log n)
 * amortised over the deleted entries it drops; n = entries, at most one a key, so a timer pushed back record after
 * record leaves no trail. Memory: 20 bytes an entry, 12 bytes a key up to the largest key.
 */
export class FlatTimerQueue {
  private times = new Float64Array(64);
  private numbers = new Float64Array(64);
  private keys = new Int32Array(64);
  /** Entries in the heap, deleted ones included: at most one a key. */
  private length = 0;
  /** `rowTimes[k]`: key k's timer's timestamp, NaN when it has none (then its entry, if any, is a deleted one). */
  private rowTimes = new Float64Array(0);
  /** `positions[k]`: where key k's entry is in the heap, -1 when it has none. */
  private positions = new Int32Array(0);
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
    const rowTimes = new Float64Array(length).fill(Number.NaN);
    rowTimes.set(this.rowTimes);
    this.rowTimes = rowTimes;
    const positions = new Int32Array(length).fill(-1);
    positions.set(this.positions);
    this.positions = positions;
    return true;
  }

  /** The timestamp of key `k`'s timer, NaN when it has none (`k` accepted). */
  timeOf(k: number): number {
    return this.rowTimes[k]!;
  }

  /**
   * Adds a timer of key `k`, which has none (`k` accepted). A deleted entry of the key still in the heap takes the
   * new timer and moves to its place (a leaf, most often, where it stays): a key's deleted timer is not sifted
   * through the heap's levels when it reaches the top, and the heap holds one entry a key at most.
   */
  add(timestamp: number, k: number): void {
    const number = this.nextNumber++;
    this.rowTimes[k] = timestamp;
    this.count++;
    const at = this.positions[k]!;
    if (at >= 0) {
      const before = this.times[at]!;
      this.times[at] = timestamp;
      this.numbers[at] = number;
      // A later number: at an equal timestamp the entry belongs below its old place.
      if (timestamp < before) this.siftUp(at);
      else this.siftDown(at);
      return;
    }
    const i = this.length;
    if (i === this.times.length) {
      this.times = grown(this.times, 2 * i);
      this.numbers = grown(this.numbers, 2 * i);
      const keys = new Int32Array(2 * i);
      keys.set(this.keys);
      this.keys = keys;
    }
    this.length = i + 1;
    this.times[i] = timestamp;
    this.numbers[i] = number;
    this.keys[i] = k;
    this.siftUp(i);
  }

  /** Deletes key `k`'s timer at `timestamp`, if it has one there; its entry stays until taken again or polled past. */
  remove(timestamp: number, k: number): boolean {
    const rows = this.rowTimes;
    if (!(k < rows.length) || rows[k] !== timestamp) return false;
    rows[k] = Number.NaN;
    this.count--;
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
    const times = this.times;
    const numbers = this.numbers;
    const keys = this.keys;
    const live: number[] = [];
    for (let i = 0; i < this.length; i++) if (this.rowTimes[keys[i]!] === times[i]) live.push(i);
    live.sort((a, b) => times[a]! - times[b]! || numbers[a]! - numbers[b]!);
    const out: number[] = [];
    for (const i of live) out.push(times[i]!, keys[i]!);
    return out;
  }

  clear(): void {
    this.length = 0;
    this.count = 0;
    this.rowTimes.fill(Number.NaN);
    this.positions.fill(-1);
  }

  /** Whether the top entry is a timer, once the deleted entries above it are dropped. */
  private liveTop(): boolean {
    while (this.length > 0) {
      if (this.rowTimes[this.keys[0]!] === this.times[0]) return true;
      this.pop();
    }
    return false;
  }

  /** Removes the top entry. */
  private pop(): void {
    this.positions[this.keys[0]!] = -1;
    const n = --this.length;
    if (n === 0) return;
    this.times[0] = this.times[n]!;
    this.numbers[0] = this.numbers[n]!;
    this.keys[0] = this.keys[n]!;
    this.siftDown(0);
  }

  /** Moves the entry at `i` up to its place, keeping `positions`. */
  private siftUp(i: number): void {
    const times = this.times;
    const numbers = this.numbers;
    const keys = this.keys;
    const positions = this.positions;
    const time = times[i]!;
    const number = numbers[i]!;
    const key = keys[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const parentTime = times[parent]!;
      if (parentTime < time || (parentTime === time && numbers[parent]! < number)) break;
      const parentKey = keys[parent]!;
      times[i] = parentTime;
      numbers[i] = numbers[parent]!;
      keys[i] = parentKey;
      positions[parentKey] = i;
      i = parent;
    }
    times[i] = time;
    numbers[i] = number;
    keys[i] = key;
    positions[key] = i;
  }

  /** Moves the entry at `i` down to its place, keeping `positions`. */
  private siftDown(i: number): void {
    const times = this.times;
    const numbers = this.numbers;
    const keys = this.keys;
    const positions = this.positions;
    const n = this.length;
    const time = times[i]!;
    const number = numbers[i]!;
    const key = keys[i]!;
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
      const childKey = keys[child]!;
      times[i] = childTime;
      numbers[i] = numbers[child]!;
      keys[i] = childKey;
      positions[childKey] = i;
      i = child;
    }
    times[i] = time;
    numbers[i] = number;
    keys[i] = key;
    positions[key] = i;
  }
}

/** Keys below this always get a row; larger ones while the rows stay within eight a queued timer. */
const MAX_ROWS_ALWAYS = 65_536;

/** `array` copied into a new array of `length` (at least its own), the new slots NaN. */
function grown(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(length).fill(Number.NaN);
  next.set(array);
  return next;
}
