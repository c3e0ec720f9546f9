// TimestampedCollector: the Collector user functions emit through, stamping each record with the current timestamp.
import type { Collector } from '../core/functions.ts';
import type { Output } from './output.ts';
import { NO_TIMESTAMP } from '../core/time-domain.ts';

/**
 * One instance per operator, reused for every record: the operator sets `timestamp` before calling the user
 * function, so emitting allocates nothing. Records emitted from a processing-time timer carry no timestamp,
 * as in Flink.
 */
export class TimestampedCollector<T> implements Collector<T> {
  timestamp = NO_TIMESTAMP;
  constructor(private readonly output: Output<T>) {}

  collect(value: T): void {
    this.output.collect(value, this.timestamp);
  }

  eraseTimestamp(): void {
    this.timestamp = NO_TIMESTAMP;
  }
}
