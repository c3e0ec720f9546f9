// IntervalJoin: `keyedA.intervalJoin(keyedB).between(lower, upper).process(fn)`, a keyed event-time interval join.
import { rejectAsyncFunction } from '../../core/async-function-guard.ts';
import { DataStream } from '../data-stream.ts';
import { ConfigurationError } from '../../core/errors.ts';
import type { Collector, FunctionObject } from '../../core/functions.ts';
import type { KeyedStream } from '../keyed-stream.ts';
import type { OutputTag } from '../../core/output-tag.ts';
import { Transformation } from '../../graph/transformation.ts';
import { IntervalJoinOperator } from '../../operators/interval-join-operator.ts';
import type { ProcessJoinContext, ProcessJoinFunction } from '../../core/join-functions.ts';

/**
 * The result of `keyedA.intervalJoin(keyedB)` (Flink's `KeyedStream.IntervalJoin`): set the interval with
 * `between`. Both streams must be keyed with the same key type; elements join only within their key.
 */
export class IntervalJoin<T1, T2, K> {
  private processingTime = false;

  constructor(
    readonly left: KeyedStream<T1, K>,
    readonly right: KeyedStream<T2, K>,
  ) {}

  /** Joins on event timestamps (the default and, as in Flink, the only supported time domain). */
  inEventTime(): this {
    this.processingTime = false;
    return this;
  }

  /** Flink's processing-time variant, which `between` rejects as Flink does. */
  inProcessingTime(): this {
    this.processingTime = true;
    return this;
  }

  /**
   * Joins each left element `l` with every right element `r` of the same key where
   * `l.ts + lowerBound <= r.ts <= l.ts + upperBound` (bounds in milliseconds, inclusive unless made exclusive).
   *
   * @example
   * clicks.keyBy((c) => c.ad).intervalJoin(impressions.keyBy((i) => i.ad)).between(-60_000, 0)
   */
  between(lowerBound: number, upperBound: number): IntervalJoined<T1, T2, K> {
    if (this.processingTime) {
      throw new ConfigurationError('Time-bounded stream joins are only supported in event time');
    }
    if (!Number.isFinite(lowerBound) || !Number.isFinite(upperBound)) {
      throw new ConfigurationError(
        `between() needs finite bounds in milliseconds, got ${lowerBound} and ${upperBound}`,
      );
    }
    if (lowerBound > upperBound) {
      throw new ConfigurationError(
        `lowerBound <= upperBound must be fulfilled, got lowerBound ${lowerBound} > upperBound ${upperBound}`,
      );
    }
    return new IntervalJoined<T1, T2, K>(this.left, this.right, lowerBound, upperBound);
  }
}

/**
 * An interval join with its bounds (Flink's `IntervalJoined`): optionally make a bound exclusive or route late
 * elements to side outputs, then `process` each joined pair with a ProcessJoinFunction.
 *
 * State is cleaned as the watermark passes: an element stays buffered until no element of the other side within
 * its interval can still arrive on time. An element behind the watermark when it arrives is late: it is not
 * joined, and goes to `sideOutputLeftLateData` / `sideOutputRightLateData` when set (dropped otherwise).
 */
export class IntervalJoined<T1, T2, K> {
  private lowerInclusive = true;
  private upperInclusive = true;
  private leftLateTag: OutputTag<T1> | undefined = undefined;
  private rightLateTag: OutputTag<T2> | undefined = undefined;

  constructor(
    private readonly left: KeyedStream<T1, K>,
    private readonly right: KeyedStream<T2, K>,
    private readonly lowerBound: number,
    private readonly upperBound: number,
  ) {}

  /** Excludes the lower bound: `l.ts + lowerBound < r.ts`. */
  lowerBoundExclusive(): this {
    this.lowerInclusive = false;
    return this;
  }

  /** Excludes the upper bound: `r.ts < l.ts + upperBound`. */
  upperBoundExclusive(): this {
    this.upperInclusive = false;
    return this;
  }

  /** Sends left elements that arrive behind the watermark to the side output `tag`. */
  sideOutputLeftLateData(tag: OutputTag<T1>): this {
    this.leftLateTag = requireTag(tag);
    return this;
  }

  /** Sends right elements that arrive behind the watermark to the side output `tag`. */
  sideOutputRightLateData(tag: OutputTag<T2>): this {
    this.rightLateTag = requireTag(tag);
    return this;
  }

  /**
   * Calls `fn` for every joined pair; results carry the larger timestamp of the pair. `fn` is a
   * ProcessJoinFunction object (with `open` / `close` and keyed state) or a plain function of the same signature.
   */
  process<R, S extends object = Record<string, any>>(
    fn:
      | FunctionObject<ProcessJoinFunction<T1, T2, R>, S>
      | ((left: T1, right: T2, ctx: ProcessJoinContext, out: Collector<R>) => void),
    name = 'IntervalJoin',
  ): DataStream<R> {
    const join: ProcessJoinFunction<T1, T2, R> =
      typeof fn === 'function' ? { processElement: fn } : (fn as ProcessJoinFunction<T1, T2, R>);
    if (join === null || typeof join !== 'object' || typeof join.processElement !== 'function') {
      throw new ConfigurationError(
        'process() on an interval join needs a ProcessJoinFunction: { processElement(left, right, ctx, out) }',
      );
    }
    rejectAsyncFunction(fn, 'process()', name, ['processElement']);
    const config = {
      lowerBound: this.lowerBound,
      upperBound: this.upperBound,
      lowerBoundInclusive: this.lowerInclusive,
      upperBoundInclusive: this.upperInclusive,
      leftLateDataOutputTag: this.leftLateTag,
      rightLateDataOutputTag: this.rightLateTag,
    };
    // Two keyed inputs into one operator: state and cleanup timers are scoped to the key both sides share.
    const t = new Transformation('operator', name, [this.left.transformation, this.right.transformation]);
    t.operatorFactory = () => new IntervalJoinOperator<K, T1, T2, R>(config, join);
    t.keySelectors = [this.left.keySelector, this.right.keySelector];
    return new DataStream<R>(this.left.environment, t);
  }
}

function requireTag<X>(tag: OutputTag<X>): OutputTag<X> {
  if (tag === null || typeof tag !== 'object')
    throw new ConfigurationError('Side output tag must not be null.');
  return tag;
}
