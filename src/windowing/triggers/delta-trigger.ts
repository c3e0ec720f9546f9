// DeltaTrigger: fires when an element is more than a threshold away from the element of the last firing.
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import type { TypeSerializer } from '../../core/type-serializer.ts';
import type { DeltaFunction } from '../delta-function.ts';
import { Trigger, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Fires when the delta between the current element and a reference element exceeds `threshold`, as Flink's
 * `DeltaTrigger`. The first element of a pane becomes the reference. Note what the reference is: the element
 * of the last *firing*, not the previous element — it is replaced only when the trigger fires, so a slow drift
 * of many small steps fires once the sum of the steps passes the threshold.
 *
 * DeltaTrigger cannot be used with merging (session) windows.
 *
 * @example
 * // Emit the window whenever the price moved more than 5 since the last emission
 * keyed.window(GlobalWindows.create())
 *   .trigger(DeltaTrigger.of(5, (a: Tick, b: Tick) => Math.abs(a.price - b.price)))
 *   .process(emitLatest)
 */
export class DeltaTrigger<T, W extends Window = Window> extends Trigger<T, W> {
  private readonly stateDesc: ValueStateDescriptor<T>;

  private constructor(
    readonly threshold: number,
    readonly deltaFunction: DeltaFunction<T>,
    stateSerializer?: TypeSerializer<T>,
  ) {
    super();
    this.stateDesc = new ValueStateDescriptor<T>(
      'last-element',
      stateSerializer ? { serializer: stateSerializer } : {},
    );
  }

  /**
   * @param threshold fire when the delta is strictly greater than this
   * @param deltaFunction the distance between the reference element and a new one
   * @param stateSerializer how the reference element is snapshotted (default: structured clone)
   */
  static of<T, W extends Window = Window>(
    threshold: number,
    deltaFunction: DeltaFunction<T>,
    stateSerializer?: TypeSerializer<T>,
  ): DeltaTrigger<T, W> {
    return new DeltaTrigger<T, W>(threshold, deltaFunction, stateSerializer);
  }

  onElement(element: T, _timestamp: number, _window: W, ctx: TriggerContext): TriggerResult {
    const lastElementState = ctx.getPartitionedState(this.stateDesc);
    const last = lastElementState.value();
    if (last === undefined) {
      // The first element of the pane becomes the reference.
      lastElementState.update(element);
      return TriggerResult.CONTINUE;
    }
    if (this.deltaFunction(last, element) > this.threshold) {
      // Only a firing replaces the reference element.
      lastElementState.update(element);
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

  override toString(): string {
    return `DeltaTrigger(${this.deltaFunction.name || 'deltaFunction'}, ${this.threshold})`;
  }
}
