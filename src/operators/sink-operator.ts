// SinkOperator: hands records to a sink's writer; flushes it when the job closes.
import { rejectAsyncFunction, rejectPromiseResult } from '../core/async-function-guard.ts';
import type { Sink, SinkWriter } from '../core/sink.ts';
import { hasTimestamp } from '../core/time-domain.ts';
import {
  AbstractStreamOperator,
  type OneInputStreamOperator,
  type SnapshotContext,
} from './stream-operator.ts';

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

  override restoreOperatorState(state: unknown): void {
    if (!this.sink.redistributesState || this.restoredState === undefined) this.restoredState = state;
    else this.restoredState = [...(this.restoredState as unknown[]), ...(state as unknown[])];
  }

  override get redistributesOperatorState(): boolean {
    return this.sink.redistributesState === true;
  }

  override restoreUnionOperatorState(states: readonly unknown[]): void {
    this.restoredStates = states;
  }

  override notifyCheckpointComplete(checkpointId: number): void | Promise<void> {
    return this.writer?.notifyCheckpointComplete?.(checkpointId);
  }

  override close(): void | Promise<void> {
    return this.writer?.close?.();
  }
}
