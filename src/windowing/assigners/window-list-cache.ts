// WindowListCache: the window lists of a tumbling or sliding assigner, one window object per window start.
import { TimeWindow } from '../time-window.ts';

/**
 * The windows of `size` starting every `slide` that contain `time`, where `lastStart` is the latest start at or
 * before it: Flink's loop `for (start = lastStart; start > time - size; start -= slide)`, latest start first. A
 * tumbling assigner is the case `slide = size` (one window).
 *
 * Lists are cached for the last two `lastStart`s, and a new list takes the window objects the cached ones have for
 * its starts, so every element of a window start gets the same object while event time moves forward, out of
 * order across a slide boundary included (with a bounded out-of-orderness, elements on either side of a boundary
 * alternate between two lists). Consecutive elements then allocate nothing, and the window operator's timers for
 * one window end share one namespace object, which lets the timer service keep them as one list of keys. When
 * `size` is a multiple of `slide` a list depends on the element's time only through `lastStart` (with size =
 * m·slide, exactly m windows); otherwise its length varies within a slide, and a list is reused only at its length.
 */
export class WindowListCache {
  private lastStart = Number.NaN;
  // Stryker disable next-line ArrayDeclaration: never returned, as the NaN start before it equals no start
  private windows: readonly TimeWindow[] = [];
  private previousStart = Number.NaN;
  // Stryker disable next-line ArrayDeclaration: never returned, as the NaN start before it equals no start
  private previous: readonly TimeWindow[] = [];

  constructor(
    private readonly size: number,
    private readonly slide: number,
  ) {}

  windowsFor(lastStart: number, time: number): readonly TimeWindow[] {
    const earliest = time - this.size;
    let count = 0;
    for (let start = lastStart; start > earliest; start -= this.slide) count++;
    if (lastStart === this.lastStart && this.windows.length === count) return this.windows;
    if (lastStart === this.previousStart && this.previous.length === count) {
      const windows = this.previous;
      this.previous = this.windows;
      this.previousStart = this.lastStart;
      this.windows = windows;
      this.lastStart = lastStart;
      return windows;
    }
    const windows: TimeWindow[] = [];
    for (let start = lastStart; start > earliest; start -= this.slide) windows.push(this.windowAt(start));
    this.previous = this.windows;
    this.previousStart = this.lastStart;
    this.windows = windows;
    this.lastStart = lastStart;
    return windows;
  }

  /** The window starting at `start`: a cached list's object when one has it, else a new one. */
  private windowAt(start: number): TimeWindow {
    return (
      this.cached(this.windows, this.lastStart, start) ??
      this.cached(this.previous, this.previousStart, start) ??
      new TimeWindow(start, start + this.size)
    );
  }

  /** A list from `listStart` holds the window of `start` at index (listStart - start) / slide, if anywhere. */
  private cached(list: readonly TimeWindow[], listStart: number, start: number): TimeWindow | undefined {
    // A fractional index finds nothing. The start check matters only where float arithmetic (fractional times)
    // made an index whole that Flink's loop of subtractions would not reach.
    const window = list[(listStart - start) / this.slide];
    // Stryker disable next-line ConditionalExpression: with whole-millisecond times a whole index holds that start
    return window?.start === start ? window : undefined;
  }
}
