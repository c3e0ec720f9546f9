// EventTimeSessionWindows: per-key sessions by element timestamp, closed after a gap of inactivity.
import { ConfigurationError } from '../../core/errors.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { MergingWindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import {
  DynamicEventTimeSessionWindows,
  type SessionWindowTimeGapExtractor,
} from './dynamic-event-time-session-windows.ts';
import { requireTimestamp } from './require-timestamp.ts';

/**
 * Session windows in event time, as Flink's `EventTimeSessionWindows`: each element opens the window
 * `[timestamp, timestamp + gap)`, and windows of one key that overlap or touch merge. A session therefore ends
 * `gap` ms after its last element and fires when the watermark passes that point.
 *
 * @example
 * keyed.window(EventTimeSessionWindows.withGap(Time.minutes(30))).process(summarizeSession)
 * // elements at 0, 1000, 2500 with gap 3000 → one window [0, 5500), emitted at 5499
 */
export class EventTimeSessionWindows extends MergingWindowAssigner<unknown, TimeWindow> {
  protected constructor(readonly sessionTimeout: number) {
    super();
    if (!(sessionTimeout > 0)) {
      throw new ConfigurationError(
        `EventTimeSessionWindows parameters must satisfy 0 < size, got ${sessionTimeout}`,
      );
    }
  }

  /** Sessions that close after `gap` ms without elements. */
  static withGap(gap: number): EventTimeSessionWindows {
    return new EventTimeSessionWindows(gap);
  }

  /** Sessions whose gap each element decides (see {@link DynamicEventTimeSessionWindows}). */
  static withDynamicGap<T>(extractor: SessionWindowTimeGapExtractor<T>): DynamicEventTimeSessionWindows<T> {
    return DynamicEventTimeSessionWindows.withDynamicGap(extractor);
  }

  assignWindows(
    _element: unknown,
    timestamp: number,
    _context: WindowAssignerContext,
  ): readonly TimeWindow[] {
    requireTimestamp(timestamp);
    return [new TimeWindow(timestamp, timestamp + this.sessionTimeout)];
  }

  mergeWindows(
    windows: readonly TimeWindow[],
    callback: (toBeMerged: TimeWindow[], mergeResult: TimeWindow) => void,
  ): void {
    TimeWindow.mergeWindows(windows, callback);
  }

  /** Sessions merge exactly when they touch or overlap, as `TimeWindow.mergeWindows` decides. */
  override mergesIntersectingTimeWindows(): boolean {
    return true;
  }

  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return EventTimeTrigger.create();
  }

  getWindowSerializer(): NamespaceSerializer<TimeWindow> {
    return timeWindowSerializer;
  }

  isEventTime(): boolean {
    return true;
  }

  override toString(): string {
    return `EventTimeSessionWindows(${this.sessionTimeout})`;
  }
}
