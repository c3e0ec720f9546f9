// HarnessSinkOperator: records what reaches the end of a pipeline under test: records and watermarks, in order.
import { AbstractStreamOperator, type OneInputStreamOperator } from '../operators/stream-operator.ts';
import { hasTimestamp } from '../core/time-domain.ts';

/** An element of a harness's output: a record with its timestamp, or a watermark. */
export type HarnessElement<T> = { value: T; timestamp: number | undefined } | { watermark: number };

export class HarnessSinkOperator<T>
  extends AbstractStreamOperator<never>
  implements OneInputStreamOperator<T, never>
{
  constructor(private readonly sink: HarnessElement<T>[]) {
    super();
  }

  processElement(value: T, timestamp: number): void {
    this.sink.push({ value, timestamp: hasTimestamp(timestamp) ? timestamp : undefined });
  }

  override processWatermark(watermark: number): void {
    this.sink.push({ watermark });
  }
}
