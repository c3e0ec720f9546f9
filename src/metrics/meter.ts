// MeterView: events per second over a sliding time span (Flink's MeterView), and the View the sampler updates.
import type { Counter, Meter } from '../core/metric-group.ts';
import { SimpleCounter } from './counter.ts';

/** A metric the registry's sampler updates on every tick (Flink's View). */
export interface View {
  sample(nowMs: number): void;
}

/**
 * Flink's MeterView: the rate is the difference of the counter over the last `timeSpanSeconds`, taken from
 * samples the registry's sampler records on each tick. Marking an event is one counter increment; no clock is
 * read on the record path. Unlike Flink (samples every 5 s, 60 s default span), the samples follow the
 * registry's tick (1 s by default), so a dashboard sees a rate within a couple of seconds.
 */
export class MeterView implements Meter, View {
  private readonly counter: Counter;
  private readonly times: number[] = [];
  private readonly counts: number[] = [];
  private rate = 0;

  constructor(
    counterOrSpan: Counter | number = 60,
    private readonly timeSpanSeconds = typeof counterOrSpan === 'number' ? counterOrSpan : 60,
  ) {
    this.counter = typeof counterOrSpan === 'number' ? new SimpleCounter() : counterOrSpan;
  }

  markEvent(n = 1): void {
    this.counter.inc(n);
  }

  getRate(): number {
    return this.rate;
  }

  getCount(): number {
    return this.counter.getCount();
  }

  sample(nowMs: number): void {
    const count = this.counter.getCount();
    this.times.push(nowMs);
    this.counts.push(count);
    // Keep the newest sample at or before the span's start, so the rate covers the whole span once it has passed.
    while (this.times.length > 2 && nowMs - this.times[1]! >= this.timeSpanSeconds * 1000) {
      this.times.shift();
      this.counts.shift();
    }
    const elapsed = nowMs - this.times[0]!;
    this.rate = elapsed > 0 ? ((count - this.counts[0]!) * 1000) / elapsed : 0;
  }
}
