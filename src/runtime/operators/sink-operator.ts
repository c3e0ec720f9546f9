// SinkOperator: hands records to a sink's writer; flushes it when the job closes.
import type { Sink, SinkWriter } from '../../connectors/sink.ts';
import { hasTimestamp } from '../../time/time-domain.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../stream-operator.ts';

export class SinkOperator<T> extends AbstractStreamOperator<never> implements OneInputStreamOperator<T, never> {
  private writer!: SinkWriter<T>;
  constructor(private readonly sink: Sink<T>) {
    super();
  }

  override open(): void {
    this.writer = this.sink.createWriter({
      subtaskIndex: this.context.subtaskIndex,
      parallelism: this.context.parallelism,
      sinkName: this.context.operatorName,
    });
  }

  processElement(value: T, timestamp: number): void {
    this.writer.write(value, hasTimestamp(timestamp) ? timestamp : undefined);
  }

  override processWatermark(watermark: number): void {
    this.writer.writeWatermark?.(watermark);
  }

  override close(): void | Promise<void> {
    return this.writer?.close?.();
  }
}
