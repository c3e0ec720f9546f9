// ConnectedStreams: two streams processed together by one two-input operator, sharing state when keyed.
import { notPromise, rejectAsyncFunction, rejectPromiseResult } from '../core/async-function-guard.ts';
import { ConfigurationError } from '../core/errors.ts';
import type {
  Collector,
  CoProcessFunction,
  FunctionObject,
  KeyedCoProcessFunction,
  KeySelector,
} from '../core/functions.ts';
import { DataStream } from './data-stream.ts';
import type { RichFunction } from '../core/runtime-context.ts';
import { Transformation } from '../graph/transformation.ts';
import { CoProcessOperator } from '../operators/co-process-operator.ts';
import { instantiateFunction } from '../operators/user-function.ts';
import type { TwoInputStreamOperator } from '../operators/stream-operator.ts';

/** Maps each input with its own function (Flink's CoMapFunction). */
export interface CoMapFunction<IN1, IN2, OUT> {
  map1(value: IN1): OUT;
  map2(value: IN2): OUT;
}

/**
 * Maps each input to zero or more outputs with its own method (Flink's CoFlatMapFunction). A rich function: `open`
 * gets the runtime context (keyed state when the connected streams are keyed), and fields are per subtask.
 *
 * @example
 * const gate: CoFlatMapFunction<string, string, string> = {
 *   blocked: new Set<string>(),
 *   flatMap1(word, out) { if (!this.blocked.has(word)) out.collect(word); },
 *   flatMap2(word) { this.blocked.add(word); },
 * };
 */
export interface CoFlatMapFunction<IN1, IN2, OUT> extends RichFunction {
  flatMap1(value: IN1, out: Collector<OUT>): void;
  flatMap2(value: IN2, out: Collector<OUT>): void;
}

/**
 * The result of `a.connect(b)`. Key both sides with `keyBy(keyA, keyB)` to share keyed state and timers between
 * them (both selectors must produce the same key for records that belong together).
 *
 * @example
 * orders.connect(payments).keyBy((o) => o.id, (p) => p.orderId).process(new MatchOrderAndPayment());
 */
export class ConnectedStreams<IN1, IN2, K = never> {
  constructor(
    readonly first: DataStream<IN1>,
    readonly second: DataStream<IN2>,
    // Typed loosely on purpose: a keyed ConnectedStreams stays assignable where an unkeyed one is expected
    // (KeyedStream.connect returns the keyed kind where DataStream.connect returns the other).
    private readonly keySelectors?: [KeySelector<IN1, any>, KeySelector<IN2, any>],
  ) {}

  /** Partitions both inputs by key so a KeyedCoProcessFunction sees both sides of a key together. */
  keyBy<K2>(first: KeySelector<IN1, K2>, second: KeySelector<IN2, K2>): ConnectedStreams<IN1, IN2, K2> {
    if (typeof first !== 'function' || typeof second !== 'function') {
      throw new ConfigurationError('ConnectedStreams.keyBy() needs two key selector functions');
    }
    return new ConnectedStreams<IN1, IN2, K2>(this.first.keyBy(first), this.second.keyBy(second), [
      first,
      second,
    ]);
  }

  get isKeyed(): boolean {
    return this.keySelectors !== undefined;
  }

  /** Runs a CoProcessFunction, or a KeyedCoProcessFunction when the streams are keyed. */
  process<OUT, S extends object = Record<string, any>>(
    fn: FunctionObject<
      [K] extends [never] ? CoProcessFunction<IN1, IN2, OUT> : KeyedCoProcessFunction<K, IN1, IN2, OUT>,
      S
    >,
    name = this.isKeyed ? 'KeyedCoProcess' : 'CoProcess',
  ): DataStream<OUT> {
    const f = fn as CoProcessFunction<IN1, IN2, OUT>;
    if (
      f === null ||
      typeof f !== 'object' ||
      typeof f.processElement1 !== 'function' ||
      typeof f.processElement2 !== 'function'
    ) {
      throw new ConfigurationError(
        'process() on connected streams needs processElement1 and processElement2',
      );
    }
    rejectAsyncFunction(f, 'process()', name, ['processElement1', 'processElement2', 'onTimer']);
    return this.transform<OUT>(name, () => new CoProcessOperator<IN1, IN2, OUT>(f));
  }

  /** Maps each side with its own function into one output type. */
  map<OUT>(fn: CoMapFunction<IN1, IN2, OUT>, name = 'CoMap'): DataStream<OUT> {
    if (
      fn === null ||
      typeof fn !== 'object' ||
      typeof fn.map1 !== 'function' ||
      typeof fn.map2 !== 'function'
    ) {
      throw new ConfigurationError('map() on connected streams needs an object with map1 and map2');
    }
    rejectAsyncFunction(fn, 'map()', name, ['map1', 'map2']);
    const coProcess: CoProcessFunction<IN1, IN2, OUT> = {
      processElement1: (v, _ctx, out) => out.collect(notPromise(fn.map1(v), 'map1()')),
      processElement2: (v, _ctx, out) => out.collect(notPromise(fn.map2(v), 'map2()')),
    };
    return this.transform<OUT>(name, () => new CoProcessOperator<IN1, IN2, OUT>(coProcess));
  }

  /**
   * Emits zero or more records per element of either input, each side with its own method (Flink's
   * `ConnectedStreams.flatMap`). On keyed connected streams the function may use keyed state, scoped to the key of
   * the element being processed.
   *
   * @example
   * control.connect(words).keyBy((c) => c, (w) => w).flatMap(new ControlFunction());
   */
  flatMap<OUT, S extends object = Record<string, any>>(
    fn: FunctionObject<CoFlatMapFunction<IN1, IN2, OUT>, S>,
    name = 'Co-Flat Map',
  ): DataStream<OUT> {
    if (
      fn === null ||
      typeof fn !== 'object' ||
      typeof fn.flatMap1 !== 'function' ||
      typeof fn.flatMap2 !== 'function'
    ) {
      throw new ConfigurationError(
        'flatMap() on connected streams needs an object with flatMap1 and flatMap2',
      );
    }
    rejectAsyncFunction(fn, 'flatMap()', name, ['flatMap1', 'flatMap2']);
    // A CoProcessFunction whose methods delegate to the CoFlatMapFunction: the operator copies it per subtask,
    // and the delegate copies the user's function so its fields are per subtask too.
    const coProcess: CoProcessFunction<IN1, IN2, OUT> & { target: CoFlatMapFunction<IN1, IN2, OUT> } = {
      target: fn,
      open(ctx) {
        this.target = instantiateFunction(fn);
        return this.target.open?.(ctx);
      },
      close() {
        return this.target.close?.();
      },
      processElement1(v, _ctx, out) {
        rejectPromiseResult(this.target.flatMap1(v, out), 'flatMap1()');
      },
      processElement2(v, _ctx, out) {
        rejectPromiseResult(this.target.flatMap2(v, out), 'flatMap2()');
      },
    };
    return this.transform<OUT>(name, () => new CoProcessOperator<IN1, IN2, OUT>(coProcess));
  }

  /** Applies a custom two-input operator. */
  transform<OUT>(name: string, factory: () => TwoInputStreamOperator<IN1, IN2, OUT>): DataStream<OUT> {
    const t = new Transformation('operator', name, [this.first.transformation, this.second.transformation]);
    t.operatorFactory = factory;
    if (this.keySelectors !== undefined) t.keySelectors = this.keySelectors as any;
    return new DataStream<OUT>(this.first.environment, t);
  }
}
