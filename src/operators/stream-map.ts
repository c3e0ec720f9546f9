// StreamMap: applies a MapFunction to each record, keeping its timestamp.
import { notPromise } from '../core/async-function-guard.ts';
import type { MapFunction } from '../core/functions.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';

export class StreamMap<IN, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>
{
  constructor(private readonly fn: MapFunction<IN, OUT>) {
    super();
  }
  processElement(value: IN, timestamp: number): void {
    this.output.collect(notPromise(this.fn(value), 'map()'), timestamp);
  }
}
