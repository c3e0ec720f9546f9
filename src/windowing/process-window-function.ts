// The window functions users write: ProcessWindowFunction (keyed), ProcessAllWindowFunction, and legacy apply().
import type { Collector } from '../core/functions.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { RichFunction, RuntimeContext } from '../core/runtime-context.ts';
import type { Window } from './window.ts';

/** Keyed state handles by descriptor, as Flink's `KeyedStateStore`: per window or per key (see below). */
export type KeyedStateStore = Pick<
  RuntimeContext,
  'getState' | 'getListState' | 'getMapState' | 'getReducingState' | 'getAggregatingState'
>;

/**
 * What a {@link ProcessWindowFunction} sees while it evaluates a window, as Flink's
 * `ProcessWindowFunction.Context`. One object is reused for every window: read it during the call, do not keep it.
 */
export interface ProcessWindowContext<W extends Window> {
  /** The window being evaluated. */
  readonly window: W;
  currentProcessingTime(): number;
  currentWatermark(): number;
  /**
   * Keyed state scoped to this key *and this window*: it survives between firings of the window (early and
   * late firings) and must be cleared in {@link ProcessWindowFunction.clear}. Not available with merging
   * (session) windows, as in Flink.
   */
  windowState(): KeyedStateStore;
  /** Keyed state scoped to the key only, shared by all its windows. */
  globalState(): KeyedStateStore;
  /** Emits to a side output, with the window's max timestamp. */
  output<X>(tag: OutputTag<X>, value: X): void;
}

/**
 * Evaluates a window with all its elements (or, combined with `reduce` / `aggregate`, with the single
 * pre-aggregated value), as Flink's `ProcessWindowFunction`. Results are emitted with the window's max timestamp.
 *
 * @example
 * const countPerWindow: ProcessWindowFunction<Click, string, string, TimeWindow> = {
 *   process(user, ctx, clicks, out) {
 *     out.collect(`${user}: ${clicks.length} clicks in [${ctx.window.start}, ${ctx.window.end})`);
 *   },
 * };
 * clicks.keyBy((c) => c.user).window(TumblingEventTimeWindows.of(60_000)).process(countPerWindow);
 */
export interface ProcessWindowFunction<IN, OUT, KEY, W extends Window> extends RichFunction {
  /**
   * Evaluates the window. `elements` is in arrival order; it is only valid during the call (copy it to keep it).
   */
  process(key: KEY, context: ProcessWindowContext<W>, elements: readonly IN[], out: Collector<OUT>): void;
  /** Called when the window is purged for good: clear the per-window state here. */
  clear?(context: ProcessWindowContext<W>): void;
}

/** The context of a {@link ProcessAllWindowFunction}: as {@link ProcessWindowContext}, over a non-keyed stream. */
export type ProcessAllWindowContext<W extends Window> = ProcessWindowContext<W>;

/**
 * Evaluates a window of a non-keyed stream (`windowAll`), as Flink's `ProcessAllWindowFunction`.
 *
 * @example
 * stream.windowAll(TumblingEventTimeWindows.of(1000)).process({
 *   process(ctx, elements, out) { out.collect(elements.length); },
 * });
 */
export interface ProcessAllWindowFunction<IN, OUT, W extends Window> extends RichFunction {
  process(context: ProcessAllWindowContext<W>, elements: readonly IN[], out: Collector<OUT>): void;
  clear?(context: ProcessAllWindowContext<W>): void;
}

/**
 * The older window function of Flink's `apply()`: the key, the window and its elements.
 *
 * @example
 * windowed.apply((key, window, values, out) => out.collect([key, window.end, values.length]))
 */
export type WindowFunction<IN, OUT, KEY, W extends Window> = (
  key: KEY,
  window: W,
  elements: readonly IN[],
  out: Collector<OUT>,
) => void;

/** `apply()` on a non-keyed window: the window and its elements. */
export type AllWindowFunction<IN, OUT, W extends Window> = (
  window: W,
  elements: readonly IN[],
  out: Collector<OUT>,
) => void;
