// StreamFilter: keeps the records a FilterFunction accepts.
import type { FilterFunction } from '../core/functions.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';

export class StreamFilter<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T> {
  constructor(private readonly fn: FilterFunction<T>) {
    super();
  }
  processElement(value: T, timestamp: number): void {
    if (this.fn(value)) this.output.collect(value, timestamp);
  }
}
