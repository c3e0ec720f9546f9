// AsyncFunction: the user contract of async I/O: one Promise per input record, resolved with its result.
import type { RichFunction } from './runtime-context.ts';

/**
 * Looks up or computes the result for one record asynchronously (an HTTP call, a database query), as Flink's
 * AsyncFunction. Either a plain function returning a Promise, or an object with `asyncInvoke` and optionally
 * `timeout`, `open` and `close`. Each input yields exactly one result; to emit none or several, resolve with an
 * array and `flatMap` it afterwards.
 *
 * @example
 * const enrich: AsyncFunction<Order, EnrichedOrder> = async (order) => ({
 *   ...order,
 *   customer: await customers.get(order.customerId),
 * });
 */
export type AsyncFunction<IN, OUT> = ((input: IN) => Promise<OUT>) | RichAsyncFunction<IN, OUT>;

/** The object form of an {@link AsyncFunction}: a life cycle, and what to emit when a call times out. */
export interface RichAsyncFunction<IN, OUT> extends RichFunction {
  asyncInvoke(input: IN): Promise<OUT>;
  /**
   * Called when the Promise for `input` did not settle within the timeout; returns the result to emit instead
   * (its late result is then ignored). Throwing fails the job. Without it, a timeout fails the job with an
   * AsyncTimeoutError naming the operator and the record.
   */
  timeout?(input: IN): OUT;
}
