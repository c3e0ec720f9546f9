// SlidingProcessingTimeWindows: sliding windows over the operator's processing-time clock.
import { ConfigurationError } from '../../core/errors.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { ProcessingTimeTrigger } from '../triggers/processing-time-trigger.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../time-window.ts';
import { WindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import { WindowListCache } from './window-list-cache.ts';

/**
 * Puts each element into every window of `size` ms that starts at a multiple of `slide` (plus `offset`) and
 * contains the current processing time, as Flink's `SlidingProcessingTimeWindows`; element timestamps are
 * ignored. The default trigger fires when the clock passes a window's end.
 *
 * @example
 * keyed.window(SlidingProcessingTimeWindows.of(Time.seconds(30), Time.seconds(5))).reduce((a, b) => a + b)
 */
export class SlidingProcessingTimeWindows extends WindowAssigner<unknown, TimeWindow> {
  private readonly cache: WindowListCache;

  protected constructor(
    readonly size: number,
    readonly slide: number,
    readonly offset: number,
  ) {
    super();
    if (!(Math.abs(offset) < slide) || !(size > 0)) {
      throw new ConfigurationError(
        `SlidingProcessingTimeWindows parameters must satisfy abs(offset) < slide and size > 0, got size ${size}, slide ${slide} and offset ${offset}`,
      );
    }
    this.cache = new WindowListCache(size, slide);
  }

  static of(size: number, slide: number, offset = 0): SlidingProcessingTimeWindows {
    return new SlidingProcessingTimeWindows(size, slide, offset);
  }

  assignWindows(
    _element: unknown,
    _timestamp: number,
    context: WindowAssignerContext,
  ): readonly TimeWindow[] {
    const now = context.getCurrentProcessingTime();
    const lastStart = TimeWindow.getWindowStartWithOffset(now, this.offset, this.slide);
    return this.cache.windowsFor(lastStart, now);
  }

  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return ProcessingTimeTrigger.create();
  }

  getWindowSerializer(): NamespaceSerializer<TimeWindow> {
    return fixedSizeTimeWindowSerializer;
  }

  isEventTime(): boolean {
    return false;
  }

  override toString(): string {
    return `SlidingProcessingTimeWindows(${this.size}, ${this.slide})`;
  }
}
