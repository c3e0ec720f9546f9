// The function contracts of broadcast state: (Keyed)BroadcastProcessFunction and the contexts they see.
import type { Collector, TimerService } from './functions.ts';
import type { OutputTag } from './output-tag.ts';
import type { RichFunction } from './runtime-context.ts';
import type { BroadcastState, ReadOnlyBroadcastState } from './broadcast-state.ts';
import type { MapStateDescriptor, StateDescriptor } from './state-descriptor.ts';
import type { TimeDomain } from './time-domain.ts';

/** What both sides of a broadcast connection see. */
export interface BroadcastBaseContext {
  /** The timestamp of the current element, or undefined when it has none. */
  timestamp(): number | undefined;
  currentProcessingTime(): number;
  currentWatermark(): number;
  /** Emits to a side output. */
  output<X>(tag: OutputTag<X>, value: X): void;
}

/** What `processElement` (the non-broadcast side) sees: broadcast state, read only. */
export interface BroadcastReadOnlyContext extends BroadcastBaseContext {
  getBroadcastState<K, V>(descriptor: MapStateDescriptor<K, V>): ReadOnlyBroadcastState<K, V>;
}

/** What `processBroadcastElement` sees: broadcast state, writable. */
export interface BroadcastContext extends BroadcastBaseContext {
  getBroadcastState<K, V>(descriptor: MapStateDescriptor<K, V>): BroadcastState<K, V>;
}

/**
 * Connects a stream with a broadcast stream (Flink's `BroadcastProcessFunction`). Every subtask receives every
 * broadcast element and keeps its own copy of the broadcast state; update it only from broadcast elements, so the
 * copies stay equal.
 *
 * @example
 * const filter: BroadcastProcessFunction<Event, Rule, Event> = {
 *   processElement(e, ctx, out) { if (ctx.getBroadcastState(rules).contains(e.type)) out.collect(e); },
 *   processBroadcastElement(rule, ctx) { ctx.getBroadcastState(rules).put(rule.type, rule); },
 * };
 */
export interface BroadcastProcessFunction<IN1, IN2, OUT> extends RichFunction {
  processElement(value: IN1, ctx: BroadcastReadOnlyContext, out: Collector<OUT>): void;
  processBroadcastElement(value: IN2, ctx: BroadcastContext, out: Collector<OUT>): void;
}

/** Applied to the state of every key by `applyToKeyedState` (Flink's `KeyedStateFunction`). */
export type KeyedStateFunction<K, S> = (key: K, state: S) => void;

/** The keyed side's context: read-only broadcast state, the current key and its timers. */
export interface KeyedBroadcastReadOnlyContext<K> extends BroadcastReadOnlyContext {
  getCurrentKey(): K;
  timerService(): TimerService;
}

/** The keyed side's context in `onTimer`. */
export interface KeyedBroadcastOnTimerContext<K> extends KeyedBroadcastReadOnlyContext<K> {
  timeDomain(): TimeDomain;
}

/** The broadcast side's context when the other side is keyed: writable broadcast state, and every key's state. */
export interface KeyedBroadcastContext extends BroadcastContext {
  /**
   * Runs `fn` on the state `descriptor` of every key of this subtask that has it (e.g. to clear or migrate it
   * when a new rule arrives).
   */
  applyToKeyedState<S>(descriptor: StateDescriptor<S, any>, fn: KeyedStateFunction<any, S>): void;
}

/**
 * Connects a keyed stream with a broadcast stream (Flink's `KeyedBroadcastProcessFunction`): keyed state and timers
 * on the keyed side, read-only broadcast state there, writable broadcast state and `applyToKeyedState` on the
 * broadcast side.
 *
 * @example
 * const alerts: KeyedBroadcastProcessFunction<string, Reading, Threshold, Alert> = {
 *   processElement(r, ctx, out) {
 *     const limit = ctx.getBroadcastState(thresholds).get(r.sensorType);
 *     if (limit !== undefined && r.value > limit) out.collect({ sensor: ctx.getCurrentKey(), value: r.value });
 *   },
 *   processBroadcastElement(t, ctx) { ctx.getBroadcastState(thresholds).put(t.sensorType, t.limit); },
 * };
 */
export interface KeyedBroadcastProcessFunction<K, IN1, IN2, OUT> extends RichFunction {
  processElement(value: IN1, ctx: KeyedBroadcastReadOnlyContext<K>, out: Collector<OUT>): void;
  processBroadcastElement(value: IN2, ctx: KeyedBroadcastContext, out: Collector<OUT>): void;
  onTimer?(timestamp: number, ctx: KeyedBroadcastOnTimerContext<K>, out: Collector<OUT>): void;
}
