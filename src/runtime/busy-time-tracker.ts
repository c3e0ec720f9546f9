// BusyTimeTracker: estimates busy, back-pressured and idle time per subtask from timed samples, at no per-record cost.
import { performance } from 'node:perf_hooks';
import type { View } from '../metrics/meter.ts';

/** A subtask's share of the clock, filled by the tracker and read by its metrics. */
export class SubtaskTime {
  /** Self time measured in sampled source batches (ms), scaled to all batches on the next tick. */
  sampledBusyMs = 0;
  /** Time spent in downstream calls (the consumer had not taken the record yet) in sampled batches (ms). */
  sampledBackPressuredMs = 0;
  /** Self time measured exactly: watermarks, processing-time timers, end of input (ms). */
  exactBusyMs = 0;
  exactBackPressuredMs = 0;
  /**
   * This subtask's sampled self time and time inside downstream calls, summed over the ticks that had samples
   * with older ticks' sums decayed by {@link SHARE_DECAY}: its shares of a source batch's time are these over the
   * tracker's decayed sampled time. Ticks without a sample reuse the shares.
   */
  decayedBusyMs = 0;
  decayedBackPressuredMs = 0;
  /** Flink's busyTimeMsPerSecond, backPressuredTimeMsPerSecond and idleTimeMsPerSecond (last tick). */
  busyTimeMsPerSecond = 0;
  backPressuredTimeMsPerSecond = 0;
  idleTimeMsPerSecond = 1000;
}

/**
 * Everything in a Weir job runs synchronously on one thread: a source's batch calls each downstream operator in
 * turn. Timing every hop would double the cost of a cheap operator, so the tracker times **batches**: every source
 * batch's wall time is summed (two clock reads per batch), and now and then a batch is a *sampled* batch in which
 * every hop measures its self time (its time minus the time of the hops it called) and the time it spent inside
 * downstream calls. Sampled batches are at least {@link SAMPLE_SPACING_MS} apart and take at most
 * {@link SAMPLED_TIME_SHARE} of the time: with slow records a single batch can outlast the spacing, and timing
 * every batch would put clock reads on every hop of every record. On each tick each subtask's share of the sampled
 * time (over the last few ticks' samples, {@link SHARE_DECAY}) is applied to the batches' total (a tick without a
 * sample reuses the last shares). Watermarks,
 * processing-time timers and end of input are timed exactly (they are rare).
 *
 * Back-pressured time follows from the synchronous handoff: while a consumer processes a record its producer is
 * blocked, so the time a subtask spends inside downstream calls is the time it was back-pressured. As in Flink,
 * the bottleneck is the busy subtask downstream of back-pressured ones. Idle is the rest of the second.
 */
export class BusyTimeTracker implements View {
  /** True while a sampled batch or an exactly-timed call runs: every hop times itself. */
  active = false;
  private exact = false;
  /** Time spent in hops called by the current hop (ms). */
  private child = 0;
  private batchMs = 0;
  private sampledMs = 0;
  /** Sampled batch time over the ticks that had samples, decayed like the subtasks' sums. */
  private decayedSampledMs = 0;
  /** The earliest time the next sampled batch may start; NaN until the first batch. */
  private nextSampleAt = Number.NaN;
  private lastTick: number | undefined = undefined;
  private readonly subtasks: SubtaskTime[] = [];

  constructor(
    /** False when metrics are off: no clock is read at all. */
    readonly enabled: boolean,
    /** How long after the first batch the first sampled batch may start (see {@link FIRST_SAMPLE_DELAY_MS}). */
    private readonly firstSampleDelayMs = FIRST_SAMPLE_DELAY_MS,
  ) {}

  /** Registers a subtask's times so ticks update them. */
  track(): SubtaskTime {
    const time = new SubtaskTime();
    this.subtasks.push(time);
    return time;
  }

  /** Starts a source batch; returns its start time (0 when disabled). */
  beginBatch(): number {
    if (!this.enabled) return 0;
    const start = performance.now();
    if (Number.isNaN(this.nextSampleAt)) this.nextSampleAt = start + this.firstSampleDelayMs;
    if (!this.active && start >= this.nextSampleAt) {
      this.nextSampleAt = start + SAMPLE_SPACING_MS;
      this.active = true;
      this.exact = false;
      this.child = 0;
      return -start;
    }
    return start;
  }

  /** Ends a source batch started with `beginBatch` (a negative start marks a sampled batch). */
  endBatch(time: SubtaskTime, start: number): void {
    if (!this.enabled) return;
    if (start >= 0) {
      this.batchMs += performance.now() - start;
      return;
    }
    const end = performance.now();
    const elapsed = end + start;
    // Hop timing costs about as much as a cheap hop: keep sampled batches to a small share of the time.
    const next = end + elapsed * (1 / SAMPLED_TIME_SHARE - 1);
    this.nextSampleAt = Math.max(this.nextSampleAt, next);
    this.batchMs += elapsed;
    this.sampledMs += elapsed;
    time.sampledBusyMs += elapsed - this.child;
    time.sampledBackPressuredMs += this.child;
    this.active = false;
  }

  /** Starts one hop inside an active sample; returns the caller's child time, which `endHop` restores. */
  beginHop(): number {
    const outer = this.child;
    this.child = 0;
    return outer;
  }

  /** Ends a hop: its self time goes to `time`, its whole time to the caller's child time. */
  endHop(time: SubtaskTime, outer: number, start: number): void {
    const elapsed = performance.now() - start;
    const child = this.child;
    if (this.exact) {
      time.exactBusyMs += elapsed - child;
      time.exactBackPressuredMs += child;
    } else {
      time.sampledBusyMs += elapsed - child;
      time.sampledBackPressuredMs += child;
    }
    this.child = outer + elapsed;
  }

  /** Starts an exactly-timed root (a watermark, a timer) when nothing is being timed; returns whether it did. */
  beginExact(): boolean {
    if (!this.enabled || this.active) return false;
    this.active = true;
    this.exact = true;
    this.child = 0;
    return true;
  }

  /** Ends the exactly-timed root (the next root, exact or sampled, sets its own mode and child time). */
  endExact(): void {
    this.active = false;
  }

  /**
   * Waits for `released` while a source subtask is held back by a blocked channel or a full asynchronous
   * operator downstream: that wait is back-pressured time, measured exactly.
   */
  async waitBackPressured(time: SubtaskTime, released: Promise<void>): Promise<void> {
    if (!this.enabled) return released;
    const start = performance.now();
    try {
      await released;
    } finally {
      time.exactBackPressuredMs += performance.now() - start;
    }
  }

  /** Turns the accumulated samples into per-second figures for every subtask. */
  sample(nowMs: number): void {
    const last = this.lastTick;
    this.lastTick = nowMs;
    if (last === undefined || nowMs <= last) return;
    const interval = nowMs - last;
    const sampled = this.sampledMs > 0;
    if (sampled) this.decayedSampledMs = this.decayedSampledMs * SHARE_DECAY + this.sampledMs;
    const scale = this.decayedSampledMs > 0 ? this.batchMs / this.decayedSampledMs : 0;
    for (const t of this.subtasks) {
      if (sampled) {
        t.decayedBusyMs = t.decayedBusyMs * SHARE_DECAY + t.sampledBusyMs;
        t.decayedBackPressuredMs = t.decayedBackPressuredMs * SHARE_DECAY + t.sampledBackPressuredMs;
      }
      const busy = clamp(((t.decayedBusyMs * scale + t.exactBusyMs) * 1000) / interval);
      const bp = clamp(((t.decayedBackPressuredMs * scale + t.exactBackPressuredMs) * 1000) / interval);
      t.busyTimeMsPerSecond = busy;
      t.backPressuredTimeMsPerSecond = Math.min(bp, 1000 - busy);
      t.idleTimeMsPerSecond = Math.max(0, 1000 - busy - t.backPressuredTimeMsPerSecond);
      t.sampledBusyMs = t.sampledBackPressuredMs = t.exactBusyMs = t.exactBackPressuredMs = 0;
    }
    this.batchMs = this.sampledMs = 0;
  }
}

/**
 * No batch is sampled in the first this many ms after a job's first batch. Then V8 is compiling the record path,
 * from type feedback that counts which branches ran: with the first batch sampled, the timing branch of every hop
 * counted as often as the record path itself, so V8 inlined the timing code into the chain and ran out of its
 * inlining budget before the chain's end (docs/performance.md, "The chained hop compiled per operator class").
 * After 100 ms of batches that are not sampled, a sampled batch is a rare branch, compiled out of line.
 */
export const FIRST_SAMPLE_DELAY_MS = 100;

/** At most one sampled batch per this many ms. */
export const SAMPLE_SPACING_MS = 25;

/** The largest share of the time spent in sampled batches (timed hop by hop). */
export const SAMPLED_TIME_SHARE = 0.02;

/**
 * How much of the earlier ticks' samples the shares keep at each tick that has samples. A tick often holds a
 * single sampled batch (2 % of a busy tick is one batch of a few records when records are slow), and one batch
 * is noisy: a pause of a millisecond (a garbage collection, the thread descheduled, code being optimised) inside
 * a cheap sink's call would mark its caller back-pressured for a whole tick. Sums decayed by 3/4 per tick weigh
 * the last few ticks' samples together (a change in the job shows in the shares within three or four ticks).
 */
export const SHARE_DECAY = 0.75;

/** Milliseconds per second, rounded, at most 1000 (the sums are never negative). */
function clamp(ms: number): number {
  return Math.min(1000, Math.round(ms));
}
