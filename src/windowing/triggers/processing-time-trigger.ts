// ProcessingTimeTrigger: fires once the processing-time clock passes the end of the window.
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Fires when the operator's processing-time clock reaches the window's max timestamp, as Flink's
 * `ProcessingTimeTrigger` (the default of processing-time assigners).
 *
 * @example
 * keyed.window(TumblingProcessingTimeWindows.of(5000)).trigger(ProcessingTimeTrigger.create())
 */
export class ProcessingTimeTrigger extends Trigger<unknown, Window> {
  private static readonly INSTANCE = new ProcessingTimeTrigger();

  private constructor() {
    super();
  }

  static create(): ProcessingTimeTrigger {
    return ProcessingTimeTrigger.INSTANCE;
  }

  onElement(_element: unknown, _timestamp: number, window: Window, ctx: TriggerContext): TriggerResult {
    ctx.registerProcessingTimeTimer(window.maxTimestamp());
    return TriggerResult.CONTINUE;
  }

  onEventTime(_time: number, _window: Window, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  onProcessingTime(_time: number, _window: Window, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.FIRE;
  }

  override canMerge(): boolean {
    return true;
  }

  override onMerge(window: Window, ctx: OnMergeContext): void {
    // As EventTimeTrigger: no timer for a merged window whose end the clock has already passed.
    const maxTimestamp = window.maxTimestamp();
    if (maxTimestamp > ctx.getCurrentProcessingTime()) ctx.registerProcessingTimeTimer(maxTimestamp);
  }

  clear(window: Window, ctx: TriggerContext): void {
    ctx.deleteProcessingTimeTimer(window.maxTimestamp());
  }

  override toString(): string {
    return 'ProcessingTimeTrigger()';
  }
}
