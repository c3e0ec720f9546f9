// The processing-time clock the runtime owns: the system clock when running, a manual clock under test.

/** A scheduled processing-time callback that can be cancelled. */
export interface ScheduledCallback {
  cancel(): void;
}

/**
 * The source of processing time and the scheduler of processing-time callbacks (Flink's ProcessingTimeService).
 * Only the runtime registers callbacks: one per timer service, for its earliest processing-time timer.
 */
export interface ProcessingTimeClock {
  now(): number;
  /** Calls `callback(time)` once the clock reaches `time` (at once, asynchronously, if it already has). */
  schedule(time: number, callback: (time: number) => void): ScheduledCallback;
}

/** The system clock: `Date.now()` and `setTimeout`. Callbacks run on the event loop between record batches. */
export class SystemClock implements ProcessingTimeClock {
  now(): number {
    return Date.now();
  }

  schedule(time: number, callback: (time: number) => void): ScheduledCallback {
    let handle: ReturnType<typeof setTimeout>;
    // setTimeout runs on a monotonic clock and rounds, so it can fire a millisecond before Date.now() reaches
    // `time` (and a far time is beyond its 2^31 - 1 ms range): wait again until the wall clock has arrived, so a
    // processing-time timer never fires before its time.
    const arm = (): void => {
      const now = Date.now();
      if (now >= time) {
        handle = setTimeout(() => callback(Math.max(time, Date.now())), 0);
        return;
      }
      handle = setTimeout(
        () => (Date.now() >= time ? callback(Date.now()) : arm()),
        Math.min(time - now, 2_147_483_647),
      );
    };
    arm();
    return { cancel: () => clearTimeout(handle) };
  }
}

/**
 * A clock that moves only when told to. `advanceTo` runs every due callback synchronously, in time order, so
 * processing-time behaviour under test is deterministic.
 */
export class ManualClock implements ProcessingTimeClock {
  private current: number;
  /** Callbacks in scheduling order (so among equal times the first found is the first scheduled). */
  private readonly pending: { time: number; callback: (time: number) => void; cancelled: boolean }[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  schedule(time: number, callback: (time: number) => void): ScheduledCallback {
    const entry = { time, callback, cancelled: false };
    this.pending.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }

  /** Moves the clock to `time` (never backwards) and runs every callback due by then, earliest first. */
  advanceTo(time: number): void {
    if (time < this.current)
      throw new RangeError(`The manual clock cannot go back from ${this.current} to ${time}`);
    this.current = time;
    for (;;) {
      let next = -1;
      let earliest = Number.POSITIVE_INFINITY;
      for (let i = 0; i < this.pending.length; i++) {
        const e = this.pending[i]!;
        if (e.cancelled || e.time > time || e.time >= earliest) continue;
        earliest = e.time;
        next = i;
      }
      if (next < 0) break;
      const [entry] = this.pending.splice(next, 1);
      entry!.callback(this.current);
    }
    // Stryker disable all: dropping cancelled entries only frees memory; cancelled entries never run and are not counted
    for (let i = this.pending.length - 1; i >= 0; i--)
      if (this.pending[i]!.cancelled) this.pending.splice(i, 1);
    // Stryker restore all
  }

  /** The number of callbacks not yet run nor cancelled. */
  pendingCount(): number {
    return this.pending.filter((e) => !e.cancelled).length;
  }
}
