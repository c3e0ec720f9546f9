// KeyedStream: a stream partitioned by key, on which state and timers are scoped to the current key.
import { rejectAsyncFunction } from '../core/async-function-guard.ts';
import { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { FunctionObject, KeyedProcessFunction, KeySelector } from '../core/functions.ts';
import { Transformation } from '../graph/transformation.ts';
import { KeyedProcessOperator } from '../operators/keyed-process-operator.ts';
import { StreamGroupedReduce } from '../operators/stream-grouped-reduce.ts';
import type { OneInputStreamOperator } from '../operators/stream-operator.ts';
import type { ReduceFunction } from '../core/aggregate-function.ts';
import { WindowedStream, countWindow } from './windowed-stream.ts';
import type { WindowAssigner } from '../windowing/window-assigner.ts';
import type { Window } from '../windowing/window.ts';
import type { GlobalWindow } from '../windowing/global-window.ts';
import type { Comparable, ComparableField, Numeric, NumericField } from './aggregation/aggregation-field.ts';
import {
  RollingSelectedValue,
  type SelectedValueAggregation,
} from './aggregation/selected-value-aggregation.ts';
import { comparableAggregator } from './aggregation/comparable-aggregator.ts';
import { sumAggregator } from './aggregation/sum-aggregator.ts';
import { IntervalJoin } from './join/interval-join.ts';

/**
 * The result of `keyBy`. The next operator is keyed: records reach it grouped by key group, and the runtime sets
 * the current key before each record and timer, so `ValueState` and friends read that key's entry.
 *
 * @example
 * clicks.keyBy((c) => c.uid).process(new SessionCounter());
 */
export class KeyedStream<T, K> extends DataStream<T> {
  constructor(
    input: DataStream<T>,
    readonly keySelector: KeySelector<T, K>,
  ) {
    const t = new Transformation('partition', 'Hash', [input.transformation]);
    t.partitioning = { kind: 'hash', keySelector: keySelector as KeySelector<any, unknown> };
    super(input.environment, t);
  }

  /** Runs a KeyedProcessFunction: keyed state and key-bound timers. */
  override process<R, S extends object = Record<string, any>>(
    fn: FunctionObject<KeyedProcessFunction<K, T, R>, S>,
    name = 'KeyedProcess',
  ): DataStream<R> {
    if (fn === null || typeof fn !== 'object' || typeof fn.processElement !== 'function') {
      throw new ConfigurationError(`process() needs an object with a processElement method`);
    }
    rejectAsyncFunction(fn, 'process()', name, ['processElement', 'onTimer']);
    return this.transform<R>(name, () => new KeyedProcessOperator(fn));
  }

  /** A rolling reduce: emits the reduced value of the record's key after every record. */
  reduce(fn: ReduceFunction<T>, name = 'Keyed Reduce'): DataStream<T> {
    if (typeof fn !== 'function') throw new ConfigurationError('reduce() needs a function');
    rejectAsyncFunction(fn, 'reduce()', name);
    return this.transform<T>(name, () => new StreamGroupedReduce(fn));
  }

  /**
   * A rolling sum per key, after every record. Given a numeric field (checked by the compiler), emits the key's
   * first record with `field` replaced by the running sum (Flink's `sum`); given a selector, emits the running sum
   * of the selected values itself (Flink's `sum(0)` on a stream of plain numbers).
   *
   * @example
   * orders.keyBy((o) => o.customer).sum('amount');          // DataStream<Order>
   * orders.keyBy((o) => o.customer).sum((o) => o.amount);   // DataStream<number>
   */
  sum(field: NumericField<T>, name?: string): DataStream<T>;
  sum<N extends Numeric>(selector: (value: T) => N, name?: string): DataStream<N>;
  sum(
    by: NumericField<T> | ((value: T) => Numeric),
    name = 'Keyed Aggregation',
  ): DataStream<T> | DataStream<Numeric> {
    if (typeof by === 'function') return this.rollingSelected('sum', by, name);
    return this.reduce(sumAggregator<T>(by), name);
  }

  /**
   * A rolling minimum per key: of a field, in the key's first record whose other fields never change (Flink's
   * `min`); of a selector, the smallest selected value itself.
   */
  min(field: ComparableField<T>, name?: string): DataStream<T>;
  min<V extends Comparable>(selector: (value: T) => V, name?: string): DataStream<V>;
  min(
    by: ComparableField<T> | ((value: T) => Comparable),
    name = 'Keyed Aggregation',
  ): DataStream<T> | DataStream<Comparable> {
    if (typeof by === 'function') return this.rollingSelected('min', by, name);
    return this.reduce(comparableAggregator<T>('min', by), name);
  }

  /** A rolling maximum per key, of a field or a selected value; as {@link min}. */
  max(field: ComparableField<T>, name?: string): DataStream<T>;
  max<V extends Comparable>(selector: (value: T) => V, name?: string): DataStream<V>;
  max(
    by: ComparableField<T> | ((value: T) => Comparable),
    name = 'Keyed Aggregation',
  ): DataStream<T> | DataStream<Comparable> {
    if (typeof by === 'function') return this.rollingSelected('max', by, name);
    return this.reduce(comparableAggregator<T>('max', by), name);
  }

  private rollingSelected<V extends Comparable>(
    type: SelectedValueAggregation,
    selector: (value: T) => V,
    name: string,
  ): DataStream<V> {
    rejectAsyncFunction(selector, `${type}()`, name);
    return this.process(new RollingSelectedValue<K, T, V>(type, selector), name);
  }

  /**
   * Per key, the whole record with the smallest `by` seen so far (a field or a selector). On a tie the earlier
   * record stays when `first` is true (the default, as in Flink), the later one wins otherwise.
   *
   * @example
   * readings.keyBy((r) => r.sensor).minBy('temperature');
   */
  minBy(by: ComparableField<T> | ((value: T) => Comparable), first = true): DataStream<T> {
    return this.reduce(comparableAggregator<T>('minBy', by, first), 'Keyed Aggregation');
  }

  /** Per key, the whole record with the largest `by` seen so far; ties as in {@link minBy}. */
  maxBy(by: ComparableField<T> | ((value: T) => Comparable), first = true): DataStream<T> {
    return this.reduce(comparableAggregator<T>('maxBy', by, first), 'Keyed Aggregation');
  }

  /**
   * Joins this stream with another keyed stream (same key type) on an event-time interval: set the bounds with
   * `between(lower, upper)`, then `process` each pair. See docs/joins.md.
   *
   * @example
   * clicks.keyBy((c) => c.ad)
   *   .intervalJoin(impressions.keyBy((i) => i.ad))
   *   .between(-60_000, 0)
   *   .process((click, impression, ctx, out) => out.collect({ ad: click.ad, delay: click.ts - impression.ts }));
   */
  intervalJoin<T2>(other: KeyedStream<T2, K>): IntervalJoin<T, T2, K> {
    if (!(other instanceof KeyedStream)) {
      throw new ConfigurationError('intervalJoin() needs a keyed stream: other.keyBy(selector)');
    }
    return new IntervalJoin<T, T2, K>(this, other);
  }

  /**
   * Cuts each key's records into windows. Configure a trigger, evictor, allowed lateness and late-data side
   * output on the result, then apply `reduce`, `aggregate` or `process`. See docs/windows.md.
   *
   * @example
   * clicks.keyBy((c) => c.uid).window(TumblingEventTimeWindows.of(Time.minutes(1))).aggregate(countClicks);
   */
  window<W extends Window>(assigner: WindowAssigner<NoInfer<T>, W>): WindowedStream<T, K, W> {
    return new WindowedStream<T, K, W>(this, assigner);
  }

  /** Windows of `size` records per key, sliding by `slide` records when given (Flink's countWindow). */
  countWindow(size: number, slide?: number): WindowedStream<T, K, GlobalWindow> {
    return countWindow(this, size, slide);
  }

  /** Applies a custom keyed operator: it gets a keyed state backend and timer services. */
  override transform<R>(name: string, factory: () => OneInputStreamOperator<T, R>): DataStream<R> {
    const t = new Transformation('operator', name, [this.transformation]);
    t.operatorFactory = factory;
    t.keySelectors = [this.keySelector as KeySelector<any, unknown>];
    return new DataStream<R>(this.environment, t);
  }

  override name(_name: string): this {
    throw new ConfigurationError(
      'name() applies to an operator; a keyed stream is a partitioning, not an operator',
    );
  }

  override uid(_uid: string): this {
    throw new ConfigurationError(
      'uid() applies to an operator; a keyed stream is a partitioning, not an operator',
    );
  }

  override setParallelism(_parallelism: number): this {
    throw new ConfigurationError(
      'setParallelism() applies to an operator; set it on the operator after keyBy (e.g. .process(...).setParallelism(n))',
    );
  }
}

DataStream.keyedStreamFactory = (input, selector) => new KeyedStream(input, selector);
