// CoProcessOperator / KeyedCoProcessOperator: run a (Keyed)CoProcessFunction over two connected inputs.
import { rejectPromiseResult } from '../core/async-function-guard.ts';
import type { CoProcessFunction, KeyedCoProcessFunction } from '../core/functions.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../state/namespace.ts';
import type { InternalTimer, Triggerable } from '../time/internal-timer-service.ts';
import { AbstractStreamOperator, type TwoInputStreamOperator } from './stream-operator.ts';
import { ProcessContextImpl } from './process-context-impl.ts';
import { TimestampedCollector } from './timestamped-collector.ts';
import { closeFunction, instantiateFunction, openFunction } from './user-function.ts';

/**
 * One operator for both the keyed and the non-keyed case: when the runtime provides a keyed backend (both inputs
 * keyed), timers and keyed state are available and shared by the two inputs, as in Flink's KeyedCoProcessOperator.
 */
export class CoProcessOperator<IN1, IN2, OUT>
  extends AbstractStreamOperator<OUT>
  implements TwoInputStreamOperator<IN1, IN2, OUT>, Triggerable<unknown, VoidNamespace>
{
  private collector!: TimestampedCollector<OUT>;
  private ctx!: ProcessContextImpl;

  private readonly fn: CoProcessFunction<IN1, IN2, OUT> | KeyedCoProcessFunction<any, IN1, IN2, OUT>;

  constructor(fn: CoProcessFunction<IN1, IN2, OUT> | KeyedCoProcessFunction<any, IN1, IN2, OUT>) {
    super();
    this.fn = instantiateFunction(fn);
  }

  override open(): void | Promise<void> {
    this.collector = new TimestampedCollector(this.output);
    const backend = this.context.keyedStateBackend;
    const timers =
      backend !== undefined
        ? this.context.getInternalTimerService<unknown, VoidNamespace>(
            'user-timers',
            voidNamespaceSerializer,
            this,
          )
        : undefined;
    this.ctx = new ProcessContextImpl(this.output, this.context, backend, timers);
    return openFunction(this.fn, this.context.runtimeContext);
  }

  processElement1(value: IN1, timestamp: number): void {
    this.collector.timestamp = timestamp;
    this.ctx.currentTimestamp = timestamp;
    rejectPromiseResult(this.fn.processElement1(value, this.ctx, this.collector), 'processElement1()');
  }

  processElement2(value: IN2, timestamp: number): void {
    this.collector.timestamp = timestamp;
    this.ctx.currentTimestamp = timestamp;
    rejectPromiseResult(this.fn.processElement2(value, this.ctx, this.collector), 'processElement2()');
  }

  onEventTime(timer: InternalTimer<unknown, VoidNamespace>): void {
    this.collector.timestamp = timer.timestamp;
    this.invokeOnTimer(timer.timestamp, 'EVENT_TIME');
  }

  onProcessingTime(timer: InternalTimer<unknown, VoidNamespace>): void {
    this.collector.eraseTimestamp();
    this.invokeOnTimer(timer.timestamp, 'PROCESSING_TIME');
  }

  private invokeOnTimer(timestamp: number, domain: 'EVENT_TIME' | 'PROCESSING_TIME'): void {
    if (this.fn.onTimer === undefined) return;
    this.ctx.currentTimestamp = timestamp;
    this.ctx.currentTimeDomain = domain;
    rejectPromiseResult(this.fn.onTimer(timestamp, this.ctx, this.collector), 'onTimer()');
    // Stryker disable next-line StringLiteral: only onTimer contexts expose timeDomain(), and each timer call sets it first
    this.ctx.currentTimeDomain = 'EVENT_TIME';
  }

  override close(): void | Promise<void> {
    return closeFunction(this.fn);
  }
}
