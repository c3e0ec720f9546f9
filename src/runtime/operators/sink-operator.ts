// SinkOperator: hands records to a sink's writer; flushes it when the job closes.
import type { Sink, SinkWriter } from '../../connectors/sink.ts';
import { hasTimestamp } from '../../time/time-domain.ts';
import {
  AbstractStreamOperator,
  type OneInputStreamOperator,
  type SnapshotContext,
} from '../stream-operator.ts';

export class SinkOperator<T>
  extends AbstractStreamOperator<never>
  implements OneInputStreamOperator<T, never>
{
  private writer!: SinkWriter<T>;
  private restoredState: unknown = undefined;
  constructor(private readonly sink: Sink<T>) {
    super();
  }

  override open(): void {
    this.writer = this.sink.createWriter({
      subtaskIndex: this.context.subtaskIndex,
      parallelism: this.context.parallelism,
      sinkName: this.context.operatorName,
      restoredState: this.restoredState,
      restoredCheckpointId: this.context.restoredCheckpointId,
      checkpointingEnabled: this.context.checkpointingEnabled === true,
    });
  }

  processElement(value: T, timestamp: number): void {
    this.writer.write(value, hasTimestamp(timestamp) ? timestamp : undefined);
  }

  override processWatermark(watermark: number): void {
    this.writer.writeWatermark?.(watermark);
  }

  override endInput(): void {
    const done = this.writer.endOfInput?.();
    // endInput is synchronous; an asynchronous end-of-input is awaited by close.
    if (done instanceof Promise) {
      done.catch(() => {});
      this.pendingEnd = done;
    }
  }
  private pendingEnd: Promise<void> | undefined = undefined;

  override snapshotOperatorState(context?: SnapshotContext): unknown {
    return context === undefined ? undefined : this.writer?.snapshotState?.(context.checkpointId);
  }

  override restoreOperatorState(state: unknown): void {
    this.restoredState = state;
  }

  override notifyCheckpointComplete(checkpointId: number): void | Promise<void> {
    return this.writer?.notifyCheckpointComplete?.(checkpointId);
  }

  override async close(): Promise<void> {
    await this.pendingEnd;
    await this.closeWriter();
  }

  private closeWriter(): void | Promise<void> {
    return this.writer?.close?.();
  }
}
