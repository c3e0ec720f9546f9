// Watermark generators: per-event and periodic watermark logic, as Flink's WatermarkGenerator.
import { ConfigurationError } from '../core/errors.ts';
import { MIN_WATERMARK } from '../core/time-domain.ts';

/** Where a generator emits. Only increasing watermarks pass; emitting a lower one is ignored, as in Flink. */
export interface WatermarkOutput {
  emitWatermark(watermark: number): void;
  /** Marks this input idle: it holds back no downstream watermark until it emits again. */
  markIdle(): void;
  markActive(): void;
}

/**
 * Generates watermarks from events (`onEvent`, called right after the event was forwarded: a punctuated
 * generator) and/or periodically (`onPeriodicEmit`: by default every 100 records and at the end of input, see
 * docs/event-time.md).
 */
export interface WatermarkGenerator<T> {
  onEvent(event: T, eventTimestamp: number, output: WatermarkOutput): void;
  onPeriodicEmit(output: WatermarkOutput): void;
}

/**
 * Flink's BoundedOutOfOrdernessWatermarks: the watermark trails the largest timestamp seen by the bound, minus 1
 * ms, so an event with the bound's lateness is still on time. Emitted periodically.
 */
export class BoundedOutOfOrdernessWatermarks<T> implements WatermarkGenerator<T> {
  private maxTimestamp: number;

  constructor(private readonly outOfOrdernessMs: number) {
    if (!(outOfOrdernessMs >= 0) || !Number.isFinite(outOfOrdernessMs)) {
      throw new ConfigurationError(
        `The maximum out-of-orderness must be a finite number >= 0, got ${outOfOrdernessMs}`,
      );
    }
    this.maxTimestamp = MIN_WATERMARK;
  }

  onEvent(_event: T, eventTimestamp: number): void {
    // Stryker disable next-line EqualityOperator: assigning an equal maximum changes nothing
    if (eventTimestamp > this.maxTimestamp) this.maxTimestamp = eventTimestamp;
  }

  onPeriodicEmit(output: WatermarkOutput): void {
    output.emitWatermark(this.maxTimestamp - this.outOfOrdernessMs - 1);
  }
}

/**
 * A punctuated generator from one function: after each event, the watermark `watermarkFor` returns for it (none
 * for `undefined`). Nothing happens on periodic emits.
 */
export class PunctuatedWatermarks<T> implements WatermarkGenerator<T> {
  constructor(private readonly watermarkFor: (event: T, timestamp: number) => number | undefined) {}

  onEvent(event: T, eventTimestamp: number, output: WatermarkOutput): void {
    const watermark = this.watermarkFor(event, eventTimestamp);
    if (watermark === undefined) return;
    if (typeof watermark !== 'number' || Number.isNaN(watermark)) {
      throw new TypeError(
        `The punctuated watermark function returned ${String(watermark)}, not a number of milliseconds or undefined`,
      );
    }
    output.emitWatermark(watermark);
  }

  onPeriodicEmit(): void {}
}

/** Emits no watermark: event time never advances (except at the end of a bounded input). */
export class NoWatermarksGenerator<T> implements WatermarkGenerator<T> {
  onEvent(): void {}
  onPeriodicEmit(): void {}
}

/**
 * Flink's WatermarksWithIdleness: wraps a generator and marks the input idle when no event arrived for the
 * timeout (measured in processing time at periodic emits), active again on the next event.
 */
export class WatermarksWithIdleness<T> implements WatermarkGenerator<T> {
  private lastActivity: number;
  private idle = false;

  constructor(
    private readonly inner: WatermarkGenerator<T>,
    private readonly idleTimeoutMs: number,
    private readonly now: () => number,
  ) {
    if (!(idleTimeoutMs > 0))
      throw new ConfigurationError(`The idle timeout must be positive, got ${idleTimeoutMs}`);
    this.lastActivity = now();
  }

  onEvent(event: T, eventTimestamp: number, output: WatermarkOutput): void {
    this.lastActivity = this.now();
    if (this.idle) {
      this.idle = false;
      output.markActive();
    }
    this.inner.onEvent(event, eventTimestamp, output);
  }

  onPeriodicEmit(output: WatermarkOutput): void {
    if (!this.idle && this.now() - this.lastActivity >= this.idleTimeoutMs) {
      this.idle = true;
      output.markIdle();
      return;
    }
    if (!this.idle) this.inner.onPeriodicEmit(output);
  }
}
