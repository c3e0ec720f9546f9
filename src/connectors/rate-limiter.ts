// RateLimiter: paces a source to a number of records per second on a processing-time clock, without busy waiting.
import type { ProcessingTimeClock, ScheduledCallback } from '../core/clock.ts';

/**
 * Hands out permits at a steady rate, in batches. `reserve(n)` books `n` permits and returns the clock time at
 * which the caller may use them: the first batch goes at once, each later one when the permits before it have
 * been paid for (n / rate seconds apart). Idle time does not accumulate credit, so a stalled consumer never gets
 * a burst afterwards. Waiting is a timer on the clock, so a ManualClock makes the pacing testable without sleeps.
 *
 * @example
 * const limiter = new RateLimiter(2_000, new SystemClock());
 * await limiter.acquire(20); // resolves when 20 more records may be emitted
 */
export class RateLimiter {
  private nextFree = Number.NEGATIVE_INFINITY;
  private pending: ScheduledCallback | undefined = undefined;
  private wake: (() => void) | undefined = undefined;

  constructor(
    readonly permitsPerSecond: number,
    private readonly clock: ProcessingTimeClock,
  ) {
    if (!(permitsPerSecond > 0) || !Number.isFinite(permitsPerSecond)) {
      throw new RangeError(
        `A rate must be a positive finite number of permits per second, got ${permitsPerSecond}`,
      );
    }
  }

  /** Books `permits` and returns the time (clock ms) from which they may be used. */
  reserve(permits: number): number {
    const due = Math.max(this.nextFree, this.clock.now());
    this.nextFree = due + (permits * 1000) / this.permitsPerSecond;
    return due;
  }

  /** Books `permits`; undefined when they may be used now, else a promise resolving when they may. */
  acquire(permits: number): Promise<void> | undefined {
    const due = this.reserve(permits);
    if (due <= this.clock.now()) return undefined;
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      this.pending = this.clock.schedule(due, () => {
        this.pending = undefined;
        this.wake = undefined;
        resolve();
      });
    });
  }

  /** Cancels a pending wait and resolves it at once (used when the source closes mid-wait). */
  cancel(): void {
    this.pending?.cancel();
    this.pending = undefined;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
