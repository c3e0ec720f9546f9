// WindowedStream: `keyedStream.window(assigner)` — configure trigger, evictor, lateness, then apply a window function.
import { rejectAsyncFunction } from '../core/async-function-guard.ts';
import type { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { KeyedStream } from './keyed-stream.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { AggregateFunction, AggregateOptions, ReduceFunction } from '../core/aggregate-function.ts';
import type { Comparable, ComparableField, Numeric, NumericField } from './aggregation/aggregation-field.ts';
import { comparableAggregator } from './aggregation/comparable-aggregator.ts';
import { sumAggregator } from './aggregation/sum-aggregator.ts';
import { selectedValueAggregate } from './aggregation/selected-value-aggregation.ts';
import {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  ReducingStateDescriptor,
} from '../core/state-descriptor.ts';
import { CountEvictor } from '../windowing/evictors/count-evictor.ts';
import type { Evictor, TimestampedValue } from '../windowing/evictor.ts';
import { GlobalWindows } from '../windowing/assigners/global-windows.ts';
import type { GlobalWindow } from '../windowing/global-window.ts';
import {
  AggregateApplyWindowFunction,
  IterableProcessWindowFunction,
  IterableWindowFunction,
  PassThroughWindowFunction,
  ReduceApplyWindowFunction,
  SingleValueProcessWindowFunction,
  SingleValueWindowFunction,
  type InternalWindowFunction,
} from '../windowing/operator/internal-window-function.ts';
import { WindowOperator, type WindowStateDescriptor } from '../windowing/operator/window-operator.ts';
import type { ProcessWindowFunction, WindowFunction } from '../windowing/process-window-function.ts';
import { CountTrigger } from '../windowing/triggers/count-trigger.ts';
import { PurgingTrigger } from '../windowing/triggers/purging-trigger.ts';
import type { Trigger } from '../windowing/trigger.ts';
import { MergingWindowAssigner, type WindowAssigner } from '../windowing/window-assigner.ts';
import type { Window } from '../windowing/window.ts';

/**
 * A keyed stream cut into windows, as Flink's `WindowedStream`. Configure it, then apply one window function:
 * `reduce` / `aggregate` keep one value per window (incremental), `process` / `apply` keep every element; each
 * of `reduce` and `aggregate` can also take a ProcessWindowFunction that turns the aggregate into results with
 * access to the window. Every result carries the window's max timestamp (`end - 1`).
 *
 * Everything is checked here, when the job is built: a merging assigner (sessions) with a trigger that cannot
 * merge, a negative lateness, or a malformed function is rejected with a {@link ConfigurationError}.
 *
 * @example
 * const lateTag = new OutputTag<Click>('late-clicks');
 * const counts = clicks
 *   .keyBy((c) => c.user)
 *   .window(TumblingEventTimeWindows.of(Time.minutes(1)))
 *   .allowedLateness(Time.seconds(30))
 *   .sideOutputLateData(lateTag)
 *   .aggregate(countClicks);
 * const late = counts.getSideOutput(lateTag);
 */
export class WindowedStream<T, K, W extends Window> {
  private windowTrigger: Trigger<T, W>;
  private windowEvictor: Evictor<T, W> | undefined = undefined;
  private lateness = 0;
  private lateDataOutputTag: OutputTag<T> | undefined = undefined;

  constructor(
    readonly input: KeyedStream<T, K>,
    readonly assigner: WindowAssigner<NoInfer<T>, W>,
  ) {
    if (!(assigner instanceof Object) || typeof assigner.assignWindows !== 'function') {
      throw new ConfigurationError('window() needs a WindowAssigner, e.g. TumblingEventTimeWindows.of(1000)');
    }
    this.windowTrigger = assigner.getDefaultTrigger();
  }

  /** Replaces the assigner's default trigger. */
  trigger(trigger: Trigger<T, W>): this {
    checkTrigger(this.assigner, trigger);
    this.windowTrigger = trigger;
    return this;
  }

  /** Removes elements before and/or after the window function runs; every element is then kept (no pre-aggregation). */
  evictor(evictor: Evictor<T, W>): this {
    if (evictor === null || typeof evictor !== 'object' || typeof evictor.evictBefore !== 'function') {
      throw new ConfigurationError('evictor() needs an Evictor, e.g. CountEvictor.of(100)');
    }
    this.windowEvictor = evictor;
    return this;
  }

  /**
   * Keeps a window's state `lateness` ms past its end (in event time), so late elements update the result and
   * fire it again. Elements later than that are dropped or go to {@link sideOutputLateData}. Default 0.
   */
  allowedLateness(lateness: number): this {
    this.lateness = checkLateness(lateness);
    return this;
  }

  /** Sends elements that arrive after their windows were cleaned up to the side output `tag`. */
  sideOutputLateData(tag: OutputTag<T>): this {
    if (tag === null || typeof tag !== 'object')
      throw new ConfigurationError('Side output tag must not be null.');
    this.lateDataOutputTag = tag;
    return this;
  }

  /**
   * Folds each window's elements with `fn` as they arrive (one value per window), then emits the value — or, with
   * `process`, hands it to a ProcessWindowFunction.
   */
  reduce(fn: ReduceFunction<T>): DataStream<T>;
  reduce<R>(fn: ReduceFunction<T>, process: ProcessWindowFunction<T, R, K, W>): DataStream<R>;
  reduce<R>(fn: ReduceFunction<T>, process?: ProcessWindowFunction<T, R, K, W>): DataStream<R | T> {
    if (typeof fn !== 'function') throw new ConfigurationError('reduce() needs a function (a, b) => reduced');
    this.rejectAsync('reduce', fn, process);
    const single: InternalWindowFunction<T, R | T, K, W> =
      process === undefined
        ? passThrough<T, K, W>()
        : new SingleValueProcessWindowFunction(checkProcess(process));
    if (this.windowEvictor !== undefined) {
      return this.build('reduce', evictingState<T>(), new ReduceApplyWindowFunction(fn, single));
    }
    return this.build('reduce', new ReducingStateDescriptor<T>('window-contents', fn), single);
  }

  /**
   * Aggregates each window incrementally with an {@link AggregateFunction} (one accumulator per window), then
   * emits its result — or, with `process`, hands the result to a ProcessWindowFunction. An accumulator that is a
   * class instance names its class in `options` ({@link AggregateOptions}) to survive checkpoints and durable state.
   */
  aggregate<ACC, V>(fn: AggregateFunction<T, ACC, V>, options?: AggregateOptions<ACC>): DataStream<V>;
  aggregate<ACC, V, R>(
    fn: AggregateFunction<T, ACC, V>,
    process: ProcessWindowFunction<V, R, K, W>,
    options?: AggregateOptions<ACC>,
  ): DataStream<R>;
  aggregate<ACC, V, R>(
    fn: AggregateFunction<T, ACC, V>,
    processOrOptions?: ProcessWindowFunction<V, R, K, W> | AggregateOptions<ACC>,
    aggregateOptions?: AggregateOptions<ACC>,
  ): DataStream<V | R> {
    checkAggregate(fn);
    const { process, options } = splitAggregateArguments<
      ProcessWindowFunction<V, R, K, W>,
      AggregateOptions<ACC>
    >(processOrOptions, aggregateOptions);
    this.rejectAsync('aggregate', fn, process);
    const single: InternalWindowFunction<V, V | R, K, W> =
      process === undefined
        ? passThrough<V, K, W>()
        : new SingleValueProcessWindowFunction(checkProcess(process));
    if (this.windowEvictor !== undefined) {
      return this.build('aggregate', evictingState<T>(), new AggregateApplyWindowFunction(fn, single));
    }
    const descriptorOptions = {
      ...(options?.accumulatorType !== undefined ? { type: options.accumulatorType } : {}),
      ...(options?.accumulatorSerializer !== undefined ? { serializer: options.accumulatorSerializer } : {}),
    };
    return this.build(
      'aggregate',
      new AggregatingStateDescriptor<T, ACC, V>('window-contents', fn, descriptorOptions),
      single,
    );
  }

  /**
   * The sum per window: of a numeric field, in the window's first element with `field` replaced by the sum
   * (Flink's `sum`); of a selector, the sum of the selected values itself.
   *
   * @example
   * orders.keyBy((o) => o.customer).window(TumblingEventTimeWindows.of(60_000)).sum('amount');
   * orders.keyBy((o) => o.customer).window(TumblingEventTimeWindows.of(60_000)).sum((o) => o.amount);
   */
  sum(field: NumericField<T>): DataStream<T>;
  sum<N extends Numeric>(selector: (value: T) => N): DataStream<N>;
  sum(by: NumericField<T> | ((value: T) => Numeric)): DataStream<T> | DataStream<Numeric> {
    if (typeof by === 'function') return this.aggregate(selectedValueAggregate('sum', by));
    return this.reduce(sumAggregator<T>(by));
  }

  /** The minimum per window: of a field, in the window's first element (Flink's `min`); of a selector, the value. */
  min(field: ComparableField<T>): DataStream<T>;
  min<V extends Comparable>(selector: (value: T) => V): DataStream<V>;
  min(by: ComparableField<T> | ((value: T) => Comparable)): DataStream<T> | DataStream<Comparable> {
    if (typeof by === 'function') return this.aggregate(selectedValueAggregate('min', by));
    return this.reduce(comparableAggregator<T>('min', by));
  }

  /** The maximum per window: of a field, in the window's first element (Flink's `max`); of a selector, the value. */
  max(field: ComparableField<T>): DataStream<T>;
  max<V extends Comparable>(selector: (value: T) => V): DataStream<V>;
  max(by: ComparableField<T> | ((value: T) => Comparable)): DataStream<T> | DataStream<Comparable> {
    if (typeof by === 'function') return this.aggregate(selectedValueAggregate('max', by));
    return this.reduce(comparableAggregator<T>('max', by));
  }

  /** The element with the smallest `by` per window; on a tie the earlier one when `first` (default) is true. */
  minBy(by: ComparableField<T> | ((value: T) => Comparable), first = true): DataStream<T> {
    return this.reduce(comparableAggregator<T>('minBy', by, first));
  }

  /** The element with the largest `by` per window; on a tie the earlier one when `first` (default) is true. */
  maxBy(by: ComparableField<T> | ((value: T) => Comparable), first = true): DataStream<T> {
    return this.reduce(comparableAggregator<T>('maxBy', by, first));
  }

  /** Evaluates each window with all its elements. */
  process<R>(fn: ProcessWindowFunction<T, R, K, W>): DataStream<R> {
    this.rejectAsync('process', checkProcess(fn));
    const internal = new IterableProcessWindowFunction(fn);
    return this.build(
      'process',
      this.windowEvictor ? evictingState<T>() : new ListStateDescriptor<T>('window-contents'),
      internal,
    );
  }

  /** Evaluates each window with a legacy WindowFunction `(key, window, elements, out)`. */
  apply<R>(fn: WindowFunction<T, R, K, W>): DataStream<R> {
    if (typeof fn !== 'function')
      throw new ConfigurationError('apply() needs a function (key, window, elements, out) => void');
    this.rejectAsync('apply', fn);
    const internal = new IterableWindowFunction(fn);
    return this.build(
      'apply',
      this.windowEvictor ? evictingState<T>() : new ListStateDescriptor<T>('window-contents'),
      internal,
    );
  }

  /** Evaluates each window with a legacy WindowFunction over the reduced value. */
  reduceApply<R>(reduce: ReduceFunction<T>, fn: WindowFunction<T, R, K, W>): DataStream<R> {
    if (typeof reduce !== 'function' || typeof fn !== 'function')
      throw new ConfigurationError('reduceApply() needs two functions');
    this.rejectAsync('reduce', reduce, fn);
    const single = new SingleValueWindowFunction(fn);
    if (this.windowEvictor !== undefined)
      return this.build('reduce', evictingState<T>(), new ReduceApplyWindowFunction(reduce, single));
    return this.build('reduce', new ReducingStateDescriptor<T>('window-contents', reduce), single);
  }

  /** Refuses async window functions at definition, naming the window operator they would run in. */
  private rejectAsync(kind: string, ...fns: unknown[]): void {
    for (const fn of fns) rejectAsyncFunction(fn, `${kind}()`, this.operatorName(kind), WINDOW_METHODS);
  }

  private operatorName(kind: string): string {
    return `${this.windowEvictor ? 'EvictingWindow' : 'Window'}(${String(this.assigner)}, ${String(this.windowTrigger)}${this.windowEvictor ? `, ${String(this.windowEvictor)}` : ''}, ${kind})`;
  }

  private build<ACC, R>(
    kind: string,
    state: WindowStateDescriptor<T, ACC>,
    fn: InternalWindowFunction<ACC, R, K, W>,
  ): DataStream<R> {
    const config = {
      assigner: this.assigner,
      trigger: this.windowTrigger,
      windowStateDescriptor: state,
      windowFunction: fn,
      allowedLateness: this.lateness,
      lateDataOutputTag: this.lateDataOutputTag,
      evictor: this.windowEvictor,
    };
    return this.input.transform<R>(
      this.operatorName(kind),
      () => new WindowOperator<K, T, ACC, R, W>(config),
    );
  }
}

/**
 * Count windows on a keyed stream, as Flink's `KeyedStream.countWindow`: tumbling (`size` elements, then purge),
 * or sliding (every `slide` elements, over the last `size`).
 *
 * @example
 * countWindow(keyed, 100).reduce(sum)     // keyed.countWindow(100)
 * countWindow(keyed, 100, 10).process(f)  // keyed.countWindow(100, 10)
 */
export function countWindow<T, K>(
  input: KeyedStream<T, K>,
  size: number,
  slide?: number,
): WindowedStream<T, K, GlobalWindow> {
  const windowed = new WindowedStream<T, K, GlobalWindow>(input, GlobalWindows.create());
  if (slide === undefined) return windowed.trigger(PurgingTrigger.of(CountTrigger.of<GlobalWindow>(size)));
  return windowed.evictor(CountEvictor.of<GlobalWindow>(size)).trigger(CountTrigger.of<GlobalWindow>(slide));
}

/** The methods of window and aggregate functions the window operator calls per element or window. */
const WINDOW_METHODS = ['process', 'clear', 'createAccumulator', 'add', 'getResult', 'merge'];

/** @internal Shared with AllWindowedStream. */
export function checkTrigger(assigner: WindowAssigner<any, any>, trigger: Trigger<any, any>): void {
  if (trigger === null || typeof trigger !== 'object' || typeof trigger.onElement !== 'function') {
    throw new ConfigurationError('trigger() needs a Trigger, e.g. CountTrigger.of(100)');
  }
  if (assigner instanceof MergingWindowAssigner && !trigger.canMerge()) {
    throw new ConfigurationError(
      `A merging window assigner cannot be used with a trigger that does not support merging: ${String(assigner)} with ${String(trigger)}. ` +
        'Use a trigger whose canMerge() returns true (EventTimeTrigger, ProcessingTimeTrigger, CountTrigger, ContinuousEventTimeTrigger, ...).',
    );
  }
}

/** @internal */
export function checkLateness(lateness: number): number {
  if (typeof lateness !== 'number' || !(lateness >= 0)) {
    throw new ConfigurationError(`The allowed lateness cannot be negative, got ${lateness}`);
  }
  return lateness;
}

/** @internal */
export function checkAggregate(fn: AggregateFunction<any, any, any>): void {
  if (
    fn === null ||
    typeof fn !== 'object' ||
    typeof fn.createAccumulator !== 'function' ||
    typeof fn.add !== 'function' ||
    typeof fn.getResult !== 'function'
  ) {
    throw new ConfigurationError(
      'aggregate() needs an AggregateFunction: { createAccumulator, add, getResult, merge }',
    );
  }
}

/**
 * `aggregate(fn, process?, options?)`: the second argument is the process function when it has a `process`
 * method, else the options.
 * @internal
 */
export function splitAggregateArguments<P extends { process: unknown }, O extends object>(
  processOrOptions: P | O | undefined,
  options: O | undefined,
): { process: P | undefined; options: O | undefined } {
  if (processOrOptions !== undefined && typeof (processOrOptions as P).process === 'function') {
    return { process: processOrOptions as P, options };
  }
  if (processOrOptions !== undefined && options !== undefined) {
    throw new ConfigurationError(
      'aggregate(fn, process, options): the second argument must be a ProcessWindowFunction (an object with a process method)',
    );
  }
  return { process: undefined, options: processOrOptions as O | undefined };
}

/** @internal */
export function checkProcess<F extends { process: unknown }>(fn: F): F {
  if (fn === null || typeof fn !== 'object' || typeof fn.process !== 'function') {
    throw new ConfigurationError(
      'A ProcessWindowFunction is an object with a process(key, context, elements, out) method',
    );
  }
  return fn;
}

/** @internal With an evictor, a pane keeps every element with its timestamp. */
export function evictingState<T>(): ListStateDescriptor<TimestampedValue<T>> {
  return new ListStateDescriptor<TimestampedValue<T>>('window-contents');
}

function passThrough<V, K, W extends Window>(): InternalWindowFunction<V, V, K, W> {
  return new PassThroughWindowFunction<V>() as unknown as InternalWindowFunction<V, V, K, W>;
}
