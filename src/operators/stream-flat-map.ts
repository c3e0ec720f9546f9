// StreamFlatMap: applies a FlatMapFunction, which emits any number of records through a reused collector.
import { rejectPromiseResult } from '../core/async-function-guard.ts';
import type { FlatMapFunction } from '../core/functions.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';
import { TimestampedCollector } from './timestamped-collector.ts';

export class StreamFlatMap<IN, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>
{
  private collector!: TimestampedCollector<OUT>;
  constructor(private readonly fn: FlatMapFunction<IN, OUT>) {
    super();
  }
  override open(): void {
    this.collector = new TimestampedCollector(this.output);
  }
  processElement(value: IN, timestamp: number): void {
    this.collector.timestamp = timestamp;
    rejectPromiseResult(this.fn(value, this.collector), 'flatMap()');
  }
}
