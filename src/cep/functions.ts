// The user functions of a PatternStream: process / select / flatSelect matches and handle timed-out partial matches.
import type { Collector } from '../core/functions.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { RichFunction } from '../core/runtime-context.ts';

/** What a {@link PatternProcessFunction} sees besides the match (Flink's `PatternProcessFunction.Context`). */
export interface PatternProcessContext {
  /**
   * In event time, the timestamp of the match: the timestamp of the event that completed it (or, for a trailing
   * `notFollowedBy`, the time its window passed); for a timed-out partial match, the time it timed out. In
   * processing time, the processing time the match was found at.
   */
  timestamp(): number;
  currentProcessingTime(): number;
  /** Emits to a side output (with the match's timestamp in event time). */
  output<X>(tag: OutputTag<X>, value: X): void;
}

/**
 * Receives every match (Flink's `PatternProcessFunction`). The match maps each positive stage name to its events in
 * order; an optional stage that took no event is absent.
 *
 * @example
 * const alerts: PatternProcessFunction<Tx, Alert, PatternMatch<typeof p>> = {
 *   processMatch(match, ctx, out) { out.collect({ card: match.small[0]!.card, at: ctx.timestamp() }); },
 * };
 */
export interface PatternProcessFunction<IN, OUT, M = Record<string, IN[]>> extends RichFunction {
  processMatch(match: M, ctx: PatternProcessContext, out: Collector<OUT>): void;
}

/**
 * Mixed into a {@link PatternProcessFunction} to receive the partial matches that timed out (`within`); without
 * it, timed-out partial matches are dropped silently, as in Flink.
 *
 * @example
 * processTimedOutMatch(match, ctx) { ctx.output(timeoutTag, { first: match.small![0]!, at: ctx.timestamp() }); }
 */
export interface TimedOutPartialMatchHandler<IN, M = Record<string, IN[]>> {
  /** `ctx.timestamp()` is the time the partial match timed out at: its first event + window. */
  processTimedOutMatch(match: Partial<M>, ctx: PatternProcessContext): void;
}

/** Turns a match into one result (Flink's `PatternSelectFunction`). */
export type PatternSelectFunction<M, OUT> = (match: M) => OUT;

/** Turns a match into any number of results (Flink's `PatternFlatSelectFunction`). */
export type PatternFlatSelectFunction<M, OUT> = (match: M, out: Collector<OUT>) => void;

/** Turns a timed-out partial match and its timeout time into a result (Flink's `PatternTimeoutFunction`). */
export type PatternTimeoutFunction<M, OUT> = (match: Partial<M>, timeoutTimestamp: number) => OUT;

/** Whether a function also handles timed-out partial matches. */
export function isTimedOutPartialMatchHandler(fn: unknown): fn is TimedOutPartialMatchHandler<unknown> {
  return (
    fn !== null &&
    typeof fn === 'object' &&
    typeof (fn as { processTimedOutMatch?: unknown }).processTimedOutMatch === 'function'
  );
}
