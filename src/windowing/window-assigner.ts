// WindowAssigner: puts each element into zero or more windows; merging assigners (sessions) also merge windows.
import type { NamespaceSerializer } from '../state/namespace.ts';
import type { Trigger } from './trigger.ts';
import type { Window } from './window.ts';

/** What an assigner may ask of the operator: processing-time assigners read the clock here. */
export interface WindowAssignerContext {
  getCurrentProcessingTime(): number;
}

/**
 * Assigns elements to windows, as Flink's `WindowAssigner`. Besides the windows of an element it names the
 * default trigger (used when the job sets none), the time domain (which decides lateness and cleanup) and how
 * its windows serialize as state namespaces.
 *
 * `assignWindows` may return the same array object for consecutive elements of the same window(s): built-in
 * assigners cache their last result so the hot path allocates nothing per element. Callers must not keep or
 * modify the returned array.
 *
 * @example
 * stream.keyBy((e) => e.user).window(TumblingEventTimeWindows.of(Time.minutes(1)))
 */
export abstract class WindowAssigner<T, W extends Window> {
  /** The windows `element` (with event timestamp `timestamp`) belongs to. */
  abstract assignWindows(element: T, timestamp: number, context: WindowAssignerContext): readonly W[];

  /** The trigger used when `.trigger()` is not called. */
  abstract getDefaultTrigger(): Trigger<any, W>;

  /** How windows map to state namespaces (key and bytes). */
  abstract getWindowSerializer(): NamespaceSerializer<W>;

  /** True for event-time assigners: only they have late elements, allowed lateness and event-time cleanup. */
  abstract isEventTime(): boolean;
}

/**
 * An assigner whose windows can merge, as Flink's `MergingWindowAssigner` (session windows). The window operator
 * keeps the set of in-flight windows per key and merges them (and their state) as elements arrive.
 */
export abstract class MergingWindowAssigner<T, W extends Window> extends WindowAssigner<T, W> {
  /**
   * Finds the windows among `windows` that merge and calls `callback(toBeMerged, mergeResult)` once for each
   * group of more than one window.
   */
  abstract mergeWindows(windows: readonly W[], callback: (toBeMerged: W[], mergeResult: W) => void): void;

  /**
   * Whether this assigner's windows are TimeWindows that merge exactly when they intersect (touching counts)
   * into the window covering them, as `TimeWindow.mergeWindows` decides. The window operator then merges a new
   * window with a single pass over the key's in-flight windows instead of calling {@link mergeWindows} (same
   * results, no arrays or sorting per element). False by default: any other assigner is asked through
   * {@link mergeWindows}.
   */
  mergesIntersectingTimeWindows(): boolean {
    return false;
  }
}
