// ProcessingTimeSessionWindows: per-key sessions by the processing-time clock, closed after a gap of inactivity.
import { ConfigurationError } from '../../core/errors.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { ProcessingTimeTrigger } from '../triggers/processing-time-trigger.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { MergingWindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import { DynamicProcessingTimeSessionWindows } from './dynamic-processing-time-session-windows.ts';
import type { SessionWindowTimeGapExtractor } from './dynamic-event-time-session-windows.ts';

/**
 * Session windows in processing time, as Flink's `ProcessingTimeSessionWindows`: each element opens
 * `[now, now + gap)` on the operator's clock; overlapping windows of a key merge, and a session fires once the
 * clock passes its end.
 *
 * @example
 * keyed.window(ProcessingTimeSessionWindows.withGap(Time.seconds(30))).reduce(merge)
 */
export class ProcessingTimeSessionWindows extends MergingWindowAssigner<unknown, TimeWindow> {
  protected constructor(readonly sessionTimeout: number) {
    super();
    if (!(sessionTimeout > 0)) {
      throw new ConfigurationError(
        `ProcessingTimeSessionWindows parameters must satisfy 0 < size, got ${sessionTimeout}`,
      );
    }
  }

  static withGap(gap: number): ProcessingTimeSessionWindows {
    return new ProcessingTimeSessionWindows(gap);
  }

  static withDynamicGap<T>(
    extractor: SessionWindowTimeGapExtractor<T>,
  ): DynamicProcessingTimeSessionWindows<T> {
    return DynamicProcessingTimeSessionWindows.withDynamicGap(extractor);
  }

  assignWindows(
    _element: unknown,
    _timestamp: number,
    context: WindowAssignerContext,
  ): readonly TimeWindow[] {
    const now = context.getCurrentProcessingTime();
    return [new TimeWindow(now, now + this.sessionTimeout)];
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
    return ProcessingTimeTrigger.create();
  }

  getWindowSerializer(): NamespaceSerializer<TimeWindow> {
    return timeWindowSerializer;
  }

  isEventTime(): boolean {
    return false;
  }

  override toString(): string {
    return `ProcessingTimeSessionWindows(${this.sessionTimeout})`;
  }
}
