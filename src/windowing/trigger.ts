// Trigger: decides when a pane (the elements of one key in one window) is evaluated and when it is purged.
import { IllegalStateError } from '../core/errors.ts';
import type { State } from '../core/state.ts';
import type { StateDescriptor } from '../core/state-descriptor.ts';
import type { TriggerResult } from './trigger-result.ts';
import type { Window } from './window.ts';

/**
 * What a trigger sees of the operator, as Flink's `Trigger.TriggerContext`. Everything is scoped to the current
 * pane: state is partitioned by (key, window) and timers are registered for (key, window).
 */
export interface TriggerContext {
  getCurrentProcessingTime(): number;
  getCurrentWatermark(): number;
  /** Calls `onProcessingTime(time, window)` when the processing-time clock reaches `time`. */
  registerProcessingTimeTimer(time: number): void;
  /** Calls `onEventTime(time, window)` when the watermark reaches `time`. */
  registerEventTimeTimer(time: number): void;
  deleteProcessingTimeTimer(time: number): void;
  deleteEventTimeTimer(time: number): void;
  /**
   * State of the current (key, window), created on first use. A trigger keeps its state here, never in fields:
   * one trigger object serves every pane.
   */
  getPartitionedState<S extends State>(descriptor: StateDescriptor<S, any>): S;
}

/** The context of {@link Trigger.onMerge}: can also merge the partitioned state of the windows being merged. */
export interface OnMergeContext extends TriggerContext {
  /**
   * Merges the named state of every merged window into the state of the resulting window. Only reducing,
   * aggregating and list state can merge.
   */
  mergePartitionedState(descriptor: StateDescriptor<any, any>): void;
}

/**
 * Decides when a window's contents are evaluated (fired) and when they are dropped (purged), as Flink's
 * `Trigger`. The window operator calls `onElement` for every element added to a pane, `onEventTime` /
 * `onProcessingTime` when a timer the trigger registered fires, and `clear` when the window expires.
 *
 * A trigger holds no per-pane data of its own: one instance serves every key and window, so counters, last
 * elements and timestamps go into {@link TriggerContext.getPartitionedState}. `clear` must remove that state
 * and the timers the trigger registered, or they outlive the window.
 *
 * To work with merging windows (sessions) a trigger overrides `canMerge` to return true and implements
 * `onMerge`; the job is rejected when it is built otherwise.
 *
 * @example
 * // Fires at the end of the window, and early once every 100 elements.
 * class EarlyCountTrigger extends Trigger<unknown, TimeWindow> {
 *   private readonly count = new ReducingStateDescriptor<number>('early-count', (a, b) => a + b);
 *   onElement(_e: unknown, _ts: number, window: TimeWindow, ctx: TriggerContext) {
 *     ctx.registerEventTimeTimer(window.maxTimestamp());
 *     const count = ctx.getPartitionedState(this.count);
 *     count.add(1);
 *     if (count.get()! >= 100) { count.clear(); return TriggerResult.FIRE; }
 *     return TriggerResult.CONTINUE;
 *   }
 *   onEventTime(time: number, window: TimeWindow) {
 *     return time === window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
 *   }
 *   onProcessingTime() { return TriggerResult.CONTINUE; }
 *   clear(window: TimeWindow, ctx: TriggerContext) {
 *     ctx.deleteEventTimeTimer(window.maxTimestamp());
 *     ctx.getPartitionedState(this.count).clear();
 *   }
 * }
 */
export abstract class Trigger<T, W extends Window> {
  /** Called for every element added to a pane. */
  abstract onElement(element: T, timestamp: number, window: W, ctx: TriggerContext): TriggerResult;

  /** Called when a processing-time timer registered through the context fires. */
  abstract onProcessingTime(time: number, window: W, ctx: TriggerContext): TriggerResult;

  /** Called when an event-time timer registered through the context fires. */
  abstract onEventTime(time: number, window: W, ctx: TriggerContext): TriggerResult;

  /**
   * Declares that this trigger fires only when the watermark passes the window's end, as `EventTimeTrigger` does:
   * it keeps no state of its own, `onElement` registers one event-time timer at `window.maxTimestamp()` and returns
   * CONTINUE while the watermark is before it (FIRE once past it), `onEventTime` fires for that timer only, it never
   * uses processing time, `clear` only deletes that timer, and (if it can merge) `onMerge` only registers the merged
   * window's timer at its `maxTimestamp()` while the watermark is before it. The window operator then skips calls
   * whose effect would be nil (the trigger for an element joining an existing pane, a second registration of the same
   * timer), for an element that creates a pane before the watermark reaches the window's end registers that timer
   * itself instead of calling `onElement`, and moves a grown window's timer itself instead of calling `onMerge` and
   * `clear`, so results are the same, cheaper. A trigger that returns true without behaving so gets wrong results; the
   * default is false.
   */
  firesOnlyAtWindowEnd(): boolean {
    return false;
  }

  /** Whether this trigger supports merging windows; if true it must implement {@link onMerge}. */
  canMerge(): boolean {
    return false;
  }

  /**
   * Called when windows merge into `window`: re-register timers for the merged window and merge state with
   * `ctx.mergePartitionedState`.
   */
  onMerge(_window: W, _ctx: OnMergeContext): void {
    throw new IllegalStateError(`Trigger ${String(this)} does not support merging.`);
  }

  /** Removes the state and timers this trigger holds for the window; called when the window is purged for good. */
  abstract clear(window: W, ctx: TriggerContext): void;

  toString(): string {
    return `${this.constructor.name}()`;
  }
}
