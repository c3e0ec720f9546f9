// ContinuousEventTimeTrigger: fires every `interval` of event time within a window, and at its end.
import { ConfigurationError } from '../../core/errors.ts';
import { ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Fires repeatedly as the watermark advances, every `interval` ms of event time (aligned to multiples of the
 * interval), and once more at the window's end, as Flink's `ContinuousEventTimeTrigger`. The next firing time
 * lives in partitioned state ("fire-time", merged by minimum for sessions).
 *
 * @example
 * // A daily window with a running result every hour
 * keyed.window(TumblingEventTimeWindows.of(Time.days(1)))
 *   .trigger(ContinuousEventTimeTrigger.of(Time.hours(1)))
 *   .aggregate(totals)
 */
export class ContinuousEventTimeTrigger<W extends Window = Window> extends Trigger<unknown, W> {
  private readonly stateDesc = new ReducingStateDescriptor<number>('fire-time', Math.min);

  private constructor(readonly interval: number) {
    super();
    if (!(interval > 0))
      throw new ConfigurationError(`ContinuousEventTimeTrigger needs a positive interval, got ${interval}`);
  }

  static of<W extends Window = Window>(interval: number): ContinuousEventTimeTrigger<W> {
    return new ContinuousEventTimeTrigger<W>(interval);
  }

  onElement(_element: unknown, timestamp: number, window: W, ctx: TriggerContext): TriggerResult {
    if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {
      // The watermark is already past the window: fire immediately.
      return TriggerResult.FIRE;
    }
    ctx.registerEventTimeTimer(window.maxTimestamp());
    const fireTimestamp = ctx.getPartitionedState(this.stateDesc);
    if (fireTimestamp.get() === undefined) {
      this.registerNextFireTimestamp(timestamp - (timestamp % this.interval), window, ctx);
    }
    return TriggerResult.CONTINUE;
  }

  onEventTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    if (time === window.maxTimestamp()) return TriggerResult.FIRE;
    const fireTimestampState = ctx.getPartitionedState(this.stateDesc);
    // No fire time (a late pane, or a merged-away window) never equals a timer's time.
    if (fireTimestampState.get() === time) {
      fireTimestampState.clear();
      this.registerNextFireTimestamp(time, window, ctx);
      return TriggerResult.FIRE;
    }
    return TriggerResult.CONTINUE;
  }

  onProcessingTime(_time: number, _window: W, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  clear(_window: W, ctx: TriggerContext): void {
    const fireTimestamp = ctx.getPartitionedState(this.stateDesc);
    const timestamp = fireTimestamp.get();
    if (timestamp !== undefined) {
      ctx.deleteEventTimeTimer(timestamp);
      fireTimestamp.clear();
    }
  }

  override canMerge(): boolean {
    return true;
  }

  override onMerge(_window: W, ctx: OnMergeContext): void {
    ctx.mergePartitionedState(this.stateDesc);
    const nextFireTimestamp = ctx.getPartitionedState(this.stateDesc).get();
    if (nextFireTimestamp !== undefined) ctx.registerEventTimeTimer(nextFireTimestamp);
  }

  private registerNextFireTimestamp(time: number, window: W, ctx: TriggerContext): void {
    const nextFireTimestamp = Math.min(time + this.interval, window.maxTimestamp());
    ctx.getPartitionedState(this.stateDesc).add(nextFireTimestamp);
    ctx.registerEventTimeTimer(nextFireTimestamp);
  }

  override toString(): string {
    return `ContinuousEventTimeTrigger(${this.interval})`;
  }
}
