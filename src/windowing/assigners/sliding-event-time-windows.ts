// SlidingEventTimeWindows: fixed-size windows that start every `slide` ms, so an element is in size/slide windows.
import { ConfigurationError } from '../../core/errors.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../time-window.ts';
import { WindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import { requireTimestamp } from './require-timestamp.ts';
import { WindowListCache } from './window-list-cache.ts';

/**
 * Puts each element into every window of `size` ms that starts at a multiple of `slide` (plus `offset`) and
 * contains its timestamp, as Flink's `SlidingEventTimeWindows`. Windows are listed latest start first, as in
 * Flink, which decides the order of early firings within one element.
 *
 * @example
 * // 10-minute windows every minute: each element lands in 10 windows
 * keyed.window(SlidingEventTimeWindows.of(Time.minutes(10), Time.minutes(1))).aggregate(avg)
 */
export class SlidingEventTimeWindows extends WindowAssigner<unknown, TimeWindow> {
  private readonly cache: WindowListCache;

  protected constructor(
    readonly size: number,
    readonly slide: number,
    readonly offset: number,
  ) {
    super();
    if (!(Math.abs(offset) < slide) || !(size > 0)) {
      throw new ConfigurationError(
        `SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0, got size ${size}, slide ${slide} and offset ${offset}`,
      );
    }
    this.cache = new WindowListCache(size, slide, offset);
  }

  static of(size: number, slide: number, offset = 0): SlidingEventTimeWindows {
    return new SlidingEventTimeWindows(size, slide, offset);
  }

  assignWindows(
    _element: unknown,
    timestamp: number,
    _context: WindowAssignerContext,
  ): readonly TimeWindow[] {
    const cached = this.cache.windowsInCachedSlide(timestamp);
    if (cached !== undefined) return cached;
    requireTimestamp(timestamp);
    const lastStart = TimeWindow.getWindowStartWithOffset(timestamp, this.offset, this.slide);
    return this.cache.windowsFor(lastStart, timestamp, timestamp);
  }

  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return EventTimeTrigger.create();
  }

  getWindowSerializer(): NamespaceSerializer<TimeWindow> {
    return fixedSizeTimeWindowSerializer;
  }

  isEventTime(): boolean {
    return true;
  }

  override toString(): string {
    return `SlidingEventTimeWindows(${this.size}, ${this.slide})`;
  }
}
