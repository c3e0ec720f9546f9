// BusyTimeTracker: estimates busy, back-pressured and idle time per subtask from timed samples, at no per-record or per-fired-result cost.
import { performance } from 'node:perf_hooks';
import { DOUBLE_ZERO } from '../core/stable-hidden-classes.ts';
import type { View } from '../metrics/meter.ts';

/**
 * One subtask's sampled time in one kind of root (source batches, batches from other threads, or firings outside
 * them): the kinds are scaled apart, because the time of each divides among subtasks quite unlike the others'.
 */
export class SampledShare {
  /** Self time measured in this tick's sampled roots (ms). */
  sampledBusyMs = DOUBLE_ZERO;
  /** Time spent in downstream calls (the consumer had not taken the record yet) in this tick's sampled roots (ms). */
  sampledBackPressuredMs = DOUBLE_ZERO;
  /**
   * The sampled sums over the ticks that had samples, older ticks' sums decayed by {@link SHARE_DECAY}: this
   * subtask's shares of the kind's time are these over the kind's decayed sampled time. Ticks without a sample
   * reuse the shares.
   */
  decayedBusyMs = DOUBLE_ZERO;
  decayedBackPressuredMs = DOUBLE_ZERO;
}

/** A subtask's share of the clock, filled by the tracker and read by its metrics. */
export class SubtaskTime {
  /** Its share of sampled source batches. */
  readonly batches = new SampledShare();
  /** Its share of sampled firings: watermarks and processing-time timers that arrive outside every batch. */
  readonly firings = new SampledShare();
  /** Its share of sampled deliveries: batches of records and watermarks from another thread (worker mode). */
  readonly deliveries = new SampledShare();
  /** Back-pressured time measured exactly: a source's waits for a blocked channel or a full operator (ms). */
  exactBackPressuredMs = DOUBLE_ZERO;
  /** Flink's busyTimeMsPerSecond, backPressuredTimeMsPerSecond and idleTimeMsPerSecond (last tick). */
  busyTimeMsPerSecond = 0;
  backPressuredTimeMsPerSecond = 0;
  idleTimeMsPerSecond = 1000;
}

/** One kind of root the tracker times: the time of all of them, and of the sampled ones. */
class RootKind {
  /** Every root's wall time this tick (ms). */
  totalMs = DOUBLE_ZERO;
  /** The sampled roots' wall time this tick (ms). */
  sampledMs = DOUBLE_ZERO;
  /** Sampled time over the ticks that had samples, decayed like the subtasks' sums. */
  decayedSampledMs = DOUBLE_ZERO;
  /** The earliest time the next sampled root may start; NaN until the first root. */
  nextSampleAt = Number.NaN;
  /** This tick's factor from a subtask's decayed sampled time to its share of `totalMs`. */
  scale = DOUBLE_ZERO;

  constructor(
    /** Which of a subtask's shares a sampled root of this kind fills: {@link BATCHES}, {@link FIRINGS} or {@link DELIVERIES}. */
    readonly share: number,
  ) {}

  /** Ends a tick: folds its samples into the decayed sums and sets `scale`; returns whether it had samples. */
  tick(): boolean {
    const sampled = this.sampledMs > 0;
    if (sampled) this.decayedSampledMs = this.decayedSampledMs * SHARE_DECAY + this.sampledMs;
    this.scale = this.decayedSampledMs > 0 ? this.totalMs / this.decayedSampledMs : 0;
    this.totalMs = this.sampledMs = 0;
    return sampled;
  }
}

/** The kinds of root, as {@link RootKind.share}. */
const BATCHES = 0;
const FIRINGS = 1;
const DELIVERIES = 2;

/** The share of `time` that a sampled root of kind `share` fills. */
function shareOf(time: SubtaskTime, share: number): SampledShare {
  return share === BATCHES ? time.batches : share === FIRINGS ? time.firings : time.deliveries;
}

/**
 * Everything in a Weir job runs synchronously on one thread: a source's batch calls each downstream operator in
 * turn. Timing every hop would double the cost of a cheap operator, so the tracker times **roots**, the calls the
 * thread makes into the job from outside it: source batches, *deliveries* (a batch of records and watermarks from
 * another thread, in worker mode, replayed into its consumer), and *firings* that arrive outside both (a watermark from
 * a source's periodic emit, a processing-time timer). Every root's wall time
 * is summed (two clock reads per root), and now and then a root is a *sampled* root in which every hop measures
 * its self time (its time minus the time of the hops it called) and the time it spent inside downstream calls.
 * Work inside a root (a watermark a batch's records carry, the windows it fires) is part of that root's time, timed
 * hop by hop only when the root is sampled: a fired result costs no clock read outside the samples, as a record
 * does not. Sampled roots of a kind are at least {@link SAMPLE_SPACING_MS} apart and take at most
 * {@link SAMPLED_TIME_SHARE} of the time: with slow records a single batch can outlast the spacing, and timing
 * every batch would put clock reads on every hop of every record. On each tick each subtask's share of a kind's
 * sampled time (over the last few ticks' samples, {@link SHARE_DECAY}) is applied to that kind's total (a tick
 * without a sample reuses the last shares). The three kinds are sampled and scaled apart: a firing's time divides
 * among subtasks quite unlike a batch's, and a delivery's goes to the subtasks downstream of the exchange, not to the
 * source's chain; and a kind that is rarer (firings; on a worker, deliveries, a few large ones against many source
 * batches) would seldom be the root a shared spacing picks.
 *
 * What the figures estimate: a subtask's busy time in a tick is the sum over the kinds of the kind's root time
 * times the subtask's share of its sampled self time; its back-pressured time is the same with the time inside
 * downstream calls, plus the exactly measured waits of a source held back. Both are ratio estimates, unbiased as
 * far as the sampled roots are like the others (the spacing picks a root by when it starts, not by what it does).
 *
 * Back-pressured time follows from the synchronous handoff: while a consumer processes a record its producer is
 * blocked, so the time a subtask spends inside downstream calls is the time it was back-pressured. As in Flink,
 * the bottleneck is the busy subtask downstream of back-pressured ones. Idle is the rest of the second.
 */
export class BusyTimeTracker implements View {
  /** True while a sampled root runs: every hop times itself. */
  active = false;
  /** True while a root runs: what it calls is part of its time (a watermark fired inside a batch is no root). */
  rootRunning = false;
  /** The kind of the sampled root that runs (its hops' time goes to that share of each subtask's time). */
  private sampledShare = BATCHES;
  /** Time spent in hops called by the current hop (ms). */
  private child = DOUBLE_ZERO;
  private readonly batches = new RootKind(BATCHES);
  private readonly firings = new RootKind(FIRINGS);
  private readonly deliveries = new RootKind(DELIVERIES);
  private lastTick: number | undefined = undefined;
  private readonly subtasks: SubtaskTime[] = [];

  constructor(
    /** False when metrics are off: no clock is read at all. */
    readonly enabled: boolean,
    /** How long after a kind's first root its first sampled root may start (see {@link FIRST_SAMPLE_DELAY_MS}). */
    private readonly firstSampleDelayMs = FIRST_SAMPLE_DELAY_MS,
  ) {}

  /** Registers a subtask's times so ticks update them. */
  track(): SubtaskTime {
    const time = new SubtaskTime();
    this.subtasks.push(time);
    return time;
  }

  /** Starts a source batch; returns its start time (0 when disabled, negative when sampled). */
  beginBatch(): number {
    return this.enabled ? this.beginRoot(this.batches) : 0;
  }

  /** Ends a source batch started with `beginBatch`: its time, and in a sampled batch the source's own shares. */
  endBatch(time: SubtaskTime, start: number): void {
    if (this.enabled) this.endRoot(this.batches, time.batches, start);
  }

  /**
   * Starts a firing (a watermark, a processing-time timer) as a root of its own; only when `timesFiring()`, that
   * is outside every other root. Returns its start time, negative when sampled.
   */
  beginFiring(): number {
    return this.beginRoot(this.firings);
  }

  /** Ends a firing started with `beginFiring`: its time, and in a sampled firing the firing subtask's shares. */
  endFiring(time: SubtaskTime, start: number): void {
    this.endRoot(this.firings, time.firings, start);
  }

  /**
   * Starts the delivery of a batch from another thread (worker mode); returns its start time (0 when disabled,
   * negative when sampled). Its records and watermarks are then handled here as a source batch's are.
   */
  beginDelivery(): number {
    return this.enabled ? this.beginRoot(this.deliveries) : 0;
  }

  /**
   * Ends a delivery started with `beginDelivery`: its time, and in a sampled delivery the time outside its hops
   * (reading the batch and building its records) as busy time of the receiving subtask (`time`).
   */
  endDelivery(time: SubtaskTime, start: number): void {
    if (this.enabled) this.endRoot(this.deliveries, time.deliveries, start);
  }

  /** Whether a firing that arrives now is a root of its own: metrics are on and no other root runs. */
  timesFiring(): boolean {
    return this.enabled && !this.rootRunning;
  }

  private beginRoot(kind: RootKind): number {
    const start = performance.now();
    this.rootRunning = true;
    if (Number.isNaN(kind.nextSampleAt)) kind.nextSampleAt = start + this.firstSampleDelayMs;
    if (!this.active && start >= kind.nextSampleAt) {
      kind.nextSampleAt = start + SAMPLE_SPACING_MS;
      this.active = true;
      this.sampledShare = kind.share;
      this.child = 0;
      return -start;
    }
    return start;
  }

  /** Ends a root (a negative start marks a sampled one, whose self time goes to `share`). */
  private endRoot(kind: RootKind, share: SampledShare, start: number): void {
    this.rootRunning = false;
    if (start >= 0) {
      kind.totalMs += performance.now() - start;
      return;
    }
    const end = performance.now();
    const elapsed = end + start;
    // Hop timing costs about as much as a cheap hop: keep sampled roots to a small share of the time.
    const next = end + elapsed * (1 / SAMPLED_TIME_SHARE - 1);
    kind.nextSampleAt = Math.max(kind.nextSampleAt, next);
    kind.totalMs += elapsed;
    kind.sampledMs += elapsed;
    share.sampledBusyMs += elapsed - this.child;
    // A source or a firing operator waits while what it called runs: back-pressured. A delivery's hops are the
    // receiving subtask's own (timed as hops), and nothing on this thread waits for them.
    if (kind.share !== DELIVERIES) share.sampledBackPressuredMs += this.child;
    this.active = false;
  }

  /** Starts one hop inside a sampled root; returns the caller's child time, which `endHop` restores. */
  beginHop(): number {
    const outer = this.child;
    this.child = 0;
    return outer;
  }

  /** Ends a hop: its self time goes to `time`, its whole time to the caller's child time. */
  endHop(time: SubtaskTime, outer: number, start: number): void {
    const elapsed = performance.now() - start;
    const child = this.child;
    const share = shareOf(time, this.sampledShare);
    share.sampledBusyMs += elapsed - child;
    share.sampledBackPressuredMs += child;
    this.child = outer + elapsed;
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
    const batches = this.batches;
    const firings = this.firings;
    const deliveries = this.deliveries;
    const batchesSampled = batches.tick();
    const firingsSampled = firings.tick();
    const deliveriesSampled = deliveries.tick();
    for (const t of this.subtasks) {
      if (batchesSampled) decay(t.batches);
      if (firingsSampled) decay(t.firings);
      if (deliveriesSampled) decay(t.deliveries);
      const busy = clamp(
        ((t.batches.decayedBusyMs * batches.scale +
          t.firings.decayedBusyMs * firings.scale +
          t.deliveries.decayedBusyMs * deliveries.scale) *
          1000) /
          interval,
      );
      const bp = clamp(
        ((t.batches.decayedBackPressuredMs * batches.scale +
          t.firings.decayedBackPressuredMs * firings.scale +
          t.deliveries.decayedBackPressuredMs * deliveries.scale +
          t.exactBackPressuredMs) *
          1000) /
          interval,
      );
      t.busyTimeMsPerSecond = busy;
      t.backPressuredTimeMsPerSecond = Math.min(bp, 1000 - busy);
      t.idleTimeMsPerSecond = Math.max(0, 1000 - busy - t.backPressuredTimeMsPerSecond);
      t.exactBackPressuredMs = 0;
    }
  }
}

/** Folds a tick's samples into a share's decayed sums. */
function decay(share: SampledShare): void {
  share.decayedBusyMs = share.decayedBusyMs * SHARE_DECAY + share.sampledBusyMs;
  share.decayedBackPressuredMs = share.decayedBackPressuredMs * SHARE_DECAY + share.sampledBackPressuredMs;
  share.sampledBusyMs = share.sampledBackPressuredMs = 0;
}

/**
 * No root of a kind is sampled in the first this many ms after the first root of that kind (a job's first batch, its
 * first firing outside a batch). Then V8 is compiling the record path,
 * from type feedback that counts which branches ran: with the first batch sampled, the timing branch of every hop
 * counted as often as the record path itself, so V8 inlined the timing code into the chain and ran out of its
 * inlining budget before the chain's end (docs/performance.md, "The chained hop compiled per operator class").
 * After 100 ms of batches that are not sampled, a sampled batch is a rare branch, compiled out of line. The same
 * holds for the firing path (a window operator's emit of fired results and the chain below it).
 */
export const FIRST_SAMPLE_DELAY_MS = 100;

/** At most one sampled root of a kind per this many ms. */
export const SAMPLE_SPACING_MS = 25;

/** The largest share of the time spent in sampled roots of a kind (timed hop by hop). */
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
