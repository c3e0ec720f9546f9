// The incremental aggregation contract shared by aggregating state and window aggregations.

/**
 * Folds values into an accumulator incrementally, as Flink's `AggregateFunction`: the accumulator is the only
 * thing kept, so a window or state entry costs one accumulator however many values it has seen.
 *
 * @example
 * const average: AggregateFunction<number, { sum: number; count: number }, number> = {
 *   createAccumulator: () => ({ sum: 0, count: 0 }),
 *   add: (v, acc) => { acc.sum += v; acc.count++; return acc; },
 *   getResult: (acc) => acc.sum / acc.count,
 *   merge: (a, b) => ({ sum: a.sum + b.sum, count: a.count + b.count }),
 * };
 */
export interface AggregateFunction<IN, ACC, OUT> {
  createAccumulator(): ACC;
  /** Adds a value; may mutate and return `accumulator` (cheapest) or return a new one. */
  add(value: IN, accumulator: ACC): ACC;
  getResult(accumulator: ACC): OUT;
  /** Merges two accumulators (needed by merging windows such as sessions). */
  merge(a: ACC, b: ACC): ACC;
}

/** Combines two values of the same type into one, as Flink's `ReduceFunction`. */
export type ReduceFunction<T> = (a: T, b: T) => T;
