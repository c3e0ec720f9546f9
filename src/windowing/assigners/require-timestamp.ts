// The check every event-time assigner makes: an element without a timestamp cannot be placed in event time.
import { IllegalStateError } from '../../core/errors.ts';

/** Throws Flink's message when an element reaches an event-time assigner without a timestamp (NaN). */
export function requireTimestamp(timestamp: number): void {
  if (timestamp !== timestamp) {
    throw new IllegalStateError(
      'Record has no timestamp. Is the job using processing time, or did you forget to call ' +
        "'assignTimestampsAndWatermarks(...)' before an event-time window?",
    );
  }
}
