// SplitWatermarks: Flink's per-split watermarking in a source: one generator per split, the minimum leaves.
import type { ProcessingTimeClock, ScheduledCallback } from '../core/clock.ts';
import { hasTimestamp } from '../core/time-domain.ts';
import type { WatermarkGenerator, WatermarkOutput } from '../time/watermark-generator.ts';
import type { TimestampAssigner, WatermarkStrategy } from '../time/watermark-strategy.ts';
import type { SplitOutput } from '../core/source.ts';
import type { Output } from './output.ts';
import type { WatermarkEmission } from '../time/watermark-emission.ts';
import type { IdlenessLog } from './idleness-log.ts';

/**
 * The watermark state of one split: its generator writes here (it is the generator's WatermarkOutput), and the
 * records of the split pass its timestamp assigner on the way to the subtask's output.
 */
class SplitState<T> implements SplitOutput<T>, WatermarkOutput {
  watermark = Number.NEGATIVE_INFINITY;
  idle = false;
  private recordsSinceEmit = 0;

  constructor(
    readonly id: string,
    private readonly owner: SplitWatermarks<T>,
    private readonly assigner: TimestampAssigner<T> | undefined,
    readonly generator: WatermarkGenerator<T>,
    private readonly everyRecords: number,
  ) {}

  /**
   * The hot path: assign, forward, then let the generator see the event (so a punctuated watermark follows its
   * record, as Flink's SourceOutputWithWatermarks), and a periodic emit every `everyRecords` records of this
   * split. Nothing allocated.
   */
  collect(value: T, timestamp?: number): void {
    const recordTimestamp = timestamp ?? Number.NaN;
    let ts = recordTimestamp;
    if (this.assigner !== undefined) {
      ts = this.assigner(value, hasTimestamp(recordTimestamp) ? recordTimestamp : undefined);
      if (typeof ts !== 'number' || Number.isNaN(ts)) {
        throw new TypeError(`The timestamp assigner returned ${String(ts)}, not a number of milliseconds`);
      }
    }
    this.owner.forward(value, ts);
    this.generator.onEvent(value, ts, this);
    if (++this.recordsSinceEmit >= this.everyRecords) {
      this.recordsSinceEmit = 0;
      this.generator.onPeriodicEmit(this);
    }
  }

  emitWatermark(watermark: number): void {
    if (this.idle) this.markActive();
    if (watermark > this.watermark) {
      this.watermark = watermark;
      this.owner.combine();
    }
  }

  markIdle(): void {
    if (this.idle) return;
    this.idle = true;
    this.owner.idleness?.split(this.id, true);
    this.owner.combine();
  }

  markActive(): void {
    if (!this.idle) return;
    this.idle = false;
    this.owner.idleness?.split(this.id, false);
    this.owner.combine();
  }
}

/**
 * Flink's WatermarkOutputMultiplexer behind `SourceOutputWithWatermarks`: each split has its own generator (so
 * a fast partition cannot push event time past a slow one's records), and the subtask emits the minimum over its
 * splits that are not idle. When every split is idle the subtask is idle; a released (finished) split no longer
 * counts. Combining costs O(splits) and runs only when a split's watermark or idleness changes.
 */
export class SplitWatermarks<T> {
  private readonly splits = new Map<string, SplitState<T>>();
  private lastWatermark = Number.NEGATIVE_INFINITY;
  private idle = false;
  private periodic: ScheduledCallback | undefined = undefined;
  private stopped = false;

  constructor(
    private readonly strategy: WatermarkStrategy<T> | undefined,
    private readonly clock: ProcessingTimeClock,
    private readonly output: Output<T>,
    private readonly emission: WatermarkEmission,
    private readonly bounded: boolean,
    /** Where transitions between idle and active are logged (splits and the subtask). */
    readonly idleness?: IdlenessLog,
  ) {}

  /** The output of split `id`, created with a fresh generator on first use. */
  outputFor(id: string): SplitOutput<T> {
    let split = this.splits.get(id);
    if (split === undefined) {
      const strategy = this.strategy;
      const generator: WatermarkGenerator<T> =
        strategy === undefined
          ? { onEvent() {}, onPeriodicEmit() {} }
          : strategy.createWatermarkGenerator({ now: () => this.clock.now() });
      const everyRecords =
        this.emission.mode === 'deterministic' ? this.emission.everyRecords : Number.POSITIVE_INFINITY;
      split = new SplitState(id, this, strategy?.timestampAssigner, generator, everyRecords);
      this.splits.set(id, split);
      // A new split has no watermark yet: it holds the subtask back until it emits one (as in Flink).
      this.combine();
    }
    return split;
  }

  release(id: string): void {
    if (this.splits.delete(id)) this.combine();
  }

  forward(value: T, timestamp: number): void {
    this.output.collect(value, timestamp);
  }

  /** Clock-driven emission, when the rule asks for it (processing-time mode, or an unbounded source). */
  startPeriodicEmission(): void {
    const interval = this.emission.intervalMs;
    if (interval <= 0 || this.strategy === undefined) return;
    if (this.emission.mode === 'deterministic' && this.bounded) return;
    const tick = (): void => {
      if (this.stopped) return;
      for (const split of this.splits.values()) split.generator.onPeriodicEmit(split);
      this.periodic = this.clock.schedule(this.clock.now() + interval, tick);
    };
    this.periodic = this.clock.schedule(this.clock.now() + interval, tick);
  }

  /** At the end of input: one last periodic emit per split (as Flink's `finish()`), then no more. */
  finish(): void {
    if (!this.stopped) for (const split of this.splits.values()) split.generator.onPeriodicEmit(split);
    this.stop();
  }

  stop(): void {
    this.stopped = true;
    this.periodic?.cancel();
  }

  /** Emits the minimum watermark over active splits when it rises; idle when all splits are idle. */
  combine(): void {
    if (this.strategy === undefined) return;
    let min = Number.POSITIVE_INFINITY;
    let active = 0;
    for (const split of this.splits.values()) {
      if (split.idle) continue;
      // Stryker disable next-line UpdateOperator: only compared with 0, which counting down reaches only with no split either
      active++;
      // Stryker disable next-line EqualityOperator: an equal watermark leaves the minimum as it was
      if (split.watermark < min) min = split.watermark;
    }
    if (active === 0) {
      // Every split idle, or none owned (more subtasks than partitions): as in Flink, the subtask is idle.
      if (!this.idle) {
        this.idle = true;
        this.idleness?.subtask(true);
        this.output.emitWatermarkStatus(true);
      }
      return;
    }
    if (this.idle) {
      this.idle = false;
      this.idleness?.subtask(false);
      this.output.emitWatermarkStatus(false);
    }
    if (min > this.lastWatermark && min !== Number.POSITIVE_INFINITY) {
      this.lastWatermark = min;
      this.output.emitWatermark(min);
    }
  }
}
