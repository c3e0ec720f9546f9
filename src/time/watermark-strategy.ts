// WatermarkStrategy: how a stream gets event timestamps and watermarks, as Flink's WatermarkStrategy.
import { ConfigurationError } from '../core/errors.ts';
import {
  BoundedOutOfOrdernessWatermarks,
  NoWatermarksGenerator,
  WatermarksWithIdleness,
  type WatermarkGenerator,
} from './watermark-generator.ts';

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
 * @example
 * WatermarkStrategy.forBoundedOutOfOrderness<Click>(5_000).withTimestampAssigner((c) => c.ts).withIdleness(60_000)
 */
export class WatermarkStrategy<T> {
  private constructor(
    private readonly generatorFactory: (ctx: WatermarkGeneratorContext) => WatermarkGenerator<T>,
    readonly timestampAssigner: TimestampAssigner<T> | undefined,
    readonly idleTimeoutMs: number | undefined,
  ) {}

  /** Timestamps only ever increase: the watermark is the largest timestamp seen, minus 1 ms. */
  static forMonotonousTimestamps<T>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(() => new BoundedOutOfOrdernessWatermarks<T>(0), undefined, undefined);
  }

  /** Events arrive at most `maxOutOfOrdernessMs` late: the watermark trails the largest timestamp by that much. */
  static forBoundedOutOfOrderness<T>(maxOutOfOrdernessMs: number): WatermarkStrategy<T> {
    // Validated now, so a bad bound fails when the job is built, not when the first record arrives.
    new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrdernessMs);
    return new WatermarkStrategy<T>(
      () => new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrdernessMs),
      undefined,
      undefined,
    );
  }

  /** Emits no watermarks (processing-time jobs). */
  static noWatermarks<T>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>(() => new NoWatermarksGenerator<T>(), undefined, undefined);
  }

  /** A custom generator, per-event, periodic or both. */
  static forGenerator<T>(
    factory: (ctx: WatermarkGeneratorContext) => WatermarkGenerator<T>,
  ): WatermarkStrategy<T> {
    if (typeof factory !== 'function')
      throw new ConfigurationError('forGenerator needs a generator factory function');
    return new WatermarkStrategy<T>(factory, undefined, undefined);
  }

  withTimestampAssigner(assigner: TimestampAssigner<T>): WatermarkStrategy<T> {
    if (typeof assigner !== 'function')
      throw new ConfigurationError('withTimestampAssigner needs a function');
    return new WatermarkStrategy<T>(this.generatorFactory, assigner, this.idleTimeoutMs);
  }

  /** Marks the input idle after `timeoutMs` of processing time without events, so it does not hold back watermarks. */
  withIdleness(timeoutMs: number): WatermarkStrategy<T> {
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      throw new ConfigurationError(
        `The idle timeout must be a positive number of milliseconds, got ${timeoutMs}`,
      );
    }
    return new WatermarkStrategy<T>(this.generatorFactory, this.timestampAssigner, timeoutMs);
  }

  createWatermarkGenerator(ctx: WatermarkGeneratorContext): WatermarkGenerator<T> {
    const generator = this.generatorFactory(ctx);
    return this.idleTimeoutMs === undefined
      ? generator
      : new WatermarksWithIdleness(generator, this.idleTimeoutMs, () => ctx.now());
  }
}
