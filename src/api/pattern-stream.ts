// PatternStream: a stream with a pattern applied — choose the time domain, late-data output, and what to emit per match.
import { notPromise, rejectAsyncFunction, rejectPromiseResult } from '../core/async-function-guard.ts';
import type { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { Collector } from '../core/functions.ts';
import { KeyedStream } from './keyed-stream.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type {
  PatternFlatSelectFunction,
  PatternProcessContext,
  PatternProcessFunction,
  PatternSelectFunction,
  PatternTimeoutFunction,
  TimedOutPartialMatchHandler,
} from '../cep/functions.ts';
import { compilePattern } from '../cep/nfa/compiler/nfa-compiler.ts';
import { CepOperator, type EventComparator } from '../cep/operator/cep-operator.ts';
import type { Pattern } from '../cep/pattern/pattern.ts';

interface PatternStreamOptions<T> {
  readonly comparator: EventComparator<T> | undefined;
  readonly lateDataOutputTag: OutputTag<T> | undefined;
  readonly processingTime: boolean;
}

/**
 * The result of `CEP.pattern(stream, pattern)` (Flink's `PatternStream`). Nothing runs until one of `process`,
 * `select` or `flatSelect` is called; that is also when the pattern is compiled, so a malformed pattern fails the
 * job build with a {@link MalformedPatternError}. `M` is the match type: stage names to event arrays.
 *
 * @example
 * const alerts = CEP.pattern(tx.keyBy((t) => t.card), pattern)
 *   .sideOutputLateData(lateTag)
 *   .select((m) => ({ card: m.small[0]!.card, amount: m.large[0]!.amount }));
 */
export class PatternStream<T, M> {
  /** @internal Use `CEP.pattern`. */
  constructor(
    private readonly input: DataStream<T>,
    private readonly pattern: Pattern<T, any, any, any>,
    private readonly options: PatternStreamOptions<T>,
  ) {}

  /** Matches in processing time: each element at the time it arrives (Flink's `inProcessingTime()`). */
  inProcessingTime(): PatternStream<T, M> {
    return new PatternStream(this.input, this.pattern, { ...this.options, processingTime: true });
  }

  /** Matches in event time, ordered by timestamps and driven by watermarks (the default). */
  inEventTime(): PatternStream<T, M> {
    return new PatternStream(this.input, this.pattern, { ...this.options, processingTime: false });
  }

  /** Sends elements that arrive behind the watermark to `tag` instead of dropping them. */
  sideOutputLateData(tag: OutputTag<T>): PatternStream<T, M> {
    return new PatternStream(this.input, this.pattern, { ...this.options, lateDataOutputTag: tag });
  }

  /**
   * Handles every match with a {@link PatternProcessFunction}; if it also implements
   * {@link TimedOutPartialMatchHandler}, timed-out partial matches go to `processTimedOutMatch`.
   *
   * @example
   * .process({ processMatch(m, ctx, out) { out.collect(m.start[0]!.id); } })
   */
  process<OUT>(
    fn: PatternProcessFunction<T, OUT, M> & Partial<TimedOutPartialMatchHandler<T, M>>,
    name = 'CepOperator',
  ): DataStream<OUT> {
    if (fn === null || typeof fn !== 'object' || typeof fn.processMatch !== 'function') {
      throw new ConfigurationError('process() needs an object with a processMatch method');
    }
    rejectAsyncFunction(fn, 'process()', name, ['processMatch', 'processTimedOutMatch']);
    const compiled = compilePattern(this.pattern);
    const { comparator, lateDataOutputTag, processingTime } = this.options;
    const factory = () =>
      new CepOperator<T, unknown, OUT>(
        compiled,
        fn as PatternProcessFunction<T, OUT, any>,
        processingTime,
        comparator,
        lateDataOutputTag,
      );
    // Flink keys a non-keyed stream by a constant and runs the operator with parallelism 1
    const stream =
      this.input instanceof KeyedStream
        ? this.input.transform<OUT>(name, factory)
        : this.input
            .keyBy(() => 0)
            .transform<OUT>(name === 'CepOperator' ? 'GlobalCepOperator' : name, factory)
            .setParallelism(1);
    stream.transformation.isCep = true;
    return stream;
  }

  /** Emits one result per match. */
  select<OUT>(selectFn: PatternSelectFunction<M, OUT>): DataStream<OUT>;
  /** Emits one result per match, and one per timed-out partial match to `timeoutTag`. */
  select<OUT, TO>(
    timeoutTag: OutputTag<TO>,
    timeoutFn: PatternTimeoutFunction<M, TO>,
    selectFn: PatternSelectFunction<M, OUT>,
  ): DataStream<OUT>;
  select<OUT, TO>(
    first: PatternSelectFunction<M, OUT> | OutputTag<TO>,
    timeoutFn?: PatternTimeoutFunction<M, TO>,
    selectFn?: PatternSelectFunction<M, OUT>,
  ): DataStream<OUT> {
    if (typeof first === 'function') {
      const select = first;
      rejectAsyncFunction(select, 'select()', 'CepOperator');
      return this.process<OUT>({
        processMatch: (m, _ctx, out) => out.collect(notPromise(select(m), 'select function')),
      });
    }
    const tag = first;
    requireFunctions(timeoutFn, selectFn, 'select');
    rejectAsyncFunction(selectFn, 'select()', 'CepOperator');
    rejectAsyncFunction(timeoutFn, 'select()', 'CepOperator');
    return this.process<OUT>({
      processMatch: (m, _ctx, out) => out.collect(notPromise(selectFn!(m), 'select function')),
      processTimedOutMatch: (m: Partial<M>, ctx: PatternProcessContext) =>
        ctx.output(tag, notPromise(timeoutFn!(m, ctx.timestamp()), 'timeout function')),
    });
  }

  /** Emits any number of results per match. */
  flatSelect<OUT>(flatSelectFn: PatternFlatSelectFunction<M, OUT>): DataStream<OUT>;
  /** Also emits any number of results per timed-out partial match to `timeoutTag`. */
  flatSelect<OUT, TO>(
    timeoutTag: OutputTag<TO>,
    timeoutFn: (match: Partial<M>, timeoutTimestamp: number, out: Collector<TO>) => void,
    flatSelectFn: PatternFlatSelectFunction<M, OUT>,
  ): DataStream<OUT>;
  flatSelect<OUT, TO>(
    first: PatternFlatSelectFunction<M, OUT> | OutputTag<TO>,
    timeoutFn?: (match: Partial<M>, timeoutTimestamp: number, out: Collector<TO>) => void,
    flatSelectFn?: PatternFlatSelectFunction<M, OUT>,
  ): DataStream<OUT> {
    if (typeof first === 'function') {
      const flat = first;
      rejectAsyncFunction(flat, 'flatSelect()', 'CepOperator');
      return this.process<OUT>({
        processMatch: (m, _ctx, out) => rejectPromiseResult(flat(m, out), 'flatSelect function'),
      });
    }
    const tag = first;
    requireFunctions(timeoutFn, flatSelectFn, 'flatSelect');
    rejectAsyncFunction(flatSelectFn, 'flatSelect()', 'CepOperator');
    rejectAsyncFunction(timeoutFn, 'flatSelect()', 'CepOperator');
    return this.process<OUT>({
      processMatch: (m, _ctx, out) => flatSelectFn!(m, out),
      processTimedOutMatch: (m: Partial<M>, ctx: PatternProcessContext) =>
        timeoutFn!(m, ctx.timestamp(), { collect: (v: TO) => ctx.output(tag, v) }),
    });
  }
}

function requireFunctions(a: unknown, b: unknown, method: string): void {
  if (typeof a !== 'function' || typeof b !== 'function') {
    throw new ConfigurationError(`${method}(timeoutTag, timeoutFn, fn) needs two functions`);
  }
}
