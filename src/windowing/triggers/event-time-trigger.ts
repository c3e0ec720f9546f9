// EventTimeTrigger: fires once the watermark passes the end of the window (the default of event-time assigners).
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

/**
 * Fires when the watermark passes the window's max timestamp, as Flink's `EventTimeTrigger`. An element that
 * arrives when the watermark is already past the window (possible within allowed lateness) fires at once, so a
 * late element updates the result immediately.
 *
 * @example
 * keyed.window(TumblingEventTimeWindows.of(1000)).trigger(EventTimeTrigger.create())
 */
export class EventTimeTrigger extends Trigger<unknown, Window> {
  private static readonly INSTANCE = new EventTimeTrigger();

  private constructor() {
    super();
  }

  static create(): EventTimeTrigger {
    return EventTimeTrigger.INSTANCE;
  }

  onElement(_element: unknown, _timestamp: number, window: Window, ctx: TriggerContext): TriggerResult {
    const maxTimestamp = window.maxTimestamp();
    if (maxTimestamp <= ctx.getCurrentWatermark()) {
      // The watermark is already past the window: fire immediately.
      return TriggerResult.FIRE;
    }
    ctx.registerEventTimeTimer(maxTimestamp);
    return TriggerResult.CONTINUE;
  }

  onEventTime(time: number, window: Window, _ctx: TriggerContext): TriggerResult {
    // Other event-time timers of this window (the operator's cleanup timer) must not fire it.
    return time === window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
  }

  onProcessingTime(_time: number, _window: Window, _ctx: TriggerContext): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  /** The window operator's fast path relies on this trigger's behaviour, spelled out in the base contract. */
  override firesOnlyAtWindowEnd(): boolean {
    return true;
  }

  override canMerge(): boolean {
    return true;
  }

  override onMerge(window: Window, ctx: OnMergeContext): void {
    // Only register a timer if the watermark is not yet past the end of the merged window. If it is, the timer
    // would fire at once on the next watermark while onElement already fires for the element that merged.
    const maxTimestamp = window.maxTimestamp();
    if (maxTimestamp > ctx.getCurrentWatermark()) ctx.registerEventTimeTimer(maxTimestamp);
  }

  clear(window: Window, ctx: TriggerContext): void {
    ctx.deleteEventTimeTimer(window.maxTimestamp());
  }

  override toString(): string {
    return 'EventTimeTrigger()';
  }
}
