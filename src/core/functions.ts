// The user-function contracts of the DataStream API: plain functions for single methods, objects for the rest.
import type { TimeDomain } from './time-domain.ts';
import type { OutputTag } from './output-tag.ts';
import type { RichFunction } from './runtime-context.ts';

/** Extracts the key of a record. Keys are strings, numbers, bigints, or arrays / plain objects of those. */
export type KeySelector<T, K> = (value: T) => K;
export type MapFunction<IN, OUT> = (value: IN) => OUT;
export type FilterFunction<T> = (value: T) => boolean;
/** Emits zero or more values per input through `out`. */
export type FlatMapFunction<IN, OUT> = (value: IN, out: Collector<OUT>) => void;

/** Emits records downstream from inside a function. */
export interface Collector<T> {
  collect(value: T): void;
}

/** Timers as user functions see them: scoped to the current key (Flink's TimerService). */
export interface TimerService {
  currentProcessingTime(): number;
  currentWatermark(): number;
  registerEventTimeTimer(time: number): void;
  registerProcessingTimeTimer(time: number): void;
  deleteEventTimeTimer(time: number): void;
  deleteProcessingTimeTimer(time: number): void;
}

/** What `processElement` of a ProcessFunction sees. */
export interface ProcessContext {
  /** The timestamp of the current record, or undefined when it has none. */
  timestamp(): number | undefined;
  /** Timers; registering a timer on a non-keyed stream throws, naming the operator. */
  timerService(): TimerService;
  /** Emits to a side output. */
  output<X>(tag: OutputTag<X>, value: X): void;
}

/** What `onTimer` of a ProcessFunction sees. */
export interface OnTimerContext extends ProcessContext {
  timeDomain(): TimeDomain;
}

/** A process function on a non-keyed stream. */
export interface ProcessFunction<IN, OUT> extends RichFunction {
  processElement(value: IN, ctx: ProcessContext, out: Collector<OUT>): void;
  onTimer?(timestamp: number, ctx: OnTimerContext, out: Collector<OUT>): void;
}

/** What a KeyedProcessFunction sees: the process context plus the current key. */
export interface KeyedProcessContext<K> extends ProcessContext {
  getCurrentKey(): K;
}
export interface KeyedOnTimerContext<K> extends KeyedProcessContext<K> {
  timeDomain(): TimeDomain;
}

/**
 * A process function on a keyed stream: keyed state and key-bound timers.
 *
 * @example
 * const counter: KeyedProcessFunction<string, Click, [string, number]> = {
 *   open(ctx) { this.count = ctx.getState(new ValueStateDescriptor<number>('n', { defaultValue: 0 })); },
 *   processElement(click, ctx, out) { ... },
 * };
 */
export interface KeyedProcessFunction<K, IN, OUT> extends RichFunction {
  processElement(value: IN, ctx: KeyedProcessContext<K>, out: Collector<OUT>): void;
  onTimer?(timestamp: number, ctx: KeyedOnTimerContext<K>, out: Collector<OUT>): void;
}

/** A process function over two connected streams. */
export interface CoProcessFunction<IN1, IN2, OUT> extends RichFunction {
  processElement1(value: IN1, ctx: ProcessContext, out: Collector<OUT>): void;
  processElement2(value: IN2, ctx: ProcessContext, out: Collector<OUT>): void;
  onTimer?(timestamp: number, ctx: OnTimerContext, out: Collector<OUT>): void;
}

/** A process function over two connected keyed streams, sharing key-bound state and timers. */
export interface KeyedCoProcessFunction<K, IN1, IN2, OUT> extends RichFunction {
  processElement1(value: IN1, ctx: KeyedProcessContext<K>, out: Collector<OUT>): void;
  processElement2(value: IN2, ctx: KeyedProcessContext<K>, out: Collector<OUT>): void;
  onTimer?(timestamp: number, ctx: KeyedOnTimerContext<K>, out: Collector<OUT>): void;
}

/**
 * A rich function passed as a plain object may carry fields of its own (state handles set in `open`, counters);
 * inside its methods `this` is that object, typed: `S` is the object's own shape, fields and methods alike.
 *
 * TypeScript infers `S` only when no type argument is written, so there are two typed forms:
 * - Let both types be inferred: annotate the collector (`out: Collector<string>`) and the output type follows
 *   from it, while `S` comes from the literal.
 * - Write both: `process<string, { count: ValueState<number> }>({ count: ..., ... })`; the literal must then
 *   have exactly the fields `S` lists.
 *
 * With only the output type written (`process<string>({...})`), `S` falls back to `Record<string, any>`: the
 * function's own methods stay typed and its extra fields are `any`. Class instances are checked as they are.
 *
 * @example
 * stream.keyBy((e) => e.user).process({
 *   count: undefined as unknown as ValueState<number, number>,
 *   open(ctx) { this.count = ctx.getState(new ValueStateDescriptor<number>('n', { defaultValue: 0 })); },
 *   processElement(e, ctx, out: Collector<string>) { this.count.update(this.count.value() + 1); out.collect(e.user); },
 * });
 */
export type FunctionObject<F, S extends object = Record<string, any>> = F & S & ThisType<F & S>;
