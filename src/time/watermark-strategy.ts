// WatermarkStrategy: how a stream gets event timestamps and watermarks, as Flink's WatermarkStrategy.
import { ConfigurationError } from '../core/errors.ts';
import {
  BoundedOutOfOrdernessWatermarks,
  NoWatermarksGenerator,
  PunctuatedWatermarks,
  WatermarksWithIdleness,
  type WatermarkGenerator,
} from './watermark-generator.ts';
import {
  checkWatermarkAlignment,
  DEFAULT_ALIGNMENT_UPDATE_INTERVAL_MS,
  type WatermarkAlignment,
} from './watermark-alignment.ts';

/**
 * Extracts an event's timestamp in epoch milliseconds. `recordTimestamp` is the timestamp the record already
 * carries (from its source), or undefined.
 */
export type TimestampAssigner<T> = (event: T, recordTimestamp: number | undefined) => number;

/** What a generator factory is given. */
export interface WatermarkGeneratorContext {
  /** Current processing time. */
  now(): number;
}

/**
 * Combines a timestamp assigner with a watermark generator. Immutable: every `with…` returns a new strategy.
 *
 * The element type is inferred from where the strategy is used: `forMonotonousTimestamps()`,
 * `forBoundedOutOfOrderness(ms)`, `forPunctuated(fn)` and `noWatermarks()` take it from the stream or source
 * they are given to, and so does `withTimestampAssigner` when it is the last call of the chain (put
 * `withIdleness` before it).
 *
 * @example
 * env.fromSource(clicks, WatermarkStrategy.forBoundedOutOfOrderness(5_000).withIdleness(60_000).withTimestampAssigner((c) => c.ts));
 */
export class WatermarkStrategy<T> {
  private constructor(
    private readonly generatorFactory: (ctx: WatermarkGeneratorContext) => WatermarkGenerator<T>,
    readonly timestampAssigner: TimestampAssigner<T> | undefined,
    readonly idleTimeoutMs: number | undefined,
    /** Set by {@link withWatermarkAlignment}: the source subtasks' alignment group, drift and update interval. */
    readonly alignment: WatermarkAlignment | undefined = undefined,
  ) {}

  /** Timestamps only ever increase: the watermark is the largest timestamp seen, minus 1 ms. Periodic. */
  static forMonotonousTimestamps<T = unknown>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(() => new BoundedOutOfOrdernessWatermarks<T>(0), undefined, undefined);
  }

  /**
   * Events arrive at most `maxOutOfOrdernessMs` late: the watermark trails the largest timestamp by that much.
   * Periodic.
   */
  static forBoundedOutOfOrderness<T = unknown>(maxOutOfOrdernessMs: number): WatermarkStrategy<T> {
    // Validated now, so a bad bound fails when the job is built, not when the first record arrives.
    new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrdernessMs);
    return new WatermarkStrategy<T>(
      () => new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrdernessMs),
      undefined,
      undefined,
    );
  }

  /**
   * A punctuated watermark: `watermarkFor(event, timestamp)` returns the watermark an event carries, or
   * `undefined` for none. The watermark leaves right after its event (Flink's punctuated generators, written as
   * one function). Lower watermarks than the last one are ignored. The function is shared by every subtask:
   * keep it a function of the event (for state, such as the largest timestamp seen, use `forGenerator`).
   *
   * The timestamp assigner may be given as the second argument: both functions are then typed by the stream
   * the strategy is given to (a receiver of `.withTimestampAssigner` gets no type from there).
   *
   * @example
   * // Every click carries the watermark "nothing more than 5 s older than me will come"
   * clicks.assignTimestampsAndWatermarks(WatermarkStrategy.forPunctuated((c, ts) => ts - 5_000, (c) => c.ts));
   */
  static forPunctuated<T = unknown>(
    watermarkFor: (event: T, timestamp: number) => number | undefined,
    timestampAssigner?: TimestampAssigner<T>,
  ): WatermarkStrategy<T> {
    if (typeof watermarkFor !== 'function')
      throw new ConfigurationError('forPunctuated needs a function (event, timestamp) => watermark');
    if (timestampAssigner !== undefined && typeof timestampAssigner !== 'function')
      throw new ConfigurationError('forPunctuated: the timestamp assigner must be a function');
    return new WatermarkStrategy<T>(
      () => new PunctuatedWatermarks<T>(watermarkFor),
      timestampAssigner,
      undefined,
    );
  }

  /** Emits no watermarks (processing-time jobs). */
  static noWatermarks<T = unknown>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(() => new NoWatermarksGenerator<T>(), undefined, undefined);
  }

  /** A custom generator, per-event (punctuated), periodic or both. */
  static forGenerator<T = unknown>(
    factory: (ctx: WatermarkGeneratorContext) => WatermarkGenerator<T>,
  ): WatermarkStrategy<T> {
    if (typeof factory !== 'function')
      throw new ConfigurationError('forGenerator needs a generator factory function');
    return new WatermarkStrategy<T>(factory, undefined, undefined);
  }

  /**
   * Takes event timestamps from `assigner`. Its element type is inferred from the stream or source the strategy
   * is given to (or is this strategy's, when that is already known).
   */
  withTimestampAssigner<U extends T>(assigner: TimestampAssigner<U>): WatermarkStrategy<U> {
    if (typeof assigner !== 'function')
      throw new ConfigurationError('withTimestampAssigner needs a function');
    return new WatermarkStrategy<U>(
      this.generatorFactory as (ctx: WatermarkGeneratorContext) => WatermarkGenerator<U>,
      assigner,
      this.idleTimeoutMs,
      this.alignment,
    );
  }

  /** Marks the input idle after `timeoutMs` of processing time without events, so it does not hold back watermarks. */
  withIdleness(timeoutMs: number): WatermarkStrategy<T> {
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      throw new ConfigurationError(
        `The idle timeout must be a positive number of milliseconds, got ${timeoutMs}`,
      );
    }
    return new WatermarkStrategy<T>(this.generatorFactory, this.timestampAssigner, timeoutMs, this.alignment);
  }

  /**
   * Watermark alignment (Flink's `withWatermarkAlignment`): the subtasks of every source whose strategy names
   * `group` keep their watermarks within `maxAllowedDriftMs` of each other. A subtask whose watermark is ahead of the
   * group's lowest by more than that is not polled until the others catch up; `updateIntervalMs` (default 1,000, as
   * Flink's) is how often a paused subtask looks again. Subtasks that are idle, have ended or have no watermark yet
   * are left out of the group's lowest, so they hold nobody back. Only sources are aligned (`fromSource`):
   * `assignTimestampsAndWatermarks` refuses such a strategy, as Flink supports alignment in sources only.
   *
   * Useful where sources run apart in event time and what waits downstream for the slowest (windows, CEP's buffers,
   * joins) grows with the distance: with worker threads each thread polls its own source subtasks, and nothing else
   * keeps them together (docs/time.md, "Watermark alignment"). Results do not change: which records are late
   * depends on each subtask's own watermark, which pausing does not move.
   *
   * @example
   * env.fromSource(bids, WatermarkStrategy.forBoundedOutOfOrderness(200).withWatermarkAlignment('bids', 500, 20).withTimestampAssigner((b) => b.ts));
   */
  withWatermarkAlignment(
    group: string,
    maxAllowedDriftMs: number,
    updateIntervalMs: number = DEFAULT_ALIGNMENT_UPDATE_INTERVAL_MS,
  ): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(
      this.generatorFactory,
      this.timestampAssigner,
      this.idleTimeoutMs,
      checkWatermarkAlignment(group, maxAllowedDriftMs, updateIntervalMs),
    );
  }

  createWatermarkGenerator(ctx: WatermarkGeneratorContext): WatermarkGenerator<T> {
    const generator = this.generatorFactory(ctx);
    return this.idleTimeoutMs === undefined
      ? generator
      : new WatermarksWithIdleness(generator, this.idleTimeoutMs, () => ctx.now());
  }
}
