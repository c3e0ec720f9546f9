// SlidingWindowCache: the window list of a sliding assigner, cached per last window start.
import { TimeWindow } from '../time-window.ts';

/**
 * The windows containing `time` whose last start is `lastStart`: Flink's loop
 * `for (start = lastStart; start > time - size; start -= slide)`, latest start first.
 */
export function slidingWindowsFor(
  lastStart: number,
  time: number,
  size: number,
  slide: number,
): TimeWindow[] {
  const windows: TimeWindow[] = [];
  for (let start = lastStart; start > time - size; start -= slide)
    windows.push(new TimeWindow(start, start + size));
  return windows;
}

/**
 * Caches the window list of the last `lastStart`. When `size` is a multiple of `slide` the list depends on the
 * element's time only through `lastStart` (with size = m·slide, exactly m windows), so consecutive elements
 * share one array; otherwise the count varies within a slide and every element gets its own list.
 */
export class SlidingWindowCache {
  private lastStart = Number.NaN;
  // Stryker disable next-line ArrayDeclaration: never returned, as the NaN start before it equals no start
  private windows: readonly TimeWindow[] = [];
  private readonly cacheable: boolean;

  constructor(
    private readonly size: number,
    private readonly slide: number,
  ) {
    this.cacheable = size % slide === 0;
  }

  windowsFor(lastStart: number, time: number): readonly TimeWindow[] {
    if (!this.cacheable) return slidingWindowsFor(lastStart, time, this.size, this.slide);
    if (lastStart !== this.lastStart) {
      this.lastStart = lastStart;
      this.windows = slidingWindowsFor(lastStart, time, this.size, this.slide);
    }
    return this.windows;
  }
}
