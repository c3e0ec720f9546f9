// The user-function contracts of joins: JoinFunction, FlatJoinFunction, CoGroupFunction and ProcessJoinFunction.
import type { Collector } from './functions.ts';
import type { OutputTag } from './output-tag.ts';
import type { RichFunction } from './runtime-context.ts';

/**
 * Joins one pair of elements with equal keys into one result (Flink's `JoinFunction`).
 *
 * @example
 * const label: JoinFunction<Order, Payment, string> = (order, payment) => `${order.id} paid ${payment.amount}`;
 */
export type JoinFunction<IN1, IN2, OUT> = (first: IN1, second: IN2) => OUT;

/**
 * Joins one pair of elements into zero or more results through `out` (Flink's `FlatJoinFunction`). A function
 * that declares three parameters is taken as a FlatJoinFunction by `apply`.
 *
 * @example
 * const matches: FlatJoinFunction<Order, Payment, string> = (o, p, out) => { if (p.amount >= o.total) out.collect(o.id); };
 */
export type FlatJoinFunction<IN1, IN2, OUT> = (first: IN1, second: IN2, out: Collector<OUT>) => void;

/**
 * Receives, per key and window, every element of both inputs (either side may be empty), as Flink's
 * `CoGroupFunction`.
 *
 * @example
 * const counts: CoGroupFunction<Click, View, string> = (clicks, views, out) =>
 *   out.collect(`${clicks.length} clicks / ${views.length} views`);
 */
export type CoGroupFunction<IN1, IN2, OUT> = (
  first: readonly IN1[],
  second: readonly IN2[],
  out: Collector<OUT>,
) => void;

/** What a ProcessJoinFunction sees for one joined pair (Flink's `ProcessJoinFunction.Context`). */
export interface ProcessJoinContext {
  /** The timestamp of the left element of the pair. */
  getLeftTimestamp(): number;
  /** The timestamp of the right element of the pair. */
  getRightTimestamp(): number;
  /** The timestamp of the joined result: the larger of the two. */
  getTimestamp(): number;
  /** Emits to a side output, at the result's timestamp. */
  output<X>(tag: OutputTag<X>, value: X): void;
}

/**
 * Called for every pair of an interval join (Flink's `ProcessJoinFunction`). A rich function: `open` receives
 * the runtime context, whose keyed state is scoped to the pair's key. Results carry the larger timestamp of
 * the pair.
 *
 * @example
 * const enrich: ProcessJoinFunction<Click, Impression, string> = {
 *   processElement(click, impression, ctx, out) {
 *     out.collect(`${click.ad} clicked ${ctx.getRightTimestamp() - ctx.getLeftTimestamp()} ms after shown`);
 *   },
 * };
 */
export interface ProcessJoinFunction<IN1, IN2, OUT> extends RichFunction {
  processElement(left: IN1, right: IN2, ctx: ProcessJoinContext, out: Collector<OUT>): void;
}
