// EndOfStreamTrigger: fires a global window once, when the final watermark marks the end of a bounded input.
import { GlobalWindow } from '../global-window.ts';
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';

/**
 * Fires once at the end of the input, as Flink's `GlobalWindows.EndOfStreamTrigger` (Flink 1.19+): it registers
 * an event-time timer at the global window's max timestamp (the end of time), which only the final watermark
 * (`MAX_WATERMARK`) a bounded input emits at its end can reach.
 *
 * @example
 * keyed.window(GlobalWindows.createWithEndOfStreamTrigger()).reduce(sum) // one total per key, at the end
 */
export class EndOfStreamTrigger extends Trigger<unknown, GlobalWindow> {
  onElement(_element: unknown, _timestamp: number, window: GlobalWindow, ctx: TriggerContext): TriggerResult {
    ctx.registerEventTimeTimer(window.maxTimestamp());
    return TriggerResult.CONTINUE;
  }

  onEventTime(time: number, window: GlobalWindow, _ctx: TriggerContext): TriggerResult {
    return time === window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
  }

  onProcessingTime(_time: number, _window: GlobalWindow, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  clear(_window: GlobalWindow, _ctx: TriggerContext): void {}

  override onMerge(_window: GlobalWindow, _ctx: OnMergeContext): void {}

  override toString(): string {
    return 'EndOfStreamTrigger()';
  }
}
