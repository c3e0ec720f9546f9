// DynamicEventTimeSessionWindows: event-time sessions whose gap is chosen per element.
import { IllegalStateError } from '../../core/errors.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { MergingWindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import { requireTimestamp } from './require-timestamp.ts';

/** Returns the session gap (ms, > 0) an element opens, as Flink's `SessionWindowTimeGapExtractor`. */
export type SessionWindowTimeGapExtractor<T> = (element: T) => number;

/** Calls the extractor and rejects a gap that is not positive, with Flink's message. */
export function extractGap<T>(extractor: SessionWindowTimeGapExtractor<T>, element: T): number {
  const gap = extractor(element);
  if (!(gap > 0)) throw new IllegalStateError(`Dynamic session time gap must satisfy 0 < gap, got ${gap}`);
  return gap;
}

/**
 * Event-time sessions whose gap each element decides, as Flink's `DynamicEventTimeSessionWindows`: an element
 * opens `[timestamp, timestamp + extractor(element))` and overlapping windows merge, so the furthest end wins.
 *
 * @example
 * keyed.window(EventTimeSessionWindows.withDynamicGap((e: Click) => (e.premium ? 60_000 : 10_000)))
 */
export class DynamicEventTimeSessionWindows<T> extends MergingWindowAssigner<T, TimeWindow> {
  protected constructor(readonly sessionWindowTimeGapExtractor: SessionWindowTimeGapExtractor<T>) {
    super();
  }

  static withDynamicGap<T>(extractor: SessionWindowTimeGapExtractor<T>): DynamicEventTimeSessionWindows<T> {
    return new DynamicEventTimeSessionWindows(extractor);
  }

  assignWindows(element: T, timestamp: number, _context: WindowAssignerContext): readonly TimeWindow[] {
    requireTimestamp(timestamp);
    return [new TimeWindow(timestamp, timestamp + extractGap(this.sessionWindowTimeGapExtractor, element))];
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

  getDefaultTrigger(): Trigger<T, TimeWindow> {
    return EventTimeTrigger.create();
  }

  getWindowSerializer(): NamespaceSerializer<TimeWindow> {
    return timeWindowSerializer;
  }

  isEventTime(): boolean {
    return true;
  }

  override toString(): string {
    return 'DynamicEventTimeSessionWindows()';
  }
}
