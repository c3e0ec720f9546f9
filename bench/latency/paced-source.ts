// The latency runs' source for Weir: event i is due at t0 + i / rate (processing time) and is emitted no earlier than
// that, as soon after as the event loop lets it; t0 is the moment of the first poll. The sink measures latency from
// these due times (bench/latency/latency-recorder.ts), on the same clock.
import type { PollResult, ReaderOutput, Source, SourceReader } from '../../src/core/source.ts';

/**
 * The pacing shared by the source and the sink of one run (both on the main thread at parallelism 1): the start,
 * the period between due times, and when the last event actually went out.
 */
export class Pacing {
  /** performance.now() of the first poll; NaN until then. */
  t0 = Number.NaN;
  /** performance.now() when the last event was emitted; NaN until then. */
  lastEmitMs = Number.NaN;
  /** Milliseconds between two due times: 1000 / rate, 0 for an unpaced run (every event due at t0). */
  readonly periodMs: number;
  /** Events emitted so far: an output whose reference is not among them was released by the end of the input. */
  emitted = 0;
  /** Events the run has: `events`, or fewer when the source gave up (see `giveUpMs`). */
  end: number;
  /**
   * A paced run stops early once its source is this far behind the due times (max(2 s, the run's length)): a system
   * that cannot sustain the rate would otherwise take many times the run's length to get through it. The run then
   * has the events emitted so far, and is verified at that size.
   */
  readonly giveUpMs: number;

  constructor(
    /** Events per second of processing time; Infinity for an unpaced run. */
    readonly rate: number,
    readonly events: number,
  ) {
    if (!(rate > 0)) throw new RangeError(`a rate must be positive, got ${rate}`);
    this.periodMs = Number.isFinite(rate) ? 1000 / rate : 0;
    this.end = events;
    this.giveUpMs = Number.isFinite(rate) ? Math.max(2000, (events * 1000) / rate) : Infinity;
  }

  /** The due time of event `index`. */
  dueMs(index: number): number {
    return this.t0 + index * this.periodMs;
  }
}

/** Records per poll at most: the runtime yields to the event loop between polls. */
const MAX_PER_POLL = 1000;

/**
 * Events 0 .. pacing.events - 1 of `generate`, each at or after its due time, on one source subtask. A poll emits
 * every event already due (at most {@link MAX_PER_POLL}); when the next is not due yet, it waits on a timer until it
 * is. Node's timers have millisecond resolution, so the wait ends up to about 1 ms after the due time: part of the
 * latency Weir has on Node, and the reason records go out in bursts of about rate / 1000.
 */
export class PacedSource<T> implements Source<T, number> {
  readonly boundedness = 'bounded' as const;

  constructor(
    private readonly pacing: Pacing,
    private readonly generate: (index: number) => T,
  ) {}

  createEnumerator(): { initialSplits: () => number[] } {
    return { initialSplits: () => [0] };
  }

  createReader(): SourceReader<T, number> {
    return new PacedReader(this.pacing, this.generate);
  }
}

class PacedReader<T> implements SourceReader<T, number> {
  private next = 0;
  private closed = false;
  private timer: NodeJS.Timeout | undefined = undefined;
  private wake: (() => void) | undefined = undefined;

  constructor(
    private readonly pacing: Pacing,
    private readonly generate: (index: number) => T,
  ) {}

  addSplits(splits: number[]): void {
    // One split, the index to go on from (0, or where a snapshot left it).
    if (splits.length > 0) this.next = splits[0]!;
  }

  pollNext(output: ReaderOutput<T>): PollResult | Promise<PollResult> {
    const pacing = this.pacing;
    if (Number.isNaN(pacing.t0)) pacing.t0 = performance.now();
    if (this.closed || this.next >= pacing.end) return 'end';
    const wait = pacing.dueMs(this.next) - performance.now();
    if (wait > 0) {
      return new Promise<PollResult>((resolve) => {
        this.wake = () => resolve(this.closed ? 'end' : this.emitDue(output));
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.wake?.();
        }, wait);
      });
    }
    return this.emitDue(output);
  }

  /** Emits the events due by now (the clock is read again only when the next one was not due at the last read). */
  private emitDue(output: ReaderOutput<T>): PollResult {
    const { pacing, generate } = this;
    let now = performance.now();
    if (now - pacing.dueMs(this.next) > pacing.giveUpMs) pacing.end = this.next;
    const end = Math.min(pacing.end, this.next + MAX_PER_POLL);
    let i = this.next;
    while (i < end) {
      if (pacing.dueMs(i) > now) {
        now = performance.now();
        if (pacing.dueMs(i) > now) break;
      }
      const value = generate(i);
      this.next = ++i;
      pacing.emitted = i;
      output.collect(value);
    }
    if (i >= pacing.end) {
      pacing.lastEmitMs = performance.now();
      return 'end';
    }
    return 'more';
  }

  snapshotState(): number[] {
    return [this.next];
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
