// TimestampsAndWatermarks: applies a WatermarkStrategy to records: assigns timestamps, generates watermarks.
import type { ScheduledCallback } from '../core/clock.ts';
import { hasTimestamp } from '../core/time-domain.ts';
import type { WatermarkGenerator, WatermarkOutput } from '../time/watermark-generator.ts';
import type { TimestampAssigner, WatermarkStrategy } from '../time/watermark-strategy.ts';
import type { Output } from './output.ts';
import type { OperatorContext } from './stream-operator.ts';
import type { WatermarkEmission } from '../time/watermark-emission.ts';
import { IdlenessLog } from './idleness-log.ts';

export { DEFAULT_AUTO_WATERMARK_INTERVAL } from '../time/watermark-emission.ts';

/** A source's event-time position: the last watermark it emitted and whether it is idle. */
export interface SourceWatermarkState {
  /** -Infinity before the first watermark. */
  readonly watermark: number;
  readonly idle: boolean;
}

/**
 * Shared by sources (`fromSource(source, strategy)`) and `assignTimestampsAndWatermarks`. Watermarks leave only
 * when they increase. The caller forwards each record between `assignTimestamp` and `onEvent`, so a watermark
 * the generator emits for a record follows that record, as in Flink (otherwise the record that carries a
 * punctuated watermark would arrive behind it and count as late).
 *
 * Periodic emission follows the {@link WatermarkEmission} rule: in deterministic mode after every
 * `everyRecords`-th record (counted here, so the reader's batch sizes do not matter), and on the clock only for
 * unbounded inputs; in processing-time mode on the clock only. The clock is the runtime's, so under a manual
 * clock a clock-driven emission happens exactly when the test advances processing time.
 */
export class TimestampsAndWatermarks<T> implements WatermarkOutput {
  private readonly assigner: TimestampAssigner<T> | undefined;
  private readonly generator: WatermarkGenerator<T>;
  private readonly everyRecords: number;
  private recordsSinceEmit = 0;
  private lastWatermark = Number.NEGATIVE_INFINITY;
  private idle = false;
  private periodic: ScheduledCallback | undefined = undefined;
  private stopped = false;
  private readonly idleness: IdlenessLog;

  constructor(
    strategy: WatermarkStrategy<T>,
    private readonly context: OperatorContext,
    private readonly output: Output<T>,
    private readonly emission: WatermarkEmission,
    private readonly bounded: boolean,
  ) {
    this.assigner = strategy.timestampAssigner;
    this.generator = strategy.createWatermarkGenerator({ now: () => context.clock.now() });
    this.everyRecords = emission.mode === 'deterministic' ? emission.everyRecords : Number.POSITIVE_INFINITY;
    this.idleness = new IdlenessLog(context.logger, context.operatorName, context.subtaskIndex);
  }

  /** The timestamp of a record: the assigner's, or the one it carries. */
  assignTimestamp(value: T, recordTimestamp: number): number {
    if (this.assigner === undefined) return recordTimestamp;
    const timestamp = this.assigner(value, hasTimestamp(recordTimestamp) ? recordTimestamp : undefined);
    if (typeof timestamp !== 'number' || Number.isNaN(timestamp)) {
      throw new TypeError(
        `The timestamp assigner returned ${String(timestamp)}, not a number of milliseconds`,
      );
    }
    return timestamp;
  }

  /** Lets the generator see a record that has been forwarded; runs a periodic emit at the record-count boundary. */
  onEvent(value: T, timestamp: number): void {
    this.generator.onEvent(value, timestamp, this);
    if (++this.recordsSinceEmit >= this.everyRecords) {
      this.recordsSinceEmit = 0;
      this.generator.onPeriodicEmit(this);
    }
  }

  /** Schedules clock-driven emission when the rule asks for it (processing-time mode, or an unbounded input). */
  startPeriodicEmission(): void {
    if (this.emission.intervalMs <= 0) return;
    if (this.emission.mode === 'deterministic' && this.bounded) return;
    const interval = this.emission.intervalMs;
    const tick = (): void => {
      if (this.stopped) return;
      this.generator.onPeriodicEmit(this);
      this.periodic = this.context.clock.schedule(this.context.clock.now() + interval, tick);
    };
    this.periodic = this.context.clock.schedule(this.context.clock.now() + interval, tick);
  }

  /** At the end of the input: one last periodic emit, as Flink's `finish()`, then no more. */
  finish(): void {
    if (!this.stopped) this.generator.onPeriodicEmit(this);
    this.stop();
  }

  /** Stops clock-driven emission. */
  stop(): void {
    this.stopped = true;
    this.periodic?.cancel();
  }

  /**
   * Only a watermark above the last one leaves, and only such a watermark makes an idle input active again (as
   * Flink's WatermarkToDataOutput): a generator restated after a move, whose first periodic emit knows less than
   * the restored watermark, leaves the input idle.
   */
  emitWatermark(watermark: number): void {
    if (watermark <= this.lastWatermark) return;
    this.lastWatermark = watermark;
    if (this.idle) this.markActive();
    this.output.emitWatermark(watermark);
  }

  /**
   * One periodic emit now (not counted as one of the record-count rule's): a cluster task runs it before each
   * commit, so the watermark of everything read before the commit is in the transaction with the input offsets.
   */
  emitPeriodicNow(): void {
    if (!this.stopped) this.generator.onPeriodicEmit(this);
  }

  /** The last watermark emitted and whether the input is idle: what a cluster task commits with its offsets. */
  state(): SourceWatermarkState {
    return { watermark: this.lastWatermark, idle: this.idle };
  }

  /**
   * Resumes where a previous owner of the input left off (before the first record): its watermark and idleness
   * are restated downstream, and no lower watermark leaves from here on. The generator itself (user code) starts
   * fresh; it learns the input again from the records read after the restored position.
   */
  restore(state: SourceWatermarkState): void {
    if (state.watermark > this.lastWatermark) {
      this.lastWatermark = state.watermark;
      this.output.emitWatermark(state.watermark);
    }
    if (state.idle) this.markIdle();
  }

  markIdle(): void {
    if (this.idle) return;
    this.idle = true;
    this.idleness.subtask(true);
    this.output.emitWatermarkStatus(true);
  }

  markActive(): void {
    if (!this.idle) return;
    this.idle = false;
    this.idleness.subtask(false);
    this.output.emitWatermarkStatus(false);
  }
}
