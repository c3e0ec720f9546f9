// TumblingEventTimeWindows: fixed-size, non-overlapping windows by element timestamp.
import { ConfigurationError } from '../../core/errors.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../time-window.ts';
import { WindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import { requireTimestamp } from './require-timestamp.ts';
import { WindowListCache } from './window-list-cache.ts';

/**
 * Puts each element into the one window of `size` milliseconds that contains its timestamp, as Flink's
 * `TumblingEventTimeWindows`. Windows are aligned to the epoch, shifted by `offset` (e.g. `-Time.hours(8)` for
 * days in UTC+8). The default trigger fires when the watermark passes the window's end.
 *
 * The last two windows are cached, so input in order, or out of order across one window boundary, allocates nothing
 * per element, and every element of a window gets the same window object.
 *
 * @example
 * keyed.window(TumblingEventTimeWindows.of(Time.minutes(1))).aggregate(countAggregate)
 * // element at 61_500 → window [60_000, 120_000), emitted with timestamp 119_999
 */
export class TumblingEventTimeWindows extends WindowAssigner<unknown, TimeWindow> {
  private readonly cache: WindowListCache;

  protected constructor(
    readonly size: number,
    readonly offset: number,
  ) {
    super();
    if (!(Math.abs(offset) < size)) {
      throw new ConfigurationError(
        `TumblingEventTimeWindows parameters must satisfy abs(offset) < size, got size ${size} and offset ${offset}`,
      );
    }
    this.cache = new WindowListCache(size, size, offset);
  }

  /** Windows of `size` ms, aligned to the epoch shifted by `offset` ms. */
  static of(size: number, offset = 0): TumblingEventTimeWindows {
    return new TumblingEventTimeWindows(size, offset);
  }

  assignWindows(
    _element: unknown,
    timestamp: number,
    _context: WindowAssignerContext,
  ): readonly TimeWindow[] {
    const cached = this.cache.windowsInCachedSlide(timestamp);
    if (cached !== undefined) return cached;
    requireTimestamp(timestamp);
    const start = TimeWindow.getWindowStartWithOffset(timestamp, this.offset, this.size);
    return this.cache.windowsFor(start, start, timestamp);
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
    return `TumblingEventTimeWindows(${this.size})`;
  }
}
