// Subtask: one parallel instance of an operator with its state, timers, input valve and output.
import type { Logger } from '../core/logger.ts';
import { describeRecord, IllegalStateError, JobExecutionError } from '../core/errors.ts';
import type { StreamNode } from '../graph/stream-graph.ts';
import { HeapKeyedStateBackend } from '../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../state/key-group-range.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import type { ProcessingTimeClock } from '../core/clock.ts';
import { MAX_WATERMARK, MIN_WATERMARK } from '../core/time-domain.ts';
import { TimerServiceManager } from '../time/timer-service-manager.ts';
import { RuntimeContextImpl } from '../operators/runtime-context-impl.ts';
import type { AbstractStreamOperator, OperatorContext } from '../operators/stream-operator.ts';
import { SubtaskOutput } from './subtask-output.ts';
import { chainedOutput } from './chained-output.ts';
import { WatermarkValve } from './watermark-valve.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { StateBackend } from '../state/state-backend.ts';
import { BarrierAligner } from './barrier-aligner.ts';
import type { InputChannel } from './input-channel.ts';
import type { SubtaskInput } from './subtask-input.ts';
import { performance } from 'node:perf_hooks';
import { DISCARDING_METRIC_SINK, MetricGroupImpl } from '../metrics/metric-group.ts';
import type { MetricRegistry } from '../metrics/metric-registry.ts';
import type { BusyTimeTracker, SubtaskTime } from './busy-time-tracker.ts';

/** What a subtask needs from the job it runs in. */
export interface JobServices {
  readonly clock: ProcessingTimeClock;
  /** Fails the job from outside a record call (a processing-time timer, an async source). */
  fail(error: unknown): void;
  /** Creates keyed state backends (default: the heap backend). */
  readonly stateBackend?: StateBackend | undefined;
  /** The checkpoint this run was restored from, if any. */
  readonly restoredCheckpointId?: number | undefined;
  /** Whether periodic checkpoints run (two-phase-commit sinks then commit on checkpoints, not at end of input). */
  readonly checkpointingEnabled?: boolean;
  /** Called when a subtask has aligned a barrier: snapshot it (the subtask forwards the barrier afterwards). */
  onBarrierAligned?(subtask: Subtask, barrier: CheckpointBarrier): void;
  /** Holds back (or releases) the source subtasks upstream of `subtask`: backpressure from asynchronous work. */
  setBackpressure?(subtask: Subtask, blocked: boolean): void;
  /** A subtask whose operator finishes asynchronously: the job is done only once `finished` settled. */
  trackFinish?(finished: Promise<void>): void;
  /** Called when a subtask gave up aligning a checkpoint: that checkpoint cannot complete. */
  onCheckpointDeclined?(subtask: Subtask, checkpointId: number, reason: string): void;
  /** Bytes a subtask's blocked channels may hold while aligning before it declines the checkpoint. */
  readonly maxAlignmentBytes?: number | undefined;
  /** Told when a subtask's input has ended (its end of input was handled). */
  subtaskFinished?(): void;
  /** Times subtasks for busy / back-pressured / idle time (disabled when metrics are off). */
  readonly timing: BusyTimeTracker;
  /** Where operators and sources log. */
  readonly logger: Logger;
  /** The job's metric group and registry, when metrics are on. */
  readonly metricScope?:
    { readonly registry: MetricRegistry; readonly jobGroup: MetricGroupImpl } | undefined;
}

/**
 * Owns one operator instance and everything scoped to it: the keyed backend and timer services (keyed operators
 * only), the watermark valve over its input channels, and its output. Watermarks reach the operator only when
 * the combined input watermark advances; end of input only when every channel has ended.
 */
export class Subtask {
  readonly operator: AbstractStreamOperator<any>;
  readonly backend: KeyedStateBackend | undefined;
  readonly timers: TimerServiceManager | undefined;
  readonly output = new SubtaskOutput<unknown>();
  readonly inputs: SubtaskInput[] = [];
  readonly context: OperatorContext;
  private valve: WatermarkValve = new WatermarkValve(0);
  /** Every input channel, numbered over all inputs in order. */
  channels: readonly InputChannel[] = [];
  private channelCount = 0;
  private endedChannels = 0;
  private ended = false;
  /** Aligns barriers when there are several input channels (one channel is aligned by definition). */
  aligner: BarrierAligner | undefined = undefined;
  /**
   * Blocked input channels this subtask's records can reach (sources only). A source is not polled while it is
   * above zero: that is the backpressure of barrier alignment.
   */
  blockedDownstream = 0;
  private resumeSource: (() => void) | undefined = undefined;
  /** Restored from a checkpoint taken after this subtask finished: it only passes end-of-stream signals on. */
  private restoredFinished = false;
  /** The newest checkpoint this subtask was snapshotted for (0: none yet). */
  lastCheckpointId = 0;
  /** Barriers a source subtask injects at its next batch boundary (set by the checkpoint coordinator). */
  readonly pendingBarriers: CheckpointBarrier[] = [];
  currentWatermark = MIN_WATERMARK;
  /** How many downstream operators hold this source subtask back (it polls only at 0). */
  private holds = 0;
  private releaseWaiters: (() => void)[] = [];
  /** Bytes this subtask contributed to the last completed checkpoint (Flink's per-subtask state size). */
  checkpointedStateSize = 0;
  /** This subtask's busy, back-pressured and idle time. */
  readonly time: SubtaskTime;
  /** Flink's operator scope: job variables plus operator_id, operator_name and subtask_index. */
  readonly metricGroup: MetricGroupImpl;

  constructor(
    readonly node: StreamNode,
    readonly index: number,
    private readonly job: JobServices,
  ) {
    this.operator = node.transformation.operatorFactory!();
    this.time = job.timing.track();
    this.metricGroup = operatorMetricGroup(job, node, index);
    const keyed = node.transformation.isKeyed;
    if (keyed) {
      const range = KeyGroupRange.forSubtask(node.maxParallelism, node.parallelism, index);
      this.backend =
        job.stateBackend !== undefined
          ? job.stateBackend.createKeyedStateBackend({
              operatorName: node.name,
              uid: node.uid,
              subtaskIndex: index,
              maxParallelism: node.maxParallelism,
              keyGroupRange: range,
              clock: () => job.clock.now(),
            })
          : new HeapKeyedStateBackend(node.maxParallelism, range, () => job.clock.now(), node.name);
      this.timers = new TimerServiceManager(this.backend, job.clock, (fire) => this.guardTimer(fire));
      this.operator.timerServices = this.timers;
    }
    const subtask = this;
    const runtimeContext = new RuntimeContextImpl(
      node.name,
      index,
      node.parallelism,
      node.maxParallelism,
      this.backend,
      this.metricGroup,
    );
    this.context = {
      operatorName: node.name,
      uid: node.uid,
      subtaskIndex: index,
      parallelism: node.parallelism,
      maxParallelism: node.maxParallelism,
      clock: job.clock,
      logger: job.logger,
      keyedStateBackend: this.backend,
      runtimeContext,
      metricGroup: this.metricGroup,
      currentWatermark: () => subtask.currentWatermark,
      restoredCheckpointId: job.restoredCheckpointId,
      checkpointingEnabled: job.checkpointingEnabled === true,
      failJob(error, record, activity) {
        job.fail(subtask.failure(error, record, activity));
      },
      setBackpressure(blocked) {
        job.setBackpressure?.(subtask, blocked);
      },
      getInternalTimerService(name, namespaceSerializer, triggerable) {
        if (subtask.timers === undefined) {
          throw new IllegalStateError(
            `Timers can only be used on a keyed stream (after keyBy); operator '${node.name}' is not keyed`,
          );
        }
        return subtask.timers.getInternalTimerService(name, namespaceSerializer, triggerable);
      },
    };
    this.operator.setup(this.context, this.output);
  }

  /**
   * Once the graph is wired: an operator whose one main edge is a chained hop into a one-input operator emits into a
   * `ChainedOutput` of that hop instead of this subtask's output (see there why).
   */
  chainOutput(): void {
    const input = this.output.chainedInput();
    const chained = input === undefined ? undefined : chainedOutput(this.output, input);
    if (chained !== undefined) this.operator.setup(this.context, chained);
  }

  /** Declares the input channels (set once the graph is wired). */
  setChannels(channels: readonly InputChannel[]): void {
    this.channels = channels;
    this.channelCount = channels.length;
    this.valve = new WatermarkValve(channels.length);
    if (channels.length > 1) {
      const subtask = this;
      this.aligner = new BarrierAligner(
        channels,
        {
          aligned: (barrier) => subtask.barrierAligned(barrier),
          declined: (id, reason) => subtask.job.onCheckpointDeclined?.(subtask, id, reason),
        },
        this.job.maxAlignmentBytes,
      );
    }
  }

  /** One blocked channel downstream of this source was released; resumes polling when none is left. */
  downstreamReleased(): void {
    if (--this.blockedDownstream > 0) return;
    const resume = this.resumeSource;
    this.resumeSource = undefined;
    resume?.();
  }

  /** Resolves once no blocked channel is downstream of this source (at once if none is). */
  whenDownstreamReleased(): Promise<void> {
    if (this.blockedDownstream === 0) return Promise.resolve();
    return new Promise((resolve) => (this.resumeSource = resolve));
  }

  processWatermark(channel: number, watermark: number): void {
    const advanced = this.valve.inputWatermark(channel, watermark);
    if (advanced === undefined) return;
    const timing = this.job.timing;
    if (timing.active) {
      this.advanceWatermarkTimed(advanced);
    } else if (timing.timesFiring()) {
      this.advanceWatermarkAsRoot(advanced);
    } else {
      // Metrics off, or inside a root that is not sampled (a source batch): the watermark's time, with every
      // result it fires, is that root's, split by the root's samples. No clock read per fired result.
      this.advanceWatermark(advanced);
    }
  }

  /** A watermark inside a sampled root: a hop that times itself, as a record's does. */
  private advanceWatermarkTimed(watermark: number): void {
    const timing = this.job.timing;
    const outer = timing.beginHop();
    const start = performance.now();
    try {
      this.advanceWatermark(watermark);
    } finally {
      timing.endHop(this.time, outer, start);
    }
  }

  /** A watermark that arrives outside every root (from another thread, a periodic emit): a firing root. */
  private advanceWatermarkAsRoot(watermark: number): void {
    const timing = this.job.timing;
    const start = timing.beginFiring();
    try {
      this.advanceWatermark(watermark);
    } finally {
      timing.endFiring(this.time, start);
    }
  }

  /** Flink's checkpointAlignmentTime: nanoseconds the last completed alignment took (0 with one channel). */
  get checkpointAlignmentTime(): number {
    return Math.round((this.aligner?.lastAlignmentMs ?? 0) * 1e6);
  }

  processWatermarkStatus(channel: number, idle: boolean): void {
    const [status, advanced] = this.valve.inputStatus(channel, idle);
    if (advanced !== undefined) this.advanceWatermark(advanced);
    if (status !== undefined) this.operator.processWatermarkStatus(status);
  }

  /**
   * A checkpoint barrier from one input channel. With one channel the subtask is aligned at once; with several,
   * the BarrierAligner blocks channels that are ahead until all delivered it.
   */
  processBarrier(channel: InputChannel, barrier: CheckpointBarrier): void {
    if (this.aligner === undefined) this.barrierAligned(barrier);
    else this.aligner.barrier(channel, barrier);
  }

  /** Snapshots this subtask (through the job's checkpoint hooks), then forwards the barrier downstream. */
  barrierAligned(barrier: CheckpointBarrier): void {
    this.job.onBarrierAligned?.(this, barrier);
    this.output.emitBarrier(barrier);
  }

  /** The coordinator gave up on a checkpoint: release channels held back for it. */
  abortCheckpoint(checkpointId: number): void {
    this.aligner?.abort(checkpointId);
    for (let i = this.pendingBarriers.length - 1; i >= 0; i--) {
      if (this.pendingBarriers[i]!.id === checkpointId) this.pendingBarriers.splice(i, 1);
    }
  }

  /** Marks this subtask as finished before the checkpoint it is restored from; it will not run its operator again. */
  markRestoredFinished(): void {
    this.restoredFinished = true;
  }

  get wasRestoredFinished(): boolean {
    return this.restoredFinished;
  }

  /** Called by a source driver: a source has no input channels, so it advances directly. */
  advanceWatermark(watermark: number): void {
    this.currentWatermark = watermark;
    if (this.restoredFinished) {
      this.output.emitWatermark(watermark);
      return;
    }
    try {
      this.operator.processWatermark(watermark);
    } catch (error) {
      throw this.failure(
        error,
        undefined,
        watermark === MAX_WATERMARK ? 'the final watermark' : `watermark ${watermark}`,
      );
    }
  }

  endOfInput(channel: number): void {
    this.aligner?.channelEnded(this.channels[channel]!);
    this.endedChannels++;
    if (this.endedChannels >= this.channelCount) this.finish();
  }

  /**
   * Ends this subtask's input: the operator's endInput, then end-of-input downstream; when endInput returns a
   * Promise (asynchronous results still due), end-of-input follows once it resolves.
   */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.job.subtaskFinished?.();
    if (this.restoredFinished) {
      this.output.endOfInput();
      return;
    }
    let done: void | Promise<void>;
    try {
      done = this.operator.endInput();
    } catch (error) {
      throw this.failure(error, undefined, 'the end of input');
    }
    if (done instanceof Promise) {
      const finished = done.then(
        () => this.output.endOfInput(),
        (error: unknown) => {
          throw this.failure(error, undefined, 'the end of input');
        },
      );
      if (this.job.trackFinish !== undefined) this.job.trackFinish(finished);
      else finished.catch((error: unknown) => this.job.fail(error));
      return;
    }
    this.output.endOfInput();
  }

  /** A downstream operator holds this source subtask back (backpressure). */
  holdBack(): void {
    this.holds++;
  }

  /** A downstream operator no longer holds this source subtask back. */
  releaseHold(): void {
    if (this.holds > 0 && --this.holds === 0) {
      const waiters = this.releaseWaiters;
      this.releaseWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  get isHeldBack(): boolean {
    return this.holds > 0;
  }

  /** Resolves once no downstream operator holds this source subtask back. */
  whenReleased(): Promise<void> {
    if (this.holds === 0) return Promise.resolve();
    return new Promise((resolve) => this.releaseWaiters.push(resolve));
  }

  get isFinished(): boolean {
    return this.ended;
  }

  /** Wraps an error into a JobExecutionError naming this subtask, unless it already names one. */
  failure(
    error: unknown,
    record?: { value: unknown; timestamp: number },
    activity?: string,
  ): JobExecutionError {
    if (error instanceof JobExecutionError) return error;
    return new JobExecutionError(
      {
        operator: this.node.name,
        subtask: this.index,
        parallelism: this.node.parallelism,
        ...(record !== undefined
          ? { record: describeRecord(record.value), timestamp: record.timestamp }
          : {}),
        ...(activity !== undefined ? { activity } : {}),
      },
      error,
    );
  }

  /** Runs a processing-time firing; a failure there fails the job instead of escaping into the event loop. */
  private guardTimer(fire: () => void): void {
    // A timer fires from the event loop, outside every root: a firing root of its own (sampled as firings are).
    const timing = this.job.timing;
    const root = timing.timesFiring();
    const start = root ? timing.beginFiring() : 0;
    try {
      fire();
    } catch (error) {
      this.job.fail(this.failure(error, undefined, 'a processing-time timer'));
    } finally {
      if (root) timing.endFiring(this.time, start);
    }
  }
}

/** The operator-scope group of one subtask (Flink: `<job_name>.<operator_name>.<subtask_index>`). */
function operatorMetricGroup(job: JobServices, node: StreamNode, index: number): MetricGroupImpl {
  const variables = {
    operator_id: node.uid,
    operator_name: node.name,
    subtask_index: String(index),
  };
  if (job.metricScope === undefined) {
    return new MetricGroupImpl(DISCARDING_METRIC_SINK, 'operator', variables, [node.name, String(index)]);
  }
  return operatorScope(job.metricScope, node, index);
}

/**
 * The operator-scope group of subtask `index` of `node` in a job's registry: on the subtask's thread, and on the
 * main thread for the metrics a worker thread's subtask mirrors there.
 */
export function operatorScope(
  scope: { readonly registry: MetricRegistry; readonly jobGroup: MetricGroupImpl },
  node: StreamNode,
  index: number,
): MetricGroupImpl {
  const { registry, jobGroup } = scope;
  const variables = { operator_id: node.uid, operator_name: node.name, subtask_index: String(index) };
  return registry.createGroup('operator', { ...jobGroup.getAllVariables(), ...variables }, [
    ...jobGroup.getScopeComponents(),
    node.name,
    String(index),
  ]);
}
