// KeyedProcessOperator: runs a KeyedProcessFunction with keyed state and key-bound timers.
import { rejectPromiseResult } from '../core/async-function-guard.ts';
import type { KeyedProcessFunction } from '../core/functions.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../state/namespace.ts';
import type { InternalTimer, Triggerable } from '../time/internal-timer-service.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from './stream-operator.ts';
import { ProcessContextImpl } from './process-context-impl.ts';
import { TimestampedCollector } from './timestamped-collector.ts';
import { closeFunction, instantiateFunction, openFunction } from './user-function.ts';

/**
 * Flink's KeyedProcessOperator. Timers live in the 'user-timers' service; when one fires the runtime has already
 * set its key, so state handles read that key's entries. Records emitted from an event-time timer carry the
 * timer's timestamp; from a processing-time timer, none.
 */
export class KeyedProcessOperator<K, IN, OUT>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>, Triggerable<K, VoidNamespace>
{
  private collector!: TimestampedCollector<OUT>;
  private ctx!: ProcessContextImpl;

  private readonly fn: KeyedProcessFunction<K, IN, OUT>;

  constructor(fn: KeyedProcessFunction<K, IN, OUT>) {
    super();
    this.fn = instantiateFunction(fn);
  }

  override open(): void | Promise<void> {
    this.collector = new TimestampedCollector(this.output);
    const timers = this.context.getInternalTimerService<K, VoidNamespace>(
      'user-timers',
      voidNamespaceSerializer,
      this,
    );
    this.ctx = new ProcessContextImpl(this.output, this.context, this.context.keyedStateBackend, timers);
    return openFunction(this.fn, this.context.runtimeContext);
  }

  processElement(value: IN, timestamp: number): void {
    this.collector.timestamp = timestamp;
    this.ctx.currentTimestamp = timestamp;
    rejectPromiseResult(this.fn.processElement(value, this.ctx, this.collector), 'processElement()');
  }

  onEventTime(timer: InternalTimer<K, VoidNamespace>): void {
    this.collector.timestamp = timer.timestamp;
    this.invokeOnTimer(timer, 'EVENT_TIME');
  }

  onProcessingTime(timer: InternalTimer<K, VoidNamespace>): void {
    this.collector.eraseTimestamp();
    this.invokeOnTimer(timer, 'PROCESSING_TIME');
  }

  private invokeOnTimer(
    timer: InternalTimer<K, VoidNamespace>,
    domain: 'EVENT_TIME' | 'PROCESSING_TIME',
  ): void {
    if (this.fn.onTimer === undefined) return;
    // As Flink's OnTimerContext: ctx.timestamp() and side outputs carry the timer's time in both domains, while
    // main-output records from a processing-time timer carry none (the collector's timestamp is erased).
    this.ctx.currentTimestamp = timer.timestamp;
    this.ctx.currentTimeDomain = domain;
    rejectPromiseResult(this.fn.onTimer(timer.timestamp, this.ctx, this.collector), 'onTimer()');
    // Stryker disable next-line StringLiteral: only onTimer contexts expose timeDomain(), and each timer call sets it first
    this.ctx.currentTimeDomain = 'EVENT_TIME';
  }

  override close(): void | Promise<void> {
    return closeFunction(this.fn);
  }
}
