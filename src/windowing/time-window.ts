// TimeWindow: the [start, end) interval windows of tumbling, sliding and session assigners, and its serializers.
import type { NamespaceHashing, NamespaceSerializer } from '../state/namespace.ts';
import type { TypeSerializer } from '../core/type-serializer.ts';
import type { Window } from './window.ts';

/**
 * A window covering the half-open interval `[start, end)` of milliseconds, as Flink's `TimeWindow`.
 * Instances are immutable values: two windows with equal start and end are the same window (the same state
 * namespace, the same timers).
 *
 * @example
 * const w = new TimeWindow(1000, 2000);
 * w.maxTimestamp();                      // 1999
 * w.intersects(new TimeWindow(2000, 3000)); // true: touching windows merge (sessions)
 * TimeWindow.getWindowStartWithOffset(1500, 0, 1000); // 1000
 */
export class TimeWindow implements Window {
  /** Memoised namespace key (`start:end`), built on first use so a cached window costs one string, ever. */
  private keyString: string | undefined = undefined;
  /**
   * Bookkeeping of a timer heap that retires moved timers lazily (`TimerHeap.retireMovedTimersLazily`: a session's
   * event-time timers): whether a queued timer holds this object, and whether that timer was moved away. Not part
   * of the window's value (neither compared nor serialized); a small integer, so no box.
   * @internal
   */
  timerMark = 0;

  constructor(
    readonly start: number,
    readonly end: number,
  ) {}

  /** `end - 1`: the last millisecond inside the window. */
  maxTimestamp(): number {
    return this.end - 1;
  }

  /** Whether the windows overlap or touch (Flink: `start <= other.end && end >= other.start`). */
  intersects(other: TimeWindow): boolean {
    return this.start <= other.end && this.end >= other.start;
  }

  /** The smallest window covering both. */
  cover(other: TimeWindow): TimeWindow {
    return new TimeWindow(Math.min(this.start, other.start), Math.max(this.end, other.end));
  }

  equals(other: unknown): boolean {
    return other instanceof TimeWindow && other.start === this.start && other.end === this.end;
  }

  /** A string unique to (start, end), memoised on the instance. */
  key(): string {
    return (this.keyString ??= `${this.start}:${this.end}`);
  }

  toString(): string {
    return `TimeWindow{start=${this.start}, end=${this.end}}`;
  }

  /**
   * The start of the window of `windowSize` (shifted by `offset`) that contains `timestamp`; correct for negative
   * timestamps too, as Flink's `TimeWindow.getWindowStartWithOffset`.
   */
  static getWindowStartWithOffset(timestamp: number, offset: number, windowSize: number): number {
    const remainder = (timestamp - offset) % windowSize;
    // JS `%` keeps the sign of the dividend, as Java's does: shift negative remainders into [0, size).
    return remainder < 0 ? timestamp - (remainder + windowSize) : timestamp - remainder;
  }

  /**
   * Merges overlapping windows, as Flink's `TimeWindow.mergeWindows`: sorts by start, sweeps, and calls
   * `callback(toBeMerged, mergeResult)` once per group of more than one window.
   */
  static mergeWindows(
    windows: readonly TimeWindow[],
    callback: (toBeMerged: TimeWindow[], mergeResult: TimeWindow) => void,
  ): void {
    const sorted = windows.slice().sort((a, b) => a.start - b.start);
    let current = sorted[0];
    if (current === undefined) return;
    let group = [current];
    for (let i = 1; i < sorted.length; i++) {
      const candidate = sorted[i]!;
      if (current.intersects(candidate)) {
        current = current.cover(candidate);
        group.push(candidate);
      } else {
        if (group.length > 1) callback(group, current);
        current = candidate;
        group = [candidate];
      }
    }
    if (group.length > 1) callback(group, current);
  }
}

/** TimeWindow as bytes: start and end as two float64 (16 bytes). */
export const timeWindowTypeSerializer: TypeSerializer<TimeWindow> = {
  serialize(window: TimeWindow): Uint8Array {
    const bytes = new Uint8Array(16);
    const view = new DataView(bytes.buffer);
    view.setFloat64(0, window.start);
    view.setFloat64(8, window.end);
    return bytes;
  },
  deserialize(bytes: Uint8Array): TimeWindow {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return new TimeWindow(view.getFloat64(0), view.getFloat64(8));
  },
};

/**
 * Time windows of any shape as numbers, for the heap backend's lookups: `start + 31 * end` folded into
 * [0, 2^30), a small integer V8 keeps unboxed and compares inline, where the `start:end` key would be a string
 * built for every new session. Windows whose sums lie 2^30 ms (12 days) apart share a hash; `equals` tells them
 * apart. A handle without a window yet (`undefined`) hashes to 0 and equals no window.
 */
const timeWindowHashing: NamespaceHashing<TimeWindow> = {
  hash: (window) => (window === undefined ? 0 : (window.start + 31 * window.end) % 1073741824),
  equals: (a, b) => a !== undefined && b !== undefined && a.start === b.start && a.end === b.end,
  fewPerKey: true,
};

/**
 * The namespace serializer for time windows of any shape (sessions): the key is the memoised `start:end`
 * string of the window object, which snapshots and durable state hold; the heap backend indexes by the hash.
 */
export const timeWindowSerializer: NamespaceSerializer<TimeWindow> = {
  // The heap backend asks for the key of its initial (undefined) namespace once, before any window is set.
  // Stryker disable next-line StringLiteral: any string that is no `start:end` key serves as that placeholder
  key: (window) => (window === undefined ? '' : window.key()),
  serializer: timeWindowTypeSerializer,
  hashing: timeWindowHashing,
};

/**
 * Windows of one size as small integers, for the heap backend's lookups: the start's low 30 bits. An epoch start
 * (~1.7e12) is no small integer, and V8 boxes such a number in a fresh heap object wherever it is stored as the
 * current namespace's key or passed to a Map: five of them per element for a 10 s window sliding by 2 s, and
 * garbage that evicts the state's Map entries from the cache. Starts 2^30 ms (12 days) apart share a hash;
 * `equals` (the start, as the key) tells them apart. A handle without a window yet hashes to 0 and equals none.
 */
const fixedSizeTimeWindowHashing: NamespaceHashing<TimeWindow> = {
  hash: (window) => (window === undefined ? 0 : window.start & 0x3fffffff),
  equals: (a, b) => a !== undefined && b !== undefined && a.start === b.start,
};

/**
 * The namespace serializer for assigners whose windows all have one size (tumbling, sliding): there the start
 * alone identifies a window, so the key (what snapshots and durable state hold) is the start, and the heap backend
 * indexes by the start's low bits. Do not use it for windows of varying size.
 */
export const fixedSizeTimeWindowSerializer: NamespaceSerializer<TimeWindow> = {
  key: (window) => (window === undefined ? Number.NaN : window.start),
  serializer: timeWindowTypeSerializer,
  hashing: fixedSizeTimeWindowHashing,
};
