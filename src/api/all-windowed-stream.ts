// AllWindowedStream: `stream.windowAll(assigner)` — windows over a whole (non-keyed) stream, in one subtask.
import { rejectAsyncFunction } from '../core/async-function-guard.ts';
import type { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { KeyedStream } from './keyed-stream.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { AggregateFunction, AggregateOptions, ReduceFunction } from '../core/aggregate-function.ts';
import type { Comparable, ComparableField, Numeric, NumericField } from './aggregation/aggregation-field.ts';
import type { Evictor } from '../windowing/evictor.ts';
import { GlobalWindows } from '../windowing/assigners/global-windows.ts';
import { CountEvictor } from '../windowing/evictors/count-evictor.ts';
import type { GlobalWindow } from '../windowing/global-window.ts';
import type {
  AllWindowFunction,
  ProcessAllWindowFunction,
  ProcessWindowFunction,
} from '../windowing/process-window-function.ts';
import { CountTrigger } from '../windowing/triggers/count-trigger.ts';
import { PurgingTrigger } from '../windowing/triggers/purging-trigger.ts';
import type { Trigger } from '../windowing/trigger.ts';
import type { WindowAssigner } from '../windowing/window-assigner.ts';
import type { Window } from '../windowing/window.ts';
import {
  checkLateness,
  checkProcess,
  checkTrigger,
  splitAggregateArguments,
  WindowedStream,
} from './windowed-stream.ts';

/** The single key every element of a non-keyed window has (Flink's NullByteKeySelector). */
const ALL = 0;

/**
 * Windows over a non-keyed stream, as Flink's `AllWindowedStream`. As in Flink it is a keyed window on one
 * constant key run by a single subtask (parallelism 1), so every element meets in the same windows; the same
 * triggers, evictors, lateness and late-data side output apply.
 *
 * @example
 * const perSecond = events.windowAll(TumblingEventTimeWindows.of(1000)).aggregate(countAggregate);
 */
export class AllWindowedStream<T, W extends Window> {
  private readonly windowed: WindowedStream<T, number, W>;

  constructor(
    readonly input: DataStream<T>,
    readonly assigner: WindowAssigner<NoInfer<T>, W>,
  ) {
    this.windowed = new WindowedStream<T, number, W>(
      input.keyBy((): number => ALL) as KeyedStream<T, number>,
      assigner,
    );
  }

  trigger(trigger: Trigger<T, W>): this {
    checkTrigger(this.assigner, trigger);
    this.windowed.trigger(trigger);
    return this;
  }

  evictor(evictor: Evictor<T, W>): this {
    this.windowed.evictor(evictor);
    return this;
  }

  allowedLateness(lateness: number): this {
    this.windowed.allowedLateness(checkLateness(lateness));
    return this;
  }

  sideOutputLateData(tag: OutputTag<T>): this {
    this.windowed.sideOutputLateData(tag);
    return this;
  }

  reduce(fn: ReduceFunction<T>): DataStream<T>;
  reduce<R>(fn: ReduceFunction<T>, process: ProcessAllWindowFunction<T, R, W>): DataStream<R>;
  reduce<R>(fn: ReduceFunction<T>, process?: ProcessAllWindowFunction<T, R, W>): DataStream<T | R> {
    const stream =
      process === undefined ? this.windowed.reduce(fn) : this.windowed.reduce(fn, keyless(process));
    return single(stream as DataStream<T | R>);
  }

  aggregate<ACC, V>(fn: AggregateFunction<T, ACC, V>, options?: AggregateOptions<ACC>): DataStream<V>;
  aggregate<ACC, V, R>(
    fn: AggregateFunction<T, ACC, V>,
    process: ProcessAllWindowFunction<V, R, W>,
    options?: AggregateOptions<ACC>,
  ): DataStream<R>;
  aggregate<ACC, V, R>(
    fn: AggregateFunction<T, ACC, V>,
    processOrOptions?: ProcessAllWindowFunction<V, R, W> | AggregateOptions<ACC>,
    aggregateOptions?: AggregateOptions<ACC>,
  ): DataStream<V | R> {
    const { process, options } = splitAggregateArguments<
      ProcessAllWindowFunction<V, R, W>,
      AggregateOptions<ACC>
    >(processOrOptions, aggregateOptions);
    const stream =
      process === undefined
        ? this.windowed.aggregate(fn, options)
        : this.windowed.aggregate(fn, keyless(process), options);
    return single(stream as DataStream<V | R>);
  }

  /** The sum per window: of a numeric field, in the window's first element (Flink's `sum`); of a selector, the value. */
  sum(field: NumericField<T>): DataStream<T>;
  sum<N extends Numeric>(selector: (value: T) => N): DataStream<N>;
  sum(by: NumericField<T> | ((value: T) => Numeric)): DataStream<T> | DataStream<Numeric> {
    return typeof by === 'function' ? single(this.windowed.sum(by)) : single(this.windowed.sum(by));
  }

  /** The minimum per window: of a field, in the window's first element (Flink's `min`); of a selector, the value. */
  min(field: ComparableField<T>): DataStream<T>;
  min<V extends Comparable>(selector: (value: T) => V): DataStream<V>;
  min(by: ComparableField<T> | ((value: T) => Comparable)): DataStream<T> | DataStream<Comparable> {
    return typeof by === 'function' ? single(this.windowed.min(by)) : single(this.windowed.min(by));
  }

  /** The maximum per window: of a field, in the window's first element (Flink's `max`); of a selector, the value. */
  max(field: ComparableField<T>): DataStream<T>;
  max<V extends Comparable>(selector: (value: T) => V): DataStream<V>;
  max(by: ComparableField<T> | ((value: T) => Comparable)): DataStream<T> | DataStream<Comparable> {
    return typeof by === 'function' ? single(this.windowed.max(by)) : single(this.windowed.max(by));
  }

  /** The element with the smallest `by` per window; on a tie the earlier one when `first` (default) is true. */
  minBy(by: ComparableField<T> | ((value: T) => Comparable), first = true): DataStream<T> {
    return single(this.windowed.minBy(by, first));
  }

  /** The element with the largest `by` per window; on a tie the earlier one when `first` (default) is true. */
  maxBy(by: ComparableField<T> | ((value: T) => Comparable), first = true): DataStream<T> {
    return single(this.windowed.maxBy(by, first));
  }

  process<R>(fn: ProcessAllWindowFunction<T, R, W>): DataStream<R> {
    return single(this.windowed.process(keyless(fn)));
  }

  apply<R>(fn: AllWindowFunction<T, R, W>): DataStream<R> {
    if (typeof fn !== 'function')
      throw new ConfigurationError('apply() needs a function (window, elements, out) => void');
    rejectAsyncFunction(fn, 'apply()', 'Window');
    return single(this.windowed.apply((_key, window, elements, out) => fn(window, elements, out)));
  }
}

/**
 * Count windows over a non-keyed stream, as Flink's `DataStream.countWindowAll`.
 *
 * @example
 * countWindowAll(stream, 1000).reduce(sum)
 */
export function countWindowAll<T>(
  input: DataStream<T>,
  size: number,
  slide?: number,
): AllWindowedStream<T, GlobalWindow> {
  const windowed = new AllWindowedStream<T, GlobalWindow>(input, GlobalWindows.create());
  if (slide === undefined) return windowed.trigger(PurgingTrigger.of(CountTrigger.of<GlobalWindow>(size)));
  return windowed.evictor(CountEvictor.of<GlobalWindow>(size)).trigger(CountTrigger.of<GlobalWindow>(slide));
}

/** Runs the window operator in a single subtask, as Flink's `forceNonParallel()` on windowAll. */
function single<R>(stream: DataStream<R>): DataStream<R> {
  stream.transformation.forceSingleParallelism = true;
  return stream;
}

/** A ProcessAllWindowFunction seen as a keyed one that ignores the (constant) key. */
function keyless<IN, OUT, W extends Window>(
  fn: ProcessAllWindowFunction<IN, OUT, W>,
): ProcessWindowFunction<IN, OUT, number, W> {
  checkProcess(fn);
  rejectAsyncFunction(fn, 'process()', 'Window', ['process', 'clear']);
  return {
    open: fn.open?.bind(fn),
    close: fn.close?.bind(fn),
    process: (_key, context, elements, out) => fn.process(context, elements, out),
    clear: fn.clear === undefined ? undefined : (context) => fn.clear!(context),
  } as ProcessWindowFunction<IN, OUT, number, W>;
}
