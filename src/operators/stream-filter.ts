// StreamFilter: keeps the records a FilterFunction accepts.
import { rejectPromiseResult } from '../core/async-function-guard.ts';
import type { FilterFunction } from '../core/functions.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';

export class StreamFilter<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T> {
  constructor(private readonly fn: FilterFunction<T>) {
    super();
  }
  processElement(value: T, timestamp: number): void {
    const keep = this.fn(value);
    // A Promise is truthy: without this check an async filter would silently keep every record.
    rejectPromiseResult(keep, 'filter()');
    if (keep) this.output.collect(value, timestamp);
  }
}
