// SinkOperator: hands records to a sink's writer; flushes it when the job closes.
import { rejectAsyncFunction, rejectPromiseResult } from '../core/async-function-guard.ts';
import type { Sink, SinkWriter } from '../core/sink.ts';
import { hasTimestamp } from '../core/time-domain.ts';
import {
  AbstractStreamOperator,
  type OneInputStreamOperator,
  type SnapshotContext,
} from './stream-operator.ts';
import { operatorStateShare, type OperatorStateDistribution } from './operator-state-distribution.ts';

export class SinkOperator<T>
  extends AbstractStreamOperator<never>
  implements OneInputStreamOperator<T, never>
{
  private writer!: SinkWriter<T>;
  private restoredState: unknown = undefined;
  private restoredStates: readonly unknown[] | undefined = undefined;
  constructor(private readonly sink: Sink<T>) {
    super();
  }

  override open(): void {
    this.writer = this.sink.createWriter({
      subtaskIndex: this.context.subtaskIndex,
      parallelism: this.context.parallelism,
      sinkName: this.context.operatorName,
      restoredState: this.restoredState,
      restoredStates: this.restoredStates,
      restoredCheckpointId: this.context.restoredCheckpointId,
      checkpointingEnabled: this.context.checkpointingEnabled === true,
      clock: this.context.clock,
      setBackpressure: (blocked) => this.context.setBackpressure(blocked),
      failJob: (error, activity) => this.context.failJob(error, undefined, activity),
    });
    // Sinks that write through Promises are AsyncSinks; an async write() would lose its failures and backpressure.
    rejectAsyncFunction(this.writer, 'sinkTo()', this.context.operatorName, ['write']);
  }

  processElement(value: T, timestamp: number): void {
    rejectPromiseResult(this.writer.write(value, hasTimestamp(timestamp) ? timestamp : undefined), 'write()');
  }

  override processWatermark(watermark: number): void {
    this.writer.writeWatermark?.(watermark);
  }

  override endInput(): void | Promise<void> {
    // An asynchronous end of input (pending writes) delays the job's end, and so its final checkpoint.
    return this.writer.endOfInput?.();
  }

  override snapshotOperatorState(context?: SnapshotContext): unknown {
    return context === undefined ? undefined : this.writer?.snapshotState?.(context.checkpointId);
  }

  /**
   * Gets every old subtask's writer state (union): the writer sees them all as `restoredStates`, and as
   * `restoredState` its own, or, for a sink that redistributes, the concatenated states of old subtasks j with
   * `j % parallelism === subtaskIndex`.
   */
  override restoreOperatorState(states: unknown): void {
    const all = states as readonly unknown[];
    this.restoredStates = all;
    const { subtaskIndex, parallelism } = this.context;
    if (this.sink.redistributesState !== true) {
      this.restoredState = all[subtaskIndex];
      return;
    }
    const share = operatorStateShare('redistribute', all, subtaskIndex, parallelism) as
      unknown[][] | undefined;
    this.restoredState = share === undefined ? undefined : share.length === 1 ? share[0] : share.flat();
  }

  override get operatorStateDistribution(): OperatorStateDistribution {
    return 'union';
  }

  override notifyCheckpointComplete(checkpointId: number): void | Promise<void> {
    return this.writer?.notifyCheckpointComplete?.(checkpointId);
  }

  override close(): void | Promise<void> {
    return this.writer?.close?.();
  }
}
