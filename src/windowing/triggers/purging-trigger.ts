// PurgingTrigger: turns every FIRE of a nested trigger into FIRE_AND_PURGE.
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Wraps a trigger so that whenever it fires, the pane is also purged, as Flink's `PurgingTrigger`: each firing
 * then covers only the elements since the previous one. Other results pass through unchanged.
 *
 * @example
 * keyed.countWindow(100) // is window(GlobalWindows.create()).trigger(PurgingTrigger.of(CountTrigger.of(100)))
 */
export class PurgingTrigger<T, W extends Window> extends Trigger<T, W> {
  private constructor(readonly nestedTrigger: Trigger<T, W>) {
    super();
  }

  static of<T, W extends Window>(nestedTrigger: Trigger<T, W>): PurgingTrigger<T, W> {
    return new PurgingTrigger(nestedTrigger);
  }

  onElement(element: T, timestamp: number, window: W, ctx: TriggerContext): TriggerResult {
    const result = this.nestedTrigger.onElement(element, timestamp, window, ctx);
    return (result & TriggerResult.FIRE) !== 0 ? TriggerResult.FIRE_AND_PURGE : result;
  }

  onEventTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    const result = this.nestedTrigger.onEventTime(time, window, ctx);
    return (result & TriggerResult.FIRE) !== 0 ? TriggerResult.FIRE_AND_PURGE : result;
  }

  onProcessingTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    const result = this.nestedTrigger.onProcessingTime(time, window, ctx);
    return (result & TriggerResult.FIRE) !== 0 ? TriggerResult.FIRE_AND_PURGE : result;
  }

  clear(window: W, ctx: TriggerContext): void {
    this.nestedTrigger.clear(window, ctx);
  }

  override canMerge(): boolean {
    return this.nestedTrigger.canMerge();
  }

  override onMerge(window: W, ctx: OnMergeContext): void {
    this.nestedTrigger.onMerge(window, ctx);
  }

  override toString(): string {
    return `PurgingTrigger(${String(this.nestedTrigger)})`;
  }
}
