// CountOrEndOfWindowTrigger: a user-written trigger that fires at the end of the window and early every N events.
import { ReducingStateDescriptor } from '../../src/core/state-descriptor.ts';
import {
  Trigger,
  TriggerResult,
  type OnMergeContext,
  type TimeWindow,
  type TriggerContext,
} from '../../src/index.ts';

/**
 * "Every 12 hours or every 500 events, whichever comes first", as a window trigger: the window's end (event
 * time) fires the final result, and every `maxCount` events since the last firing fire an early one. The count
 * lives in partitioned state, so it is per user and per window, snapshotted, and cleared with the window.
 */
export class CountOrEndOfWindowTrigger extends Trigger<unknown, TimeWindow> {
  private readonly count = new ReducingStateDescriptor<number>('early-count', (a, b) => a + b);

  constructor(readonly maxCount: number) {
    super();
  }

  onElement(_element: unknown, _timestamp: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
    // Late elements (within the allowed lateness) update the result at once, as EventTimeTrigger does.
    if (window.maxTimestamp() <= ctx.getCurrentWatermark()) return TriggerResult.FIRE;
    ctx.registerEventTimeTimer(window.maxTimestamp());
    const count = ctx.getPartitionedState(this.count);
    count.add(1);
    if (count.get()! >= this.maxCount) {
      count.clear();
      return TriggerResult.FIRE;
    }
    return TriggerResult.CONTINUE;
  }

  onEventTime(time: number, window: TimeWindow, _ctx: TriggerContext): TriggerResult {
    return time === window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
  }

  onProcessingTime(): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  override canMerge(): boolean {
    return true;
  }

  override onMerge(window: TimeWindow, ctx: OnMergeContext): void {
    ctx.mergePartitionedState(this.count);
    if (window.maxTimestamp() > ctx.getCurrentWatermark()) ctx.registerEventTimeTimer(window.maxTimestamp());
  }

  clear(window: TimeWindow, ctx: TriggerContext): void {
    ctx.deleteEventTimeTimer(window.maxTimestamp());
    ctx.getPartitionedState(this.count).clear();
  }

  override toString(): string {
    return `CountOrEndOfWindowTrigger(${this.maxCount})`;
  }
}
