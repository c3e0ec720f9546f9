// ContinuousProcessingTimeTrigger: fires every `interval` of processing time while a window is open.
import { ConfigurationError } from '../../core/errors.ts';
import { ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Fires every `interval` ms of processing time (aligned to multiples of the interval, never later than the
 * window's max timestamp), as Flink's `ContinuousProcessingTimeTrigger`. The next firing time lives in
 * partitioned state ("fire-time").
 *
 * @example
 * keyed.window(GlobalWindows.create()).trigger(ContinuousProcessingTimeTrigger.of(Time.seconds(10))).reduce(sum)
 */
export class ContinuousProcessingTimeTrigger<W extends Window = Window> extends Trigger<unknown, W> {
  private readonly stateDesc = new ReducingStateDescriptor<number>('fire-time', Math.min);

  private constructor(readonly interval: number) {
    super();
    if (!(interval > 0)) {
      throw new ConfigurationError(
        `ContinuousProcessingTimeTrigger needs a positive interval, got ${interval}`,
      );
    }
  }

  static of<W extends Window = Window>(interval: number): ContinuousProcessingTimeTrigger<W> {
    return new ContinuousProcessingTimeTrigger<W>(interval);
  }

  onElement(_element: unknown, _timestamp: number, window: W, ctx: TriggerContext): TriggerResult {
    const fireTimestamp = ctx.getPartitionedState(this.stateDesc);
    const now = ctx.getCurrentProcessingTime();
    if (fireTimestamp.get() === undefined)
      this.registerNextFireTimestamp(now - (now % this.interval), window, ctx);
    return TriggerResult.CONTINUE;
  }

  onEventTime(_time: number, _window: W, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  onProcessingTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    const fireTimestampState = ctx.getPartitionedState(this.stateDesc);
    if (fireTimestampState.get() === time) {
      fireTimestampState.clear();
      // At the window's max timestamp the next fire time would be this one again, a time the clock has passed: the
      // timer would fire at once, for ever, in an event-time window (whose cleanup waits for the watermark). The
      // next element of the pane starts the fire times again.
      if (time < window.maxTimestamp()) this.registerNextFireTimestamp(time, window, ctx);
      return TriggerResult.FIRE;
    }
    return TriggerResult.CONTINUE;
  }

  clear(_window: W, ctx: TriggerContext): void {
    const fireTimestamp = ctx.getPartitionedState(this.stateDesc);
    const timestamp = fireTimestamp.get();
    if (timestamp !== undefined) {
      ctx.deleteProcessingTimeTimer(timestamp);
      fireTimestamp.clear();
    }
  }

  override canMerge(): boolean {
    return true;
  }

  override onMerge(_window: W, ctx: OnMergeContext): void {
    // The states of the merged windows are gone after this call; register the timer of the merged window.
    ctx.mergePartitionedState(this.stateDesc);
    const nextFireTimestamp = ctx.getPartitionedState(this.stateDesc).get();
    if (nextFireTimestamp !== undefined) ctx.registerProcessingTimeTimer(nextFireTimestamp);
  }

  private registerNextFireTimestamp(time: number, window: W, ctx: TriggerContext): void {
    const nextFireTimestamp = Math.min(time + this.interval, window.maxTimestamp());
    ctx.getPartitionedState(this.stateDesc).add(nextFireTimestamp);
    ctx.registerProcessingTimeTimer(nextFireTimestamp);
  }

  override toString(): string {
    return `ContinuousProcessingTimeTrigger(${this.interval})`;
  }
}
