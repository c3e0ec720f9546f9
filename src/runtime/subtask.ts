// Subtask: one parallel instance of an operator with its state, timers, input valve and output.
import { describeRecord, IllegalStateError, JobExecutionError } from '../api/errors.ts';
import type { StreamNode } from '../graph/stream-graph.ts';
import { HeapKeyedStateBackend } from '../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../state/key-group-range.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import type { ProcessingTimeClock } from '../time/clock.ts';
import { MAX_WATERMARK, MIN_WATERMARK } from '../time/time-domain.ts';
import { TimerServiceManager } from '../time/timer-service-manager.ts';
import { RuntimeContextImpl } from './runtime-context-impl.ts';
import type { AbstractStreamOperator, OperatorContext } from './stream-operator.ts';
import { SubtaskOutput } from './subtask-output.ts';
import { WatermarkValve } from './watermark-valve.ts';
import type { SubtaskInput } from './subtask-input.ts';

/** What a subtask needs from the job it runs in. */
export interface JobServices {
  readonly clock: ProcessingTimeClock;
  /** Fails the job from outside a record call (a processing-time timer, an async source). */
  fail(error: unknown): void;
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
  private channelCount = 0;
  private endedChannels = 0;
  private ended = false;
  currentWatermark = MIN_WATERMARK;

  constructor(
    readonly node: StreamNode,
    readonly index: number,
    private readonly job: JobServices,
  ) {
    this.operator = node.transformation.operatorFactory!();
    const keyed = node.transformation.isKeyed;
    if (keyed) {
      const range = KeyGroupRange.forSubtask(node.maxParallelism, node.parallelism, index);
      this.backend = new HeapKeyedStateBackend(node.maxParallelism, range, () => job.clock.now(), node.name);
      this.timers = new TimerServiceManager(this.backend, job.clock, (fire) => this.guardTimer(fire));
      this.operator.advanceTimers = (watermark) => this.timers!.advanceWatermark(watermark);
    }
    const subtask = this;
    const runtimeContext = new RuntimeContextImpl(node.name, index, node.parallelism, node.maxParallelism, this.backend);
    this.context = {
      operatorName: node.name,
      uid: node.uid,
      subtaskIndex: index,
      parallelism: node.parallelism,
      maxParallelism: node.maxParallelism,
      clock: job.clock,
      keyedStateBackend: this.backend,
      runtimeContext,
      currentWatermark: () => subtask.currentWatermark,
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

  /** Declares the number of input channels (set once the graph is wired). */
  setChannelCount(channels: number): void {
    this.channelCount = channels;
    this.valve = new WatermarkValve(channels);
  }

  processWatermark(channel: number, watermark: number): void {
    const advanced = this.valve.inputWatermark(channel, watermark);
    if (advanced !== undefined) this.advanceWatermark(advanced);
  }

  processWatermarkStatus(channel: number, idle: boolean): void {
    const [status, advanced] = this.valve.inputStatus(channel, idle);
    if (advanced !== undefined) this.advanceWatermark(advanced);
    if (status !== undefined) this.operator.processWatermarkStatus(status);
  }

  /** Called by a source driver: a source has no input channels, so it advances directly. */
  advanceWatermark(watermark: number): void {
    this.currentWatermark = watermark;
    try {
      this.operator.processWatermark(watermark);
    } catch (error) {
      throw this.failure(error, undefined, watermark === MAX_WATERMARK ? 'the final watermark' : `watermark ${watermark}`);
    }
  }

  endOfInput(_channel: number): void {
    this.endedChannels++;
    if (this.endedChannels >= this.channelCount) this.finish();
  }

  /** Ends this subtask's input: the operator's endInput, then end-of-input downstream. */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.operator.endInput();
    } catch (error) {
      throw this.failure(error, undefined, 'the end of input');
    }
    this.output.endOfInput();
  }

  get isFinished(): boolean {
    return this.ended;
  }

  /** Wraps an error into a JobExecutionError naming this subtask, unless it already names one. */
  failure(error: unknown, record?: { value: unknown; timestamp: number }, activity?: string): JobExecutionError {
    if (error instanceof JobExecutionError) return error;
    return new JobExecutionError(
      {
        operator: this.node.name,
        subtask: this.index,
        parallelism: this.node.parallelism,
        ...(record !== undefined ? { record: describeRecord(record.value), timestamp: record.timestamp } : {}),
        ...(activity !== undefined ? { activity } : {}),
      },
      error,
    );
  }

  /** Runs a processing-time firing; a failure there fails the job instead of escaping into the event loop. */
  private guardTimer(fire: () => void): void {
    try {
      fire();
    } catch (error) {
      this.job.fail(this.failure(error, undefined, 'a processing-time timer'));
    }
  }
}
