// AsyncDataStream: applies an async function to a stream with bounded concurrency (Flink's async I/O).
import type { AsyncFunction } from '../core/async-function.ts';
import type { AsyncRetryStrategy } from '../core/async-retry-strategy.ts';
import type { DataStream } from './data-stream.ts';
import { AsyncWaitOperator, type AsyncOutputMode } from '../operators/async-wait-operator.ts';

/** Flink's default capacity of the async operator's queue. */
const DEFAULT_CAPACITY = 100;

function asyncWait<IN, OUT>(
  stream: DataStream<IN>,
  fn: AsyncFunction<IN, OUT>,
  timeoutMs: number,
  capacity: number,
  mode: AsyncOutputMode,
  retry: AsyncRetryStrategy<OUT> | undefined,
): DataStream<OUT> {
  // Validate now, when the job is built, rather than in the first subtask.
  new AsyncWaitOperator(fn, timeoutMs, capacity, mode, retry);
  return stream.transform<OUT>(
    mode === 'ordered' ? 'Async Wait (ordered)' : 'Async Wait (unordered)',
    () => new AsyncWaitOperator(fn, timeoutMs, capacity, mode, retry),
  );
}

/**
 * Enriches a stream through asynchronous calls (an HTTP service, a database client) with at most `capacity`
 * calls in flight per subtask, as Flink's AsyncDataStream. While an operator is full its upstream sources stop
 * polling (backpressure). A call that does not settle within `timeoutMs` (0: no timeout) goes to the function's
 * `timeout(input)` method, or fails the job naming the operator and the record. Elements in flight are part of
 * checkpoints and are called again after a restore.
 *
 * @example
 * const enriched = AsyncDataStream.unorderedWait(
 *   orders,
 *   async (order) => ({ ...order, customer: await db.customer(order.customerId) }),
 *   5_000, // timeout per record, ms
 *   100, // calls in flight per subtask
 * );
 */
export const AsyncDataStream = {
  /** Results leave in input order; watermarks stay in place. */
  orderedWait<IN, OUT>(
    stream: DataStream<IN>,
    fn: AsyncFunction<IN, OUT>,
    timeoutMs: number,
    capacity = DEFAULT_CAPACITY,
  ): DataStream<OUT> {
    return asyncWait(stream, fn, timeoutMs, capacity, 'ordered', undefined);
  },
  /** Results leave as soon as they complete, but never overtake a watermark (nor are overtaken by one). */
  unorderedWait<IN, OUT>(
    stream: DataStream<IN>,
    fn: AsyncFunction<IN, OUT>,
    timeoutMs: number,
    capacity = DEFAULT_CAPACITY,
  ): DataStream<OUT> {
    return asyncWait(stream, fn, timeoutMs, capacity, 'unordered', undefined);
  },
  /** `orderedWait`, calling again for a record as `retry` says (see AsyncRetryStrategies). */
  orderedWaitWithRetry<IN, OUT>(
    stream: DataStream<IN>,
    fn: AsyncFunction<IN, OUT>,
    timeoutMs: number,
    capacity: number,
    retry: AsyncRetryStrategy<OUT>,
  ): DataStream<OUT> {
    return asyncWait(stream, fn, timeoutMs, capacity, 'ordered', retry);
  },
  /** `unorderedWait`, calling again for a record as `retry` says (see AsyncRetryStrategies). */
  unorderedWaitWithRetry<IN, OUT>(
    stream: DataStream<IN>,
    fn: AsyncFunction<IN, OUT>,
    timeoutMs: number,
    capacity: number,
    retry: AsyncRetryStrategy<OUT>,
  ): DataStream<OUT> {
    return asyncWait(stream, fn, timeoutMs, capacity, 'unordered', retry);
  },
};
