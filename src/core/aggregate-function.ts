// The incremental aggregation contract shared by aggregating state and window aggregations.
import type { StateClass, TypeSerializer } from './type-serializer.ts';

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

/**
 * How a window aggregation keeps its accumulators across snapshots and in durable state, as the accumulator type of
 * Flink's `aggregate(function, accumulatorType, resultType)`. Plain objects, arrays and primitives need nothing; an
 * accumulator that is an instance of a class needs its class (or a serializer) to come back as that class, and a
 * checkpoint or a durable backend refuses it without one, naming the state and the class.
 *
 * @example
 * keyed.window(TumblingEventTimeWindows.of(1000)).aggregate(countSum, { accumulatorType: CountSum });
 */
export interface AggregateOptions<ACC> {
  /** The accumulator's class: it keeps its class (and methods) across snapshot and restore. */
  readonly accumulatorType?: StateClass<ACC>;
  /** Writes and reads the accumulator (instead of structured clone), for snapshots and durable backends. */
  readonly accumulatorSerializer?: TypeSerializer<ACC>;
}

/** Combines two values of the same type into one, as Flink's `ReduceFunction`. */
export type ReduceFunction<T> = (a: T, b: T) => T;
