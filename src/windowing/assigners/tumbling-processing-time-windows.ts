// TumblingProcessingTimeWindows: fixed-size, non-overlapping windows by the operator's processing-time clock.
import { ConfigurationError } from '../../core/errors.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { ProcessingTimeTrigger } from '../triggers/processing-time-trigger.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../time-window.ts';
import { WindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import { WindowListCache } from './window-list-cache.ts';

/**
 * Puts each element into the window of `size` milliseconds that contains the current processing time (the
 * element's timestamp is ignored), as Flink's `TumblingProcessingTimeWindows`. The default trigger fires when
 * the clock passes the window's end.
 *
 * @example
 * keyed.window(TumblingProcessingTimeWindows.of(Time.seconds(10))).reduce((a, b) => a + b)
 */
export class TumblingProcessingTimeWindows extends WindowAssigner<unknown, TimeWindow> {
  private readonly cache: WindowListCache;

  protected constructor(
    readonly size: number,
    readonly offset: number,
  ) {
    super();
    if (!(Math.abs(offset) < size)) {
      throw new ConfigurationError(
        `TumblingProcessingTimeWindows parameters must satisfy abs(offset) < size, got size ${size} and offset ${offset}`,
      );
    }
    this.cache = new WindowListCache(size, size);
  }

  static of(size: number, offset = 0): TumblingProcessingTimeWindows {
    return new TumblingProcessingTimeWindows(size, offset);
  }

  assignWindows(
    _element: unknown,
    _timestamp: number,
    context: WindowAssignerContext,
  ): readonly TimeWindow[] {
    const now = context.getCurrentProcessingTime();
    const start = TimeWindow.getWindowStartWithOffset(now, this.offset, this.size);
    return this.cache.windowsFor(start, start);
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
    return `TumblingProcessingTimeWindows(${this.size})`;
  }
}
