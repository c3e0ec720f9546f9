// Evictor: removes elements from a pane before and/or after the window function runs.
import type { Window } from './window.ts';

/** An element as an evicting window keeps it: the value and its event timestamp (NaN when it has none). */
export interface TimestampedValue<T> {
  readonly value: T;
  readonly timestamp: number;
}

/** What an evictor may ask of the operator. */
export interface EvictorContext {
  getCurrentProcessingTime(): number;
  getCurrentWatermark(): number;
}

/**
 * Removes elements from a pane when its trigger fires, as Flink's `Evictor`: `evictBefore` runs before the
 * window function (it sees only what is left), `evictAfter` after it. Whatever remains stays in the window for
 * the next firing.
 *
 * An evictor removes elements by deleting them from the `elements` array in place (e.g. with
 * {@link removeElementsWhere}); `elements` is in arrival order. With an evictor the operator must keep every
 * element (no incremental aggregation), as in Flink.
 *
 * @example
 * // Keep only elements of the last 10 seconds (by element timestamp) before evaluating
 * keyed.window(GlobalWindows.create()).evictor(TimeEvictor.of(10_000)).trigger(CountTrigger.of(10)).process(f)
 */
export interface Evictor<T, W extends Window> {
  evictBefore(elements: TimestampedValue<T>[], size: number, window: W, ctx: EvictorContext): void;
  evictAfter(elements: TimestampedValue<T>[], size: number, window: W, ctx: EvictorContext): void;
}

/** Removes, in place and keeping order, every element for which `predicate` holds. O(n). */
export function removeElementsWhere<T>(
  elements: T[],
  predicate: (element: T, index: number) => boolean,
): void {
  let kept = 0;
  for (let i = 0; i < elements.length; i++) {
    const e = elements[i]!;
    if (!predicate(e, i)) elements[kept++] = e;
  }
  elements.length = kept;
}
