// The operator contract every transformation compiles to: one or two inputs, an Output, and an OperatorContext.
import type { RuntimeContext } from '../core/runtime-context.ts';
import type { MetricGroup } from '../core/metric-group.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import type { NamespaceSerializer } from '../state/namespace.ts';
import type { ProcessingTimeClock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { InternalTimerService, Triggerable } from '../time/internal-timer-service.ts';
import type { Output } from './output.ts';
import type { OperatorStateDistribution } from './operator-state-distribution.ts';

/** What the runtime gives an operator subtask. */
export interface OperatorContext {
  readonly operatorName: string;
  readonly uid: string;
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly clock: ProcessingTimeClock;
  /** Where the operator logs (the job's logger). */
  readonly logger: Logger;
  /** @internal The keyed state of this subtask; undefined when the operator is not keyed. */
  readonly keyedStateBackend: KeyedStateBackend | undefined;
  /** The combined watermark of this operator's inputs. */
  currentWatermark(): number;
  /**
   * The timer service of the given name, created on first use (Flink: `getInternalTimerService`). Throws an
   * IllegalStateError naming the operator when the operator is not keyed.
   */
  getInternalTimerService<K, N>(
    name: string,
    namespaceSerializer: NamespaceSerializer<N>,
    triggerable: Triggerable<K, N>,
  ): InternalTimerService<N>;
  /** This subtask's metric group (operator scope); operators register their own metrics here in `setup`. */
  readonly metricGroup: MetricGroup;
  /** The context handed to user functions' `open`. */
  readonly runtimeContext: RuntimeContext;
  /** The checkpoint this run was restored from (undefined on a fresh start). */
  readonly restoredCheckpointId?: number | undefined;
  /** Whether the job takes periodic checkpoints. */
  readonly checkpointingEnabled?: boolean;
  /**
   * Fails the job from outside a record call (a Promise settled, a timer fired), naming this operator and, when
   * given, the record; the error becomes the job's failure. Errors thrown inside a record call need not use it.
   */
  failJob(error: unknown, record?: { value: unknown; timestamp: number }, activity?: string): void;
  /**
   * Asks the sources upstream of this operator to stop (true) or resume (false) polling: how an operator with
   * bounded asynchronous work in flight (async I/O, async sinks) applies backpressure. Calls must alternate.
   */
  setBackpressure(blocked: boolean): void;
}

/** What an operator learns when its state is snapshotted. */
export interface SnapshotContext {
  readonly checkpointId: number;
  readonly kind: 'checkpoint' | 'savepoint';
}

/**
 * The base of every operator. The runtime calls `setup`, then `open`, then for each input element
 * `processElement` (one-input) or `processElement1/2` (two-input), `processWatermark` with the combined watermark
 * of all inputs, `endInput` once every input ended, and `close`. For keyed operators the current key is set
 * before each `processElement` and each timer callback.
 */
export abstract class AbstractStreamOperator<OUT> {
  protected output!: Output<OUT>;
  protected context!: OperatorContext;
  /**
   * Set by the runtime: the timer services of this operator's subtask, whose due event-time timers a watermark fires.
   * An object whose class and method are the same in every job, rather than a closure made per subtask: V8 inlines
   * this call into the operator's watermark path, and a closure made again by the next job's subtask threw that code
   * away at the next job's first watermark (docs/performance.md, "A kept worker's second job").
   */
  timerServices: { advanceWatermark(watermark: number): void } | undefined = undefined;

  setup(context: OperatorContext, output: Output<OUT>): void {
    this.context = context;
    this.output = output;
  }

  open(): void | Promise<void> {}

  /**
   * Called with the operator's new combined input watermark. The default fires due event-time timers, then forwards
   * the watermark, as Flink's AbstractStreamOperator does.
   */
  processWatermark(watermark: number): void {
    this.timerServices?.advanceWatermark(watermark);
    this.output.emitWatermark(watermark);
  }

  /** Called when all inputs became idle (true) or one became active again (false). */
  processWatermarkStatus(idle: boolean): void {
    this.output.emitWatermarkStatus(idle);
  }

  /**
   * Called once after every input has ended (after the final watermark). An operator that still awaits
   * asynchronous results returns a Promise: end of input reaches downstream operators once it resolves.
   */
  endInput(): void | Promise<void> {}

  close(): void | Promise<void> {}

  /**
   * Called right before this subtask's keyed state is snapshotted (and before tools count or read its entries): an
   * operator that keeps per-key data on the heap between snapshots writes it into keyed state here. Flink's operators
   * do this in `snapshotState`, which runs before the keyed backend's snapshot; Weir's {@link snapshotOperatorState}
   * runs after it, hence this hook. The default does nothing.
   */
  prepareKeyedStateSnapshot(): void {}

  /**
   * @internal How many entries this subtask's keyed state (`backend`) would hold in a snapshot taken now: what the
   * `numStateEntries` gauge reports, read once per metrics tick (on a worker thread, every tick, for the figures it
   * sends). The default writes the heap-side data first ({@link prepareKeyedStateSnapshot}) and counts; an operator
   * whose preparation writes much (CEP rewrites every buffered element) counts what it would write instead.
   */
  countKeyedStateEntries(backend: KeyedStateBackend): number {
    this.prepareKeyedStateSnapshot();
    return backend.numStateEntries();
  }

  /**
   * Operator state that is not keyed (e.g. a source's position); keyed state and timers are snapshotted for you.
   * During a checkpoint `context` names it (a two-phase-commit sink pre-commits here).
   */
  // Stryker disable next-line BlockStatement: an empty body returns undefined too
  snapshotOperatorState(_context?: SnapshotContext): unknown {
    return undefined;
  }

  /**
   * Receives this subtask's share of the restored operator state, before `open`, as `operatorStateDistribution`
   * defines it; not called when the share is empty.
   */
  restoreOperatorState(_state: unknown): void {}

  /** How the operator state of a snapshot is shared out on restore; see {@link OperatorStateDistribution}. */
  get operatorStateDistribution(): OperatorStateDistribution {
    return 'per-subtask';
  }

  /** Called once the checkpoint is durable: the moment to make its side effects visible (commit). */
  notifyCheckpointComplete(_checkpointId: number): void | Promise<void> {}
}

/** An operator with one input. */
export interface OneInputStreamOperator<IN, OUT> extends AbstractStreamOperator<OUT> {
  processElement(value: IN, timestamp: number): void;
}

/** An operator with two inputs (connected streams). */
export interface TwoInputStreamOperator<IN1, IN2, OUT> extends AbstractStreamOperator<OUT> {
  processElement1(value: IN1, timestamp: number): void;
  processElement2(value: IN2, timestamp: number): void;
}
