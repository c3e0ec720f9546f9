// ProcessingTimeoutTrigger: fires a nested trigger's window after a processing-time timeout, if it has not fired.
import { ConfigurationError } from '../../core/errors.ts';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { Trigger, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Adds a processing-time timeout to any trigger, as Flink's `ProcessingTimeoutTrigger`. The first element of a
 * pane starts a timer `timeout` ms ahead on the clock; when it expires the pane fires (or fires and purges, if
 * the nested trigger purged). When the nested trigger fires first, the timeout is cleared.
 *
 * - `resetTimerOnNewRecord`: every element restarts the timeout (an inactivity timeout).
 * - `shouldClearOnTimeout`: call `clear` (of this trigger and the nested one) when the timeout fires, so the
 *   next element starts afresh. `of(trigger, timeout)` sets it, as Flink does.
 *
 * @example
 * // Emit every 100 elements, or 5 s after the first element of a batch, whichever comes first
 * keyed.window(GlobalWindows.create())
 *   .trigger(PurgingTrigger.of(ProcessingTimeoutTrigger.of(CountTrigger.of(100), 5000)))
 *   .process(flushBatch)
 */
export class ProcessingTimeoutTrigger<T, W extends Window> extends Trigger<T, W> {
  private readonly timeoutStateDesc = new ValueStateDescriptor<number>('timeout');

  private constructor(
    readonly nestedTrigger: Trigger<T, W>,
    readonly interval: number,
    readonly resetTimerOnNewRecord: boolean,
    readonly shouldClearOnTimeout: boolean,
  ) {
    super();
    if (!(interval > 0))
      throw new ConfigurationError(`ProcessingTimeoutTrigger needs a positive timeout, got ${interval}`);
  }

  /**
   * @param timeout processing-time ms after the first element (or the last, with `resetTimerOnNewRecord`)
   * @param resetTimerOnNewRecord restart the timeout on every element (default false)
   * @param shouldClearOnTimeout clear this trigger and the nested one when the timeout fires (default true)
   */
  static of<T, W extends Window>(
    nestedTrigger: Trigger<T, W>,
    timeout: number,
    resetTimerOnNewRecord = false,
    shouldClearOnTimeout = true,
  ): ProcessingTimeoutTrigger<T, W> {
    return new ProcessingTimeoutTrigger(nestedTrigger, timeout, resetTimerOnNewRecord, shouldClearOnTimeout);
  }

  onElement(element: T, timestamp: number, window: W, ctx: TriggerContext): TriggerResult {
    const result = this.nestedTrigger.onElement(element, timestamp, window, ctx);
    if ((result & TriggerResult.FIRE) !== 0) {
      this.clear(window, ctx);
      return result;
    }
    const timeoutState = ctx.getPartitionedState(this.timeoutStateDesc);
    const nextFireTimestamp = ctx.getCurrentProcessingTime() + this.interval;
    let timeoutTimestamp = timeoutState.value();
    if (timeoutTimestamp !== undefined && this.resetTimerOnNewRecord) {
      ctx.deleteProcessingTimeTimer(timeoutTimestamp);
      timeoutState.clear();
      timeoutTimestamp = undefined;
    }
    if (timeoutTimestamp === undefined) {
      timeoutState.update(nextFireTimestamp);
      ctx.registerProcessingTimeTimer(nextFireTimestamp);
    }
    return result;
  }

  onProcessingTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    const result = this.nestedTrigger.onProcessingTime(time, window, ctx);
    if (this.shouldClearOnTimeout) this.clear(window, ctx);
    return (result & TriggerResult.PURGE) !== 0 ? TriggerResult.FIRE_AND_PURGE : TriggerResult.FIRE;
  }

  onEventTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    // Flink fires on any event-time timer too (e.g. a nested EventTimeTrigger's): the timeout trigger only ever
    // answers FIRE or FIRE_AND_PURGE from a timer callback.
    const result = this.nestedTrigger.onEventTime(time, window, ctx);
    if (this.shouldClearOnTimeout) this.clear(window, ctx);
    return (result & TriggerResult.PURGE) !== 0 ? TriggerResult.FIRE_AND_PURGE : TriggerResult.FIRE;
  }

  clear(window: W, ctx: TriggerContext): void {
    const timeoutState = ctx.getPartitionedState(this.timeoutStateDesc);
    const timeoutTimestamp = timeoutState.value();
    if (timeoutTimestamp !== undefined) {
      ctx.deleteProcessingTimeTimer(timeoutTimestamp);
      timeoutState.clear();
    }
    this.nestedTrigger.clear(window, ctx);
  }

  override toString(): string {
    return `TimeoutTrigger(${String(this.nestedTrigger)})`;
  }
}
