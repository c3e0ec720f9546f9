// NeverTrigger: the default trigger of GlobalWindows, which never fires.
import { GlobalWindow } from '../global-window.ts';
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';

/**
 * A trigger that never fires, as Flink's `GlobalWindows.NeverTrigger`: global windows need an explicit trigger
 * (count, delta, …) to produce anything.
 *
 * @example
 * GlobalWindows.create().getDefaultTrigger(); // NeverTrigger
 */
export class NeverTrigger extends Trigger<unknown, GlobalWindow> {
  onElement(
    _element: unknown,
    _timestamp: number,
    _window: GlobalWindow,
    _ctx: TriggerContext,
  ): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  onEventTime(_time: number, _window: GlobalWindow, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  onProcessingTime(_time: number, _window: GlobalWindow, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  clear(_window: GlobalWindow, _ctx: TriggerContext): void {}

  override onMerge(_window: GlobalWindow, _ctx: OnMergeContext): void {}

  override toString(): string {
    return 'NeverTrigger()';
  }
}
