// DataStream: a stream of records of one type, and the transformations that make new streams from it.
import { rejectAsyncFunction } from '../core/async-function-guard.ts';
import { ConfigurationError } from '../core/errors.ts';
import type {
  FilterFunction,
  FlatMapFunction,
  KeySelector,
  MapFunction,
  ProcessFunction,
  FunctionObject,
} from '../core/functions.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { RecordType } from '../core/record-type.ts';
import type { KeyedStream } from './keyed-stream.ts';
import type { StreamExecutionEnvironment } from './stream-execution-environment.ts';
import { CollectSink } from '../connectors/collect-sink.ts';
import { PrintSink } from '../connectors/print-sink.ts';
import type { Sink } from '../core/sink.ts';
import { Transformation, type Partitioning } from '../graph/transformation.ts';
import { ProcessOperator } from '../operators/process-operator.ts';
import { SinkOperator } from '../operators/sink-operator.ts';
import { StreamFilter } from '../operators/stream-filter.ts';
import { StreamFlatMap } from '../operators/stream-flat-map.ts';
import { StreamMap } from '../operators/stream-map.ts';
import { TimestampsAndWatermarksOperator } from '../operators/timestamps-and-watermarks-operator.ts';
import type { OneInputStreamOperator } from '../operators/stream-operator.ts';
import type { WatermarkStrategy } from '../time/watermark-strategy.ts';
import { AllWindowedStream, countWindowAll } from './all-windowed-stream.ts';
import type { WindowAssigner } from '../windowing/window-assigner.ts';
import type { Window } from '../windowing/window.ts';
import type { GlobalWindow } from '../windowing/global-window.ts';
import { CoGroupedStreams } from './join/co-grouped-streams.ts';
import type { BroadcastConnectedStream } from './broadcast/broadcast-connected-stream.ts';
import { connectToBroadcast } from './broadcast/broadcast-connected-stream.ts';
import { BroadcastStream } from './broadcast/broadcast-stream.ts';
import type { MapStateDescriptor } from '../core/state-descriptor.ts';
import { JoinedStreams } from './join/joined-streams.ts';

/**
 * A stream of `T`. Every transformation returns a new stream and records a node of the job graph; nothing runs
 * until `env.execute()`. Operator settings (`name`, `uid`, `setParallelism`) apply to the operator that produced
 * this stream, as on Flink's SingleOutputStreamOperator.
 *
 * @example
 * env.fromElements(1, 2, 3, 4)
 *   .filter((n) => n % 2 === 0)
 *   .map((n) => n * 10)
 *   .print();
 */
export class DataStream<T> {
  /**
   * Set by keyed-stream.ts, which cannot be imported here without a module cycle (KeyedStream extends DataStream).
   * @internal
   */
  static keyedStreamFactory:
    ((input: DataStream<any>, selector: KeySelector<any, any>) => KeyedStream<any, any>) | undefined;

  /** The environment the stream belongs to. */
  readonly environment: StreamExecutionEnvironment;
  /** @internal The job-graph node that produces this stream. */
  readonly transformation: Transformation;

  /** @internal Streams are made by the environment and by the methods of other streams. */
  constructor(environment: StreamExecutionEnvironment, transformation: Transformation) {
    this.environment = environment;
    this.transformation = transformation;
  }

  /**
   * Transforms each record with `fn`. `fn` runs synchronously: a function returning a Promise is refused by the
   * compiler and at run time; call asynchronous code with {@link AsyncDataStream.orderedWait}.
   */
  map<R>(fn: MapFunction<T, R> & NotAsync<R>, name = 'Map'): DataStream<R> {
    requireFunction(fn, 'map');
    rejectAsyncFunction(fn, 'map()', name);
    return this.transform<R>(name, () => new StreamMap(fn));
  }

  /** Keeps the records for which `fn` returns true. */
  filter(fn: FilterFunction<T>, name = 'Filter'): DataStream<T> {
    requireFunction(fn, 'filter');
    rejectAsyncFunction(fn, 'filter()', name);
    return this.transform<T>(name, () => new StreamFilter(fn));
  }

  /** Emits zero or more records per input record through `out.collect`. */
  flatMap<R>(fn: FlatMapFunction<T, R>, name = 'Flat Map'): DataStream<R> {
    requireFunction(fn, 'flatMap');
    rejectAsyncFunction(fn, 'flatMap()', name);
    return this.transform<R>(name, () => new StreamFlatMap(fn));
  }

  /**
   * Runs a ProcessFunction (side outputs, current watermark and processing time). Keyed state and timers need a
   * keyed stream: use `keyBy(...).process(...)`.
   */
  process<R, S extends object = Record<string, any>>(
    fn: FunctionObject<ProcessFunction<T, R>, S>,
    name = 'Process',
  ): DataStream<R> {
    if (fn === null || typeof fn !== 'object' || typeof fn.processElement !== 'function') {
      throw new ConfigurationError(`process() needs an object with a processElement method`);
    }
    rejectAsyncFunction(fn, 'process()', name, ['processElement', 'onTimer']);
    return this.transform<R>(name, () => new ProcessOperator(fn));
  }

  /**
   * Partitions the stream by key: records with equal keys go to the same subtask, and keyed state and timers of
   * the next operator are scoped to the key. Keys are strings, numbers, bigints, or arrays / plain objects of those.
   */
  keyBy<K>(selector: KeySelector<T, K>): KeyedStream<T, K> {
    requireFunction(selector, 'keyBy');
    rejectAsyncFunction(selector, 'keyBy()', 'Hash');
    return DataStream.keyedStreamFactory!(this, selector) as KeyedStream<T, K>;
  }

  /** Merges streams of the same type. */
  union(...others: DataStream<T>[]): DataStream<T> {
    const t = new Transformation('union', 'Union', [
      this.transformation,
      ...others.map((o) => o.transformation),
    ]);
    return new DataStream<T>(this.environment, t);
  }

  /**
   * Connects two streams (of possibly different types) for a CoProcessFunction. When both are keyed
   * (`keyedA.connect(keyedB)`), the result is keyed, as in Flink: each input is partitioned by its own selector
   * and a KeyedCoProcessFunction gets key-scoped state and timers shared by both inputs.
   * Given a {@link BroadcastStream}, connects to it for a (Keyed)BroadcastProcessFunction: keyed when this stream
   * is a KeyedStream. See docs/broadcast-state.md.
   */
  connect<T2>(other: BroadcastStream<T2>): BroadcastConnectedStream<T, T2, KeyOf<this>>;
  connect<O extends DataStream<any>>(
    other: O,
  ): import('./connected-streams.ts').ConnectedStreams<T, ElementOf<O>, ConnectedKey<this, O>>;
  connect<T2>(
    other: DataStream<T2> | BroadcastStream<T2>,
  ): import('./connected-streams.ts').ConnectedStreams<T, T2, any> | BroadcastConnectedStream<T, T2, any> {
    if (other instanceof BroadcastStream) return connectToBroadcast(this, other);
    return this.environment.connectStreams(this, other);
  }

  /**
   * Joins this stream with `other` per key and window: `join(other).where(k1).equalTo(k2).window(assigner)
   * .apply(fn)` calls `fn` for every pair with equal keys in the same window. See docs/joins.md.
   */
  join<T2>(other: DataStream<T2>): JoinedStreams<T, T2> {
    return new JoinedStreams<T, T2>(this, other);
  }

  /**
   * Groups this stream and `other` per key and window: `coGroup(other).where(k1).equalTo(k2).window(assigner)
   * .apply(fn)` calls `fn` once per key and window with the elements of both. See docs/joins.md.
   */
  coGroup<T2>(other: DataStream<T2>): CoGroupedStreams<T, T2> {
    return new CoGroupedStreams<T, T2>(this, other);
  }

  /**
   * Assigns event timestamps and watermarks with a strategy, replacing upstream ones. Runs at the parallelism of
   * this stream's operator unless set (as in Flink), so each upstream subtask feeds one generator.
   */
  assignTimestampsAndWatermarks(
    strategy: WatermarkStrategy<T>,
    name = 'Timestamps/Watermarks',
  ): DataStream<T> {
    if (strategy.alignment !== undefined) {
      // Flink aligns the watermarks of source subtasks only: an operator cannot stop its input.
      throw new ConfigurationError(
        'Watermark alignment applies to sources only: give the strategy to fromSource() instead of assignTimestampsAndWatermarks()',
      );
    }
    const env = this.environment;
    const input = this.transformation;
    const stream = this.transform<T>(
      name,
      () => new TimestampsAndWatermarksOperator(strategy, env.watermarkEmission, input.isBounded),
    );
    stream.transformation.inheritInputParallelism = true;
    return stream;
  }

  /** The side output `tag` of the operator that produced this stream. */
  getSideOutput<X>(tag: OutputTag<X>): DataStream<X> {
    if (this.transformation.isVirtual) {
      throw new ConfigurationError('getSideOutput() must be called on the stream an operator produced');
    }
    const t = new Transformation('side-output', `Side output ${tag.id}`, [this.transformation]);
    t.sideTag = tag as OutputTag<unknown>;
    return new DataStream<X>(this.environment, t);
  }

  /**
   * Windows over the whole stream (not keyed): the window operator runs in a single subtask, as in Flink.
   *
   * @example
   * events.windowAll(TumblingEventTimeWindows.of(Time.seconds(10))).reduce((a, b) => a + b);
   */
  windowAll<W extends Window>(assigner: WindowAssigner<NoInfer<T>, W>): AllWindowedStream<T, W> {
    return new AllWindowedStream<T, W>(this, assigner);
  }

  /** Windows of `size` records over the whole stream, sliding by `slide` records when given. */
  countWindowAll(size: number, slide?: number): AllWindowedStream<T, GlobalWindow> {
    return countWindowAll(this, size, slide);
  }

  /** Distributes records round-robin to the next operator's subtasks. */
  rebalance(): DataStream<T> {
    return this.partition({ kind: 'rebalance' });
  }

  /**
   * Sends every record to every subtask of the next operator. With state descriptors, returns a
   * {@link BroadcastStream} whose elements fill broadcast state: connect another stream to it with `connect`.
   *
   * @example
   * const rules = new MapStateDescriptor<string, Rule>('rules');
   * events.keyBy((e) => e.user).connect(ruleStream.broadcast(rules)).process(applyRules);
   */
  broadcast(): DataStream<T>;
  broadcast(
    ...descriptors: [MapStateDescriptor<any, any>, ...MapStateDescriptor<any, any>[]]
  ): BroadcastStream<T>;
  broadcast(...descriptors: MapStateDescriptor<any, any>[]): DataStream<T> | BroadcastStream<T> {
    if (descriptors.length > 0) return new BroadcastStream<T>(this, descriptors);
    return this.partition({ kind: 'broadcast' });
  }

  /** Sends every record to the first subtask of the next operator. */
  global(): DataStream<T> {
    return this.partition({ kind: 'global' });
  }

  /** Keeps records on the same subtask index (requires equal parallelism). */
  forward(): DataStream<T> {
    return this.partition({ kind: 'forward' });
  }

  /** Applies a custom operator (how windows, CEP and connectors plug in). */
  transform<R>(name: string, factory: () => OneInputStreamOperator<T, R>): DataStream<R> {
    const t = new Transformation('operator', name, [this.transformation]);
    t.operatorFactory = factory;
    return new DataStream<R>(this.environment, t);
  }

  /** Writes the stream to a sink. */
  sinkTo(sink: Sink<T>, name = 'Sink'): DataStreamSink<T> {
    const t = new Transformation('sink', name, [this.transformation]);
    t.sink = sink;
    t.operatorFactory = () => new SinkOperator(sink);
    this.environment.addSink(t);
    return new DataStreamSink<T>(t);
  }

  /** Prints every record to standard output, as Flink's print(). */
  print(prefix?: string): DataStreamSink<T> {
    return this.sinkTo(new PrintSink<T>(prefix), 'Print to Std. Out');
  }

  /** Runs the job and returns every record of this stream (bounded streams only). */
  async executeAndCollect(jobName = 'collect'): Promise<T[]> {
    const sink = new CollectSink<T>();
    this.sinkTo(sink, 'Collect');
    await this.environment.execute(jobName);
    return sink.values;
  }

  /** Names the operator that produced this stream (shown in errors, metrics and the job plan). */
  name(name: string): this {
    this.transformation.name = name;
    return this;
  }

  /** A stable id for the operator, used to match its state when restoring a snapshot or savepoint. */
  uid(uid: string): this {
    if (typeof uid !== 'string' || uid.length === 0)
      throw new ConfigurationError('uid() needs a non-empty string');
    this.transformation.uid = uid;
    return this;
  }

  /** The number of parallel subtasks of the operator that produced this stream. */
  setParallelism(parallelism: number): this {
    if (!Number.isInteger(parallelism) || parallelism < 1) {
      throw new ConfigurationError(
        `Operator '${this.transformation.name}': parallelism must be a positive integer, got ${parallelism}`,
      );
    }
    this.transformation.parallelism = parallelism;
    return this;
  }

  /**
   * Declares the type of the records this stream's operator emits, as Flink's `returns(TypeInformation)`: in worker
   * mode they then cross threads written field by field into a Float64Array instead of through msgpackr (several
   * times cheaper per record, see docs/performance.md), and each is checked against the type where it is written.
   * See {@link RecordType} for what a declared type carries.
   *
   * @example
   * const Event = Types.record({ id: 'number', key: 'number', value: 'number', ts: 'number' });
   * env.fromSource(source, strategy, 'events').returns(Event).keyBy((e) => e.key);
   */
  returns(type: RecordType<T>): this {
    if (!(type instanceof RecordType)) {
      throw new ConfigurationError(
        `Operator '${this.transformation.name}': returns() needs a type made by Types.record(...)`,
      );
    }
    if (this.transformation.isVirtual) {
      throw new ConfigurationError(
        `returns() declares the records of an operator, but this stream is made by '${this.transformation.name}' (a ${this.transformation.kind}): call it on the operator's stream before keyBy, a partitioning or union`,
      );
    }
    this.transformation.outputType = type as RecordType<unknown>;
    return this;
  }

  /** The number of key groups of the operator that produced this stream (its upper bound on parallelism). */
  setMaxParallelism(maxParallelism: number): this {
    this.transformation.maxParallelism = maxParallelism;
    return this;
  }

  /** @internal */
  protected partition(partitioning: Partitioning): DataStream<T> {
    const t = new Transformation('partition', partitioning.kind, [this.transformation]);
    t.partitioning = partitioning;
    return new DataStream<T>(this.environment, t);
  }
}

/**
 * Makes the compiler refuse a map function that returns a Promise, with the advice as the missing property's name.
 */
export type NotAsync<R> =
  R extends PromiseLike<unknown>
    ? {
        'map() cannot take a function that returns a Promise: use AsyncDataStream.orderedWait or unorderedWait': never;
      }
    : unknown;

/** The key type of a keyed stream, `never` for any other stream. */
export type KeyOf<S> = S extends { readonly keySelector: KeySelector<any, infer K> } ? K : never;
/** The element type of a stream. */
export type ElementOf<S> = S extends DataStream<infer X> ? X : never;
/** The key of `a.connect(b)`: `a`'s key when both streams are keyed, otherwise none. */
export type ConnectedKey<A, B> = [KeyOf<A>] extends [never]
  ? never
  : [KeyOf<B>] extends [never]
    ? never
    : KeyOf<A>;

/** The end of a stream written to a sink; names the sink operator. */
export class DataStreamSink<T> {
  declare readonly __type?: T;
  /** @internal The sink's job-graph node. */
  readonly transformation: Transformation;

  /** @internal Made by `DataStream.sinkTo`. */
  constructor(transformation: Transformation) {
    this.transformation = transformation;
  }

  name(name: string): this {
    this.transformation.name = name;
    return this;
  }

  uid(uid: string): this {
    this.transformation.uid = uid;
    return this;
  }

  setParallelism(parallelism: number): this {
    this.transformation.parallelism = parallelism;
    return this;
  }
}

function requireFunction(fn: unknown, what: string): void {
  if (typeof fn !== 'function') throw new ConfigurationError(`${what}() needs a function, got ${typeof fn}`);
}
