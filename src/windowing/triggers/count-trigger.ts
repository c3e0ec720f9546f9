// CountTrigger: fires every `maxCount` elements of a pane.
import { ConfigurationError } from '../../core/errors.ts';
import { ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Fires once a pane has received `maxCount` elements since it last fired, as Flink's `CountTrigger`. The count
 * lives in partitioned state ("count") and restarts after each firing; it never purges, so wrap it in
 * {@link PurgingTrigger} for tumbling count windows.
 *
 * @example
 * keyed.window(GlobalWindows.create()).trigger(PurgingTrigger.of(CountTrigger.of(100))).reduce(sum)
 */
export class CountTrigger<W extends Window = Window> extends Trigger<unknown, W> {
  private readonly stateDesc = new ReducingStateDescriptor<number>('count', (a, b) => a + b);

  private constructor(readonly maxCount: number) {
    super();
    if (!(maxCount > 0)) throw new ConfigurationError(`CountTrigger needs a positive count, got ${maxCount}`);
  }

  static of<W extends Window = Window>(maxCount: number): CountTrigger<W> {
    return new CountTrigger<W>(maxCount);
  }

  onElement(_element: unknown, _timestamp: number, _window: W, ctx: TriggerContext): TriggerResult {
    const count = ctx.getPartitionedState(this.stateDesc);
    count.add(1);
    if (count.get()! >= this.maxCount) {
      count.clear();
      return TriggerResult.FIRE;
    }
    return TriggerResult.CONTINUE;
  }

  onEventTime(_time: number, _window: W, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  onProcessingTime(_time: number, _window: W, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  clear(_window: W, ctx: TriggerContext): void {
    ctx.getPartitionedState(this.stateDesc).clear();
  }

  override canMerge(): boolean {
    return true;
  }

  override onMerge(_window: W, ctx: OnMergeContext): void {
    // The merged session's count is the sum of its parts; it fires on the next element if that reaches maxCount.
    ctx.mergePartitionedState(this.stateDesc);
  }

  override toString(): string {
    return `CountTrigger(${this.maxCount})`;
  }
}
