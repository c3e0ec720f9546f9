// TimestampsAndWatermarksOperator: `stream.assignTimestampsAndWatermarks(strategy)` as an operator.
import type { WatermarkStrategy } from '../time/watermark-strategy.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';
import type { WatermarkEmission } from '../time/watermark-emission.ts';
import { TimestampsAndWatermarks } from './timestamps-and-watermarks.ts';

/**
 * Replaces upstream timestamps and watermarks with the strategy's. As in Flink, upstream watermarks are dropped
 * except the final one (end of a bounded input), which passes so every event-time timer downstream fires. Each
 * record is forwarded before the generator sees it, so a punctuated watermark follows its record.
 */
export class TimestampsAndWatermarksOperator<T>
  extends AbstractStreamOperator<T>
  implements OneInputStreamOperator<T, T>
{
  private assigner!: TimestampsAndWatermarks<T>;

  /** `bounded`: whether every source upstream is bounded (the clock then plays no part in deterministic mode). */
  constructor(
    private readonly strategy: WatermarkStrategy<T>,
    private readonly emission: WatermarkEmission,
    private readonly bounded: boolean,
  ) {
    super();
  }

  override open(): void {
    this.assigner = new TimestampsAndWatermarks(
      this.strategy,
      this.context,
      this.output,
      this.emission,
      this.bounded,
    );
    this.assigner.startPeriodicEmission();
  }

  processElement(value: T, timestamp: number): void {
    const assigned = this.assigner.assignTimestamp(value, timestamp);
    this.output.collect(value, assigned);
    this.assigner.onEvent(value, assigned);
  }

  override processWatermark(watermark: number): void {
    if (watermark === MAX_WATERMARK) {
      this.assigner.finish();
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
