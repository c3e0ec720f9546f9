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
 *
 * An event-time assigner whose parameters are whole milliseconds, with `size` a multiple of `slide`, asks
 * {@link windowsInCachedSlide} first: a whole-millisecond timestamp in the slide of a cached list's start has that
 * list, found by two comparisons instead of the start's `%` (a double modulo, which V8 compiles to the x87 `fprem`
 * loop: two thirds of the window operator's `processElement` self time on a tumbling window, as `perf annotate`
 * showed). The answer is the one the start would give: for whole numbers within 2^51 the start's arithmetic is
 * exact, so every whole time in [start, start + slide) has that start.
 */
export class WindowListCache {
  private lastStart = Number.NaN;
  // Stryker disable next-line ArrayDeclaration: never returned, as the NaN start before it equals no start
  private windows: readonly TimeWindow[] = [];
  private previousStart = Number.NaN;
  // Stryker disable next-line ArrayDeclaration: never returned, as the NaN start before it equals no start
  private previous: readonly TimeWindow[] = [];
  /**
   * The timestamps whose list is `windows` without their start computed: [latestFrom, latestTo), whole ones only;
   * an empty range (NaN bounds) when the list's start did not come from a whole timestamp of exact parameters.
   */
  private latestFrom = Number.NaN;
  private latestTo = Number.NaN;
  private previousFrom = Number.NaN;
  private previousTo = Number.NaN;
  /** Whether a start computed from a whole timestamp is exact, with every whole time of its slide sharing its list. */
  private readonly slideOfWholeTimes: boolean;

  constructor(
    private readonly size: number,
    private readonly slide: number,
    /** The assigner's offset, for {@link windowsInCachedSlide}; NaN (the default) where it is not asked. */
    offset = Number.NaN,
  ) {
    this.slideOfWholeTimes =
      Number.isInteger(size) &&
      Number.isInteger(slide) &&
      Number.isInteger(offset) &&
      size % slide === 0 &&
      slide <= EXACT_BOUND;
  }

  /**
   * The cached list whose slide holds `timestamp`, if it is a whole number (its start is then that list's, see the
   * class comment), taken as {@link windowsFor} would take it; else undefined, and the assigner computes the start.
   * NaN and non-numbers answer undefined, so the assigner's own checks still see them.
   */
  windowsInCachedSlide(timestamp: number): readonly TimeWindow[] | undefined {
    if (timestamp >= this.latestFrom && timestamp < this.latestTo && Math.floor(timestamp) === timestamp)
      return this.windows;
    // Out of order across a slide boundary: the list before, taken as `windowsFor` takes it (the two swap).
    if (timestamp >= this.previousFrom && timestamp < this.previousTo && Math.floor(timestamp) === timestamp)
      return this.takePrevious();
    return undefined;
  }

  /**
   * The list of `lastStart` for `time` (see the class comment). `timestamp`, where given, is the element timestamp
   * `lastStart` was computed from with the assigner's offset: when it is whole, the list's slide answers
   * {@link windowsInCachedSlide}.
   */
  windowsFor(lastStart: number, time: number, timestamp = Number.NaN): readonly TimeWindow[] {
    const earliest = time - this.size;
    let count = 0;
    for (let start = lastStart; start > earliest; start -= this.slide) count++;
    if (lastStart === this.lastStart && this.windows.length === count) return this.windows;
    if (lastStart === this.previousStart && this.previous.length === count) return this.takePrevious();
    const windows: TimeWindow[] = [];
    for (let start = lastStart; start > earliest; start -= this.slide) windows.push(this.windowAt(start));
    this.previous = this.windows;
    this.previousStart = this.lastStart;
    this.windows = windows;
    this.lastStart = lastStart;
    this.previousFrom = this.latestFrom;
    this.previousTo = this.latestTo;
    const exact = this.slideOfWholeTimes && Number.isInteger(timestamp) && Math.abs(lastStart) <= EXACT_BOUND;
    this.latestFrom = exact ? lastStart : Number.NaN;
    this.latestTo = exact ? lastStart + this.slide : Number.NaN;
    return windows;
  }

  /** The list before the latest becomes the latest, and the latest the one before, with their slides. */
  private takePrevious(): readonly TimeWindow[] {
    const windows = this.previous;
    this.previous = this.windows;
    this.windows = windows;
    const start = this.previousStart;
    this.previousStart = this.lastStart;
    this.lastStart = start;
    const from = this.previousFrom;
    const to = this.previousTo;
    this.previousFrom = this.latestFrom;
    this.previousTo = this.latestTo;
    this.latestFrom = from;
    this.latestTo = to;
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

/**
 * Times, starts and slides within this bound in magnitude keep a start's arithmetic (`timestamp - offset`, its
 * remainder, their difference) exact: every intermediate is a whole number below 2^53 (a time within 2^51 of the start, an offset below the slide).
 */
const EXACT_BOUND = 2 ** 51;
