// IntervalJoinOperator: joins two keyed inputs on `left.ts + lower <= right.ts <= left.ts + upper`, in event time.
import { rejectPromiseResult } from '../core/async-function-guard.ts';
import { IllegalStateError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { ProcessJoinContext, ProcessJoinFunction } from '../core/join-functions.ts';
import type { NamespaceSerializer } from '../state/namespace.ts';
import { MapStateDescriptor } from '../core/state-descriptor.ts';
import type { MapState } from '../core/state.ts';
import { structuredCloneSerializer } from '../core/type-serializer.ts';
import type { InternalTimer, InternalTimerService, Triggerable } from '../time/internal-timer-service.ts';
import { hasTimestamp } from '../core/time-domain.ts';
import type { Output } from './output.ts';
import { AbstractStreamOperator, type TwoInputStreamOperator } from './stream-operator.ts';
import { TimestampedCollector } from './timestamped-collector.ts';
import { closeFunction, instantiateFunction, openFunction } from './user-function.ts';

/** Which buffer a cleanup timer is for (Flink's CLEANUP_LEFT / CLEANUP_RIGHT namespaces). */
const CLEANUP_LEFT = 0;
const CLEANUP_RIGHT = 1;
type CleanupNamespace = typeof CLEANUP_LEFT | typeof CLEANUP_RIGHT;

const cleanupNamespaceSerializer: NamespaceSerializer<CleanupNamespace> = {
  key: (n) => n,
  serializer: structuredCloneSerializer,
};

/** The bounds and late-data tags of an interval join. */
export interface IntervalJoinConfig<IN1, IN2> {
  readonly lowerBound: number;
  readonly upperBound: number;
  readonly lowerBoundInclusive: boolean;
  readonly upperBoundInclusive: boolean;
  readonly leftLateDataOutputTag?: OutputTag<IN1> | undefined;
  readonly rightLateDataOutputTag?: OutputTag<IN2> | undefined;
}

/**
 * Flink's IntervalJoinOperator. Per key, each side keeps its elements in a MapState bucketed by timestamp. An
 * arriving element is added to its own buffer and joined with every element of the other buffer whose timestamp
 * lies in its interval; a cleanup timer per (side, timestamp) removes the bucket once the watermark guarantees
 * no future element of the other side can match it. An element behind the watermark is late: it is neither
 * buffered nor joined, and goes to its side's late-data output when one is set.
 *
 * Cost: one MapState scan of the other side's buckets of the key per element (as Flink); state per key is
 * bounded by the interval width times the input rate once watermarks advance.
 */
export class IntervalJoinOperator<K, IN1, IN2, OUT>
  extends AbstractStreamOperator<OUT>
  implements TwoInputStreamOperator<IN1, IN2, OUT>, Triggerable<K, CleanupNamespace>
{
  /** Inclusive bounds: an exclusive bound moves by one millisecond, so the join test needs no flags. */
  private readonly lowerBound: number;
  private readonly upperBound: number;
  private readonly fn: ProcessJoinFunction<IN1, IN2, OUT>;
  private leftBuffer!: MapState<number, IN1[]>;
  private rightBuffer!: MapState<number, IN2[]>;
  private timers!: InternalTimerService<CleanupNamespace>;
  private collector!: TimestampedCollector<OUT>;
  private ctx!: JoinContext;

  constructor(
    private readonly config: IntervalJoinConfig<IN1, IN2>,
    fn: ProcessJoinFunction<IN1, IN2, OUT>,
  ) {
    super();
    this.lowerBound = config.lowerBoundInclusive ? config.lowerBound : config.lowerBound + 1;
    this.upperBound = config.upperBoundInclusive ? config.upperBound : config.upperBound - 1;
    this.fn = instantiateFunction(fn);
  }

  override open(): void | Promise<void> {
    const runtime = this.context.runtimeContext;
    this.leftBuffer = runtime.getMapState(new MapStateDescriptor<number, IN1[]>('LEFT_BUFFER'));
    this.rightBuffer = runtime.getMapState(new MapStateDescriptor<number, IN2[]>('RIGHT_BUFFER'));
    this.timers = this.context.getInternalTimerService<K, CleanupNamespace>(
      'IntervalJoinOperatorCleanUp',
      cleanupNamespaceSerializer,
      this,
    );
    this.collector = new TimestampedCollector(this.output);
    this.ctx = new JoinContext(this.output);
    return openFunction(this.fn, runtime);
  }

  processElement1(value: IN1, timestamp: number): void {
    this.checkTimestamp(timestamp, 'left');
    if (this.isLate(timestamp)) {
      const tag = this.config.leftLateDataOutputTag;
      if (tag !== undefined) this.output.collectSide(tag, value, timestamp);
      return;
    }
    addToBuffer(this.leftBuffer, value, timestamp);
    const from = timestamp + this.lowerBound;
    const to = timestamp + this.upperBound;
    for (const [rightTs, bucket] of this.rightBuffer.entries()) {
      if (rightTs < from || rightTs > to) continue;
      for (let i = 0; i < bucket.length; i++) this.collect(value, bucket[i]!, timestamp, rightTs);
    }
    // Stryker disable next-line EqualityOperator: with an upper bound of 0 both branches give the timestamp
    const cleanupTime = this.upperBound > 0 ? timestamp + this.upperBound : timestamp;
    this.timers.registerEventTimeTimer(CLEANUP_LEFT, cleanupTime);
  }

  processElement2(value: IN2, timestamp: number): void {
    this.checkTimestamp(timestamp, 'right');
    if (this.isLate(timestamp)) {
      const tag = this.config.rightLateDataOutputTag;
      if (tag !== undefined) this.output.collectSide(tag, value, timestamp);
      return;
    }
    addToBuffer(this.rightBuffer, value, timestamp);
    // Seen from the right: left.ts lies in [right.ts - upper, right.ts - lower].
    const from = timestamp - this.upperBound;
    const to = timestamp - this.lowerBound;
    for (const [leftTs, bucket] of this.leftBuffer.entries()) {
      if (leftTs < from || leftTs > to) continue;
      for (let i = 0; i < bucket.length; i++) this.collect(bucket[i]!, value, leftTs, timestamp);
    }
    const relativeUpper = -this.lowerBound;
    // Stryker disable next-line EqualityOperator: with a lower bound of 0 both branches give the timestamp
    const cleanupTime = relativeUpper > 0 ? timestamp + relativeUpper : timestamp;
    this.timers.registerEventTimeTimer(CLEANUP_RIGHT, cleanupTime);
  }

  onEventTime(timer: InternalTimer<K, CleanupNamespace>): void {
    if (timer.namespace === CLEANUP_LEFT) {
      // Stryker disable next-line EqualityOperator: with an upper bound of 0 both branches give the timer's time
      this.leftBuffer.remove(this.upperBound <= 0 ? timer.timestamp : timer.timestamp - this.upperBound);
    } else {
      // Stryker disable next-line EqualityOperator: with a lower bound of 0 both branches give the timer's time
      this.rightBuffer.remove(this.lowerBound <= 0 ? timer.timestamp + this.lowerBound : timer.timestamp);
    }
  }

  onProcessingTime(): void {}

  /** The timestamps buffered on one side for `key` (Flink tests read the buffers the same way). */
  bufferedTimestamps(side: 'left' | 'right', key: K): number[] {
    const backend = this.context.keyedStateBackend!;
    const previous = backend.getCurrentKey();
    backend.setCurrentKey(key);
    try {
      const buffer = side === 'left' ? this.leftBuffer : this.rightBuffer;
      return [...buffer.keys()].sort((a, b) => a - b);
    } finally {
      if (previous !== undefined) backend.setCurrentKey(previous);
    }
  }

  override close(): void | Promise<void> {
    return closeFunction(this.fn);
  }

  private collect(left: IN1, right: IN2, leftTs: number, rightTs: number): void {
    const ctx = this.ctx;
    ctx.leftTimestamp = leftTs;
    ctx.rightTimestamp = rightTs;
    // Stryker disable next-line EqualityOperator: equal timestamps give the same maximum
    ctx.resultTimestamp = leftTs > rightTs ? leftTs : rightTs;
    this.collector.timestamp = ctx.resultTimestamp;
    rejectPromiseResult(this.fn.processElement(left, right, ctx, this.collector), 'processElement()');
  }

  private isLate(timestamp: number): boolean {
    // Before the first watermark (MIN_WATERMARK, -Infinity) no timestamp is behind it.
    return timestamp < this.timers.currentWatermark();
  }

  private checkTimestamp(timestamp: number, side: string): void {
    if (!hasTimestamp(timestamp)) {
      throw new IllegalStateError(
        `Operator '${this.context.operatorName}': the ${side} element has no timestamp; elements of an interval join need event timestamps (assign them with a WatermarkStrategy)`,
      );
    }
  }
}

/** The one ProcessJoinContext of an operator; its timestamps are set before each joined pair. */
class JoinContext implements ProcessJoinContext {
  leftTimestamp = Number.NaN;
  rightTimestamp = Number.NaN;
  resultTimestamp = Number.NaN;

  constructor(private readonly out: Output<unknown>) {}

  getLeftTimestamp(): number {
    return this.leftTimestamp;
  }

  getRightTimestamp(): number {
    return this.rightTimestamp;
  }

  getTimestamp(): number {
    return this.resultTimestamp;
  }

  output<X>(tag: OutputTag<X>, value: X): void {
    if (tag === undefined || tag === null) throw new IllegalStateError('ctx.output needs an OutputTag');
    this.out.collectSide(tag, value, this.resultTimestamp);
  }
}

function addToBuffer<T>(buffer: MapState<number, T[]>, value: T, timestamp: number): void {
  const bucket = buffer.get(timestamp);
  if (bucket === undefined) {
    buffer.put(timestamp, [value]);
  } else {
    bucket.push(value);
    // Written back so that backends holding serialized values (LMDB) see the new element.
    buffer.put(timestamp, bucket);
  }
}
