// StreamGroupedReduce: a rolling reduce on a keyed stream, emitting the updated value per record.
import { notPromise } from '../core/async-function-guard.ts';
import type { ReduceFunction } from '../core/aggregate-function.ts';
import { ValueStateDescriptor } from '../core/state-descriptor.ts';
import type { ValueState } from '../core/state.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';

/** Flink's StreamGroupedReduceOperator: keeps the reduced value per key in ValueState and emits it on every record. */
export class StreamGroupedReduce<T>
  extends AbstractStreamOperator<T>
  implements OneInputStreamOperator<T, T>
{
  private state!: ValueState<T>;
  constructor(private readonly fn: ReduceFunction<T>) {
    super();
  }
  override open(): void {
    this.state = this.context.runtimeContext.getState(new ValueStateDescriptor<T>('_op_state'));
  }
  processElement(value: T, timestamp: number): void {
    const current = this.state.value();
    const next = current === undefined ? value : notPromise(this.fn(current, value), 'reduce()');
    this.state.update(next);
    this.output.collect(next, timestamp);
  }
}
