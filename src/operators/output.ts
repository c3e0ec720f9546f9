// Output: how an operator emits records, side-output records and watermarks to whatever follows it.
import type { OutputTag } from '../core/output-tag.ts';

/**
 * Where an operator emits. In a chain this calls the next operator directly (synchronously, no allocation per
 * record); at the end of a chain it hands records to an exchange. Timestamps are event-time milliseconds, or
 * `NO_TIMESTAMP` (NaN).
 */
export interface Output<T> {
  collect(value: T, timestamp: number): void;
  /** Emits to a side output; only consumers of `tag` receive it. */
  collectSide<X>(tag: OutputTag<X>, value: X, timestamp: number): void;
  emitWatermark(watermark: number): void;
  /** Marks this output idle (true) or active again (false); idle outputs do not hold back downstream watermarks. */
  emitWatermarkStatus(idle: boolean): void;
}
