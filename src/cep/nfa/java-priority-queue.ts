// A binary heap that reproduces java.util.PriorityQueue exactly, so partial matches are visited in Flink's order.

/**
 * FlinkCEP keeps partial and completed matches in `java.util.PriorityQueue`s ordered by their start event, and
 * iterates them in the heap's array order. Among equal elements that order depends on the exact sift algorithm, so
 * to emit matches in the same order as Flink this class copies the JDK's algorithms: `offer` (siftUp), `poll`
 * (siftDown of the last element), iteration in array order, and `removeIf` / `removeAll` (the JDK 9+ bulkRemove:
 * compact the survivors, then heapify). Costs: offer/poll O(log n), removeIf O(n).
 *
 * The state is plain data (`items`), so a queue held in keyed state survives a structured-clone snapshot; the
 * comparator is passed to every mutating call rather than stored.
 */
export interface JavaPriorityQueue<E> {
  items: E[];
}

export type Comparator<E> = (a: E, b: E) => number;

export function newQueue<E>(): JavaPriorityQueue<E> {
  return { items: [] };
}

export function offer<E>(q: JavaPriorityQueue<E>, x: E, cmp: Comparator<E>): void {
  const es = q.items;
  let k = es.length;
  es.push(x);
  while (k > 0) {
    const parent = (k - 1) >>> 1;
    const e = es[parent]!;
    if (cmp(x, e) >= 0) break;
    es[k] = e;
    k = parent;
  }
  es[k] = x;
}

/** Adds every element of `source` in its array (iteration) order, as `AbstractQueue.addAll`. */
export function offerAll<E>(q: JavaPriorityQueue<E>, source: readonly E[], cmp: Comparator<E>): void {
  for (let i = 0; i < source.length; i++) offer(q, source[i]!, cmp);
}

export function peek<E>(q: JavaPriorityQueue<E>): E | undefined {
  return q.items[0];
}

export function poll<E>(q: JavaPriorityQueue<E>, cmp: Comparator<E>): E | undefined {
  const es = q.items;
  // Stryker disable next-line ConditionalExpression: an empty queue's first slot and pop() are undefined as well
  if (es.length === 0) return undefined;
  const result = es[0]!;
  const x = es.pop()!;
  if (es.length > 0) siftDown(es, 0, x, es.length, cmp);
  return result;
}

/** Removes every element the predicate accepts; true if any was removed (JDK `PriorityQueue.bulkRemove`). */
export function removeIf<E>(q: JavaPriorityQueue<E>, filter: (e: E) => boolean, cmp: Comparator<E>): boolean {
  const es = q.items;
  const end = es.length;
  let i = 0;
  while (i < end && !filter(es[i]!)) i++;
  if (i >= end) return false;
  const beg = i;
  // Stryker disable next-line ArithmeticOperator: a longer array only holds spare zeros past the slots read
  const dead = new Uint8Array(end - beg);
  dead[0] = 1;
  for (i = beg + 1; i < end; i++) if (filter(es[i]!)) dead[i - beg] = 1;
  let w = beg;
  // Stryker disable next-line EqualityOperator: one more step reads past the array's end (undefined, not 0) and copies nothing
  for (i = beg; i < end; i++) {
    if (dead[i - beg] === 0) es[w++] = es[i]!;
  }
  es.length = w;
  heapify(es, cmp);
  return true;
}

function heapify<E>(es: E[], cmp: Comparator<E>): void {
  const n = es.length;
  for (let i = (n >>> 1) - 1; i >= 0; i--) siftDown(es, i, es[i]!, n, cmp);
}

function siftDown<E>(es: E[], k: number, x: E, n: number, cmp: Comparator<E>): void {
  const half = n >>> 1;
  while (k < half) {
    let child = (k << 1) + 1;
    let c = es[child]!;
    const right = child + 1;
    if (right < n && cmp(c, es[right]!) > 0) c = es[(child = right)]!;
    if (cmp(x, c) <= 0) break;
    es[k] = c;
    k = child;
  }
  es[k] = x;
}
