// Time constants and the two time domains timers can live in.

/** The domain a timer was registered in, as Flink's `TimeDomain`. */
export type TimeDomain = 'EVENT_TIME' | 'PROCESSING_TIME';

/** The watermark before any input (Flink's `Long.MIN_VALUE`). */
export const MIN_WATERMARK = Number.NEGATIVE_INFINITY;

/** The final watermark a bounded input emits at its end (Flink's `Long.MAX_VALUE`): every event-time timer fires. */
export const MAX_WATERMARK = Number.POSITIVE_INFINITY;

/** The timestamp of a record that has none (Flink's `StreamRecord#hasTimestamp() == false`). */
export const NO_TIMESTAMP = Number.NaN;

/** Whether a record timestamp is present. */
export function hasTimestamp(timestamp: number): boolean {
  return timestamp === timestamp; // NaN is the only value not equal to itself
}
