// AsyncRetryStrategy: when and after how long async I/O calls again for a record (Flink's AsyncRetryStrategies).
import { ConfigurationError } from './errors.ts';

/**
 * Decides whether a failed or unsatisfying async call is retried. `attempt` counts the calls made so far (1 after
 * the first). Retries stop at the operator's timeout, which covers all attempts of a record, as in Flink.
 */
export interface AsyncRetryStrategy<OUT> {
  /** Calls made per record at most, the first included. */
  readonly maxAttempts: number;
  /** The delay before the next call after `attempt` calls. */
  backoffMs(attempt: number): number;
  /** Whether a result asks for another call (e.g. an empty lookup); default never. */
  ifResult?(result: OUT): boolean;
  /** Whether an error asks for another call; default every error (otherwise the job fails). */
  ifException?(error: unknown): boolean;
}

/** Predicates of a retry strategy; without `ifException`, every error is retried. */
export interface RetryPredicates<OUT> {
  ifResult?: (result: OUT) => boolean;
  ifException?: (error: unknown) => boolean;
}

function checkAttempts(maxAttempts: number): void {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new ConfigurationError(`Async retry: maxAttempts must be an integer >= 1, got ${maxAttempts}`);
}

function checkDelay(name: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value))
    throw new ConfigurationError(`Async retry: ${name} must be >= 0 ms, got ${value}`);
}

/**
 * Flink's AsyncRetryStrategies for `AsyncDataStream.orderedWaitWithRetry` / `unorderedWaitWithRetry`.
 *
 * @example
 * AsyncDataStream.unorderedWaitWithRetry(
 *   orders, lookup, 5_000, 100,
 *   AsyncRetryStrategies.fixedDelay(3, 200, { ifResult: (r) => r === undefined }),
 * );
 */
export const AsyncRetryStrategies = {
  /** Up to `maxAttempts` calls, `delayMs` apart. */
  fixedDelay<OUT>(
    maxAttempts: number,
    delayMs: number,
    predicates: RetryPredicates<OUT> = {},
  ): AsyncRetryStrategy<OUT> {
    checkAttempts(maxAttempts);
    checkDelay('delayMs', delayMs);
    return { maxAttempts, backoffMs: () => delayMs, ...predicates };
  },
  /** Up to `maxAttempts` calls; the delay starts at `initialDelayMs` and grows by `multiplier` up to `maxDelayMs`. */
  exponentialBackoff<OUT>(
    maxAttempts: number,
    initialDelayMs: number,
    maxDelayMs: number,
    multiplier: number,
    predicates: RetryPredicates<OUT> = {},
  ): AsyncRetryStrategy<OUT> {
    checkAttempts(maxAttempts);
    checkDelay('initialDelayMs', initialDelayMs);
    checkDelay('maxDelayMs', maxDelayMs);
    if (!(multiplier >= 1) || !Number.isFinite(multiplier))
      throw new ConfigurationError(`Async retry: multiplier must be >= 1, got ${multiplier}`);
    return {
      maxAttempts,
      backoffMs: (attempt) => Math.min(initialDelayMs * multiplier ** (attempt - 1), maxDelayMs),
      ...predicates,
    };
  },
};
