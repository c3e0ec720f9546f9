// DynamicProcessingTimeSessionWindows: processing-time sessions whose gap is chosen per element.
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { Trigger } from '../trigger.ts';
import { ProcessingTimeTrigger } from '../triggers/processing-time-trigger.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { MergingWindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import { extractGap, type SessionWindowTimeGapExtractor } from './dynamic-event-time-session-windows.ts';

/**
 * Processing-time sessions whose gap each element decides, as Flink's `DynamicProcessingTimeSessionWindows`:
 * an element opens `[now, now + extractor(element))` on the operator's clock.
 *
 * @example
 * keyed.window(ProcessingTimeSessionWindows.withDynamicGap((e: Job) => e.timeoutMs))
 */
export class DynamicProcessingTimeSessionWindows<T> extends MergingWindowAssigner<T, TimeWindow> {
  protected constructor(readonly sessionWindowTimeGapExtractor: SessionWindowTimeGapExtractor<T>) {
    super();
  }

  static withDynamicGap<T>(
    extractor: SessionWindowTimeGapExtractor<T>,
  ): DynamicProcessingTimeSessionWindows<T> {
    return new DynamicProcessingTimeSessionWindows(extractor);
  }

  assignWindows(element: T, _timestamp: number, context: WindowAssignerContext): readonly TimeWindow[] {
    const now = context.getCurrentProcessingTime();
    return [new TimeWindow(now, now + extractGap(this.sessionWindowTimeGapExtractor, element))];
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
    return ProcessingTimeTrigger.create();
  }

  getWindowSerializer(): NamespaceSerializer<TimeWindow> {
    return timeWindowSerializer;
  }

  isEventTime(): boolean {
    return false;
  }

  override toString(): string {
    return 'DynamicProcessingTimeSessionWindows()';
  }
}
