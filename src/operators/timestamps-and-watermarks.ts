// TimestampsAndWatermarks: applies a WatermarkStrategy to records: assigns timestamps, generates watermarks.
import type { ScheduledCallback } from '../core/clock.ts';
import { hasTimestamp } from '../core/time-domain.ts';
import type { WatermarkGenerator, WatermarkOutput } from '../time/watermark-generator.ts';
import type { TimestampAssigner, WatermarkStrategy } from '../time/watermark-strategy.ts';
import type { Output } from './output.ts';
import type { OperatorContext } from './stream-operator.ts';

/** The default interval of periodic watermark emission (Flink's `pipeline.auto-watermark-interval`). */
export const DEFAULT_AUTO_WATERMARK_INTERVAL = 200;

/**
 * Shared by sources (`fromSource(source, strategy)`) and `assignTimestampsAndWatermarks`. Watermarks leave only
 * when they increase; periodic emission is scheduled on the runtime's clock, so under a manual clock it happens
 * exactly when the test advances processing time.
 */
export class TimestampsAndWatermarks<T> implements WatermarkOutput {
  private readonly assigner: TimestampAssigner<T> | undefined;
  private readonly generator: WatermarkGenerator<T>;
  private lastWatermark = Number.NEGATIVE_INFINITY;
  private idle = false;
  private periodic: ScheduledCallback | undefined = undefined;
  private stopped = false;

  constructor(
    strategy: WatermarkStrategy<T>,
    private readonly context: OperatorContext,
    private readonly output: Output<T>,
    private readonly intervalMs: number,
  ) {
    this.assigner = strategy.timestampAssigner;
    this.generator = strategy.createWatermarkGenerator({ now: () => context.clock.now() });
  }

  /** Assigns the timestamp of a record and lets the generator see it; returns the timestamp. */
  onRecord(value: T, recordTimestamp: number): number {
    const timestamp =
      this.assigner !== undefined
        ? this.assigner(value, hasTimestamp(recordTimestamp) ? recordTimestamp : undefined)
        : recordTimestamp;
    if (this.assigner !== undefined && (typeof timestamp !== 'number' || Number.isNaN(timestamp))) {
      throw new TypeError(
        `The timestamp assigner returned ${String(timestamp)}, not a number of milliseconds`,
      );
    }
    this.generator.onEvent(value, timestamp, this);
    return timestamp;
  }

  startPeriodicEmission(): void {
    if (this.intervalMs <= 0) return;
    const tick = (): void => {
      if (this.stopped) return;
      this.generator.onPeriodicEmit(this);
      this.periodic = this.context.clock.schedule(this.context.clock.now() + this.intervalMs, tick);
    };
    this.periodic = this.context.clock.schedule(this.context.clock.now() + this.intervalMs, tick);
  }

  /** One last periodic emit (at end of input, before the final watermark), then no more. */
  stop(): void {
    this.stopped = true;
    this.periodic?.cancel();
  }

  emitWatermark(watermark: number): void {
    if (this.idle) this.markActive();
    if (watermark > this.lastWatermark) {
      this.lastWatermark = watermark;
      this.output.emitWatermark(watermark);
    }
  }

  markIdle(): void {
    if (this.idle) return;
    this.idle = true;
    this.output.emitWatermarkStatus(true);
  }

  markActive(): void {
    if (!this.idle) return;
    this.idle = false;
    this.output.emitWatermarkStatus(false);
  }
}
