// TimestampsAndWatermarksOperator: `stream.assignTimestampsAndWatermarks(strategy)` as an operator.
import type { WatermarkStrategy } from '../time/watermark-strategy.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';
import { TimestampsAndWatermarks } from './timestamps-and-watermarks.ts';

/**
 * Replaces upstream timestamps and watermarks with the strategy's. As in Flink, upstream watermarks are dropped
 * except the final one (end of a bounded input), which passes so every event-time timer downstream fires.
 */
export class TimestampsAndWatermarksOperator<T>
  extends AbstractStreamOperator<T>
  implements OneInputStreamOperator<T, T>
{
  private assigner!: TimestampsAndWatermarks<T>;

  constructor(
    private readonly strategy: WatermarkStrategy<T>,
    private readonly intervalMs: number,
  ) {
    super();
  }

  override open(): void {
    this.assigner = new TimestampsAndWatermarks(this.strategy, this.context, this.output, this.intervalMs);
    this.assigner.startPeriodicEmission();
  }

  processElement(value: T, timestamp: number): void {
    const assigned = this.assigner.onRecord(value, timestamp);
    this.output.collect(value, assigned);
  }

  override processWatermark(watermark: number): void {
    if (watermark === MAX_WATERMARK) {
      this.assigner.stop();
      this.assigner.emitWatermark(MAX_WATERMARK);
    }
  }

  override processWatermarkStatus(): void {
    // Idleness is decided by this operator's own strategy, not upstream.
  }

  override close(): void {
    this.assigner?.stop();
  }
}
