// ProcessOperator: runs a ProcessFunction on a stream that is not keyed (no keyed state, no timers).
import { rejectPromiseResult } from '../core/async-function-guard.ts';
import type { ProcessFunction } from '../core/functions.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';
import { ProcessContextImpl } from './process-context-impl.ts';
import { TimestampedCollector } from './timestamped-collector.ts';
import { closeFunction, instantiateFunction, openFunction } from './user-function.ts';

export class ProcessOperator<IN, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>
{
  private collector!: TimestampedCollector<OUT>;
  private ctx!: ProcessContextImpl;

  private readonly fn: ProcessFunction<IN, OUT>;

  constructor(fn: ProcessFunction<IN, OUT>) {
    super();
    this.fn = instantiateFunction(fn);
  }

  override open(): void | Promise<void> {
    this.collector = new TimestampedCollector(this.output);
    this.ctx = new ProcessContextImpl(this.output, this.context, undefined, undefined);
    return openFunction(this.fn, this.context.runtimeContext);
  }

  processElement(value: IN, timestamp: number): void {
    this.collector.timestamp = timestamp;
    this.ctx.currentTimestamp = timestamp;
    rejectPromiseResult(this.fn.processElement(value, this.ctx, this.collector), 'processElement()');
  }

  override close(): void | Promise<void> {
    return closeFunction(this.fn);
  }
}
