// First values that give an object the hidden class it will keep: so the next job's objects do not change V8's types.
//
// V8 gives a field the representation of the first value stored into it (a small integer, a double, or any value),
// and an array the elements kind of its first elements. A later value of another kind gives every object of that
// class a new hidden class. Within one job that costs a little once; across the jobs a thread runs (a kept worker's
// next job, a restart) it costs a lot: the objects that hold these keep the old class as the type of that field, and
// the code V8 optimised for the record path relies on both, so the next job's objects, made with the new class from
// the start, throw that code away at its first records, and it is compiled again on every thread the job runs on
// (docs/performance.md, "A kept worker's second job").

/**
 * The number 0 (`+0`: equal to `0` in every respect JavaScript can observe, `Object.is(DOUBLE_ZERO, 0)` included)
 * held as a double rather than a small integer: the initial value of a field that will hold fractions (milliseconds
 * from `performance.now()`, averages), which is then a double field from its first object on.
 *
 * A number read from a `Float64Array` in V8's interpreter is a double even when integral, and module code runs in the
 * interpreter: the constant stays a double wherever it is copied.
 *
 * @example
 * class Timing {
 *   // a double field from the first object on: adding 0.37 ms changes no hidden class
 *   elapsedMs = DOUBLE_ZERO;
 * }
 */
export const DOUBLE_ZERO: number = new Float64Array(1)[0]!;

/**
 * An empty array whose elements V8 holds as any values from the start, for an array that will hold objects, symbols
 * or a mix: an empty literal (`[]`) holds small integers until its first other element, so each new one changed its
 * hidden class at that element.
 *
 * @example
 * // a heap of timer buckets: the same hidden class empty and full
 * const heap = emptyTaggedArray<TimerBucket>();
 */
export function emptyTaggedArray<T>(): T[] {
  const array: unknown[] = [undefined];
  array.pop();
  return array as T[];
}
