// CoBroadcastOperator: runs a (Keyed)BroadcastProcessFunction over a stream and a broadcast stream.
import { rejectPromiseResult } from '../core/async-function-guard.ts';
import { IllegalStateError } from '../core/errors.ts';
import type {
  BroadcastProcessFunction,
  KeyedBroadcastContext,
  KeyedBroadcastOnTimerContext,
  KeyedBroadcastProcessFunction,
  KeyedStateFunction,
} from '../core/broadcast-process-function.ts';
import type { TimerService } from '../core/functions.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { BroadcastStateStore, type BroadcastStateSnapshot } from '../state/broadcast-state-store.ts';
import type { BroadcastState, ReadOnlyBroadcastState } from '../core/broadcast-state.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../state/namespace.ts';
import type { MapStateDescriptor, StateDescriptor } from '../core/state-descriptor.ts';
import type { InternalTimer, Triggerable } from '../time/internal-timer-service.ts';
import { hasTimestamp, type TimeDomain } from '../core/time-domain.ts';
import type { Output } from './output.ts';
import type { OperatorContext } from './stream-operator.ts';
import type { OperatorStateDistribution } from './operator-state-distribution.ts';
import { AbstractStreamOperator, type TwoInputStreamOperator } from './stream-operator.ts';
import { ProcessContextImpl } from './process-context-impl.ts';
import { TimestampedCollector } from './timestamped-collector.ts';
import { closeFunction, instantiateFunction, openFunction } from './user-function.ts';

type AnyBroadcastFunction<IN1, IN2, OUT> =
  BroadcastProcessFunction<IN1, IN2, OUT> | KeyedBroadcastProcessFunction<any, IN1, IN2, OUT>;

/**
 * Flink's CoBroadcastWithNonKeyedOperator and CoBroadcastWithKeyedOperator in one: input 1 is the (possibly keyed)
 * non-broadcast stream, input 2 the broadcast stream, which reaches every subtask. When the runtime gives the
 * operator a keyed backend (input 1 keyed), the function gets keyed state, timers and `applyToKeyedState`.
 *
 * The broadcast states are this subtask's operator state: snapshotted with it, and on restore at another
 * parallelism each subtask takes one old subtask's copy (`'broadcast'` distribution).
 */
export class CoBroadcastOperator<IN1, IN2, OUT>
  extends AbstractStreamOperator<OUT>
  implements TwoInputStreamOperator<IN1, IN2, OUT>, Triggerable<unknown, VoidNamespace>
{
  private readonly fn: AnyBroadcastFunction<IN1, IN2, OUT>;
  private store!: BroadcastStateStore;
  private collector!: TimestampedCollector<OUT>;
  private readOnlyCtx!: ReadOnlyContextImpl;
  private broadcastCtx!: BroadcastContextImpl;
  private restored: BroadcastStateSnapshot | undefined = undefined;

  constructor(
    fn: AnyBroadcastFunction<IN1, IN2, OUT>,
    private readonly descriptors: readonly MapStateDescriptor<any, any>[],
  ) {
    super();
    this.fn = instantiateFunction(fn);
  }

  override get operatorStateDistribution(): OperatorStateDistribution {
    return 'broadcast';
  }

  override open(): void | Promise<void> {
    this.store = new BroadcastStateStore(this.descriptors, this.context.operatorName);
    if (this.restored !== undefined) this.store.restore(this.restored);
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
    const process = new ProcessContextImpl(this.output, this.context, backend, timers);
    this.readOnlyCtx = new ReadOnlyContextImpl(this.output, this.context, this.store, backend, process);
    this.broadcastCtx = new BroadcastContextImpl(this.output, this.context, this.store, backend);
    return openFunction(this.fn, this.context.runtimeContext);
  }

  processElement1(value: IN1, timestamp: number): void {
    this.collector.timestamp = timestamp;
    this.readOnlyCtx.currentTimestamp = timestamp;
    rejectPromiseResult(this.fn.processElement(value, this.readOnlyCtx, this.collector), 'processElement()');
  }

  processElement2(value: IN2, timestamp: number): void {
    // A broadcast element has no key: keyed state fails here (as in Flink) instead of reading the last key's.
    this.context.keyedStateBackend?.clearCurrentKey();
    this.collector.timestamp = timestamp;
    this.broadcastCtx.currentTimestamp = timestamp;
    rejectPromiseResult(
      this.fn.processBroadcastElement(value, this.broadcastCtx, this.collector),
      'processBroadcastElement()',
    );
  }

  onEventTime(timer: InternalTimer<unknown, VoidNamespace>): void {
    this.collector.timestamp = timer.timestamp;
    this.invokeOnTimer(timer.timestamp, 'EVENT_TIME');
  }

  onProcessingTime(timer: InternalTimer<unknown, VoidNamespace>): void {
    this.collector.eraseTimestamp();
    this.invokeOnTimer(timer.timestamp, 'PROCESSING_TIME');
  }

  override snapshotOperatorState(): unknown {
    return this.store.snapshot();
  }

  override restoreOperatorState(state: unknown): void {
    // Called before open(): keep it until the store exists.
    this.restored = state as BroadcastStateSnapshot;
  }

  override close(): void | Promise<void> {
    return closeFunction(this.fn);
  }

  private invokeOnTimer(timestamp: number, domain: TimeDomain): void {
    const fn = this.fn as KeyedBroadcastProcessFunction<unknown, IN1, IN2, OUT>;
    if (fn.onTimer === undefined) return;
    this.readOnlyCtx.currentTimestamp = timestamp;
    this.readOnlyCtx.currentTimeDomain = domain;
    rejectPromiseResult(fn.onTimer(timestamp, this.readOnlyCtx, this.collector), 'onTimer()');
    // Stryker disable next-line StringLiteral: only onTimer contexts expose timeDomain(), and each timer call sets it first
    this.readOnlyCtx.currentTimeDomain = 'EVENT_TIME';
  }
}

/** The parts both contexts share; one reused instance each per operator, fields set per element. */
abstract class BaseContext {
  currentTimestamp = Number.NaN;

  constructor(
    private readonly out: Output<unknown>,
    protected readonly operator: OperatorContext,
    protected readonly store: BroadcastStateStore,
    protected readonly backend: KeyedStateBackend | undefined,
  ) {}

  timestamp(): number | undefined {
    return hasTimestamp(this.currentTimestamp) ? this.currentTimestamp : undefined;
  }

  currentProcessingTime(): number {
    return this.operator.clock.now();
  }

  currentWatermark(): number {
    return this.operator.currentWatermark();
  }

  output<X>(tag: OutputTag<X>, value: X): void {
    if (tag === undefined || tag === null) throw new IllegalStateError('ctx.output needs an OutputTag');
    this.out.collectSide(tag, value, this.currentTimestamp);
  }
}

/** The non-broadcast side's context (and, keyed, its onTimer context). */
class ReadOnlyContextImpl extends BaseContext implements KeyedBroadcastOnTimerContext<unknown> {
  // Stryker disable next-line StringLiteral: only onTimer contexts expose timeDomain(), and each timer call sets it first
  currentTimeDomain: TimeDomain = 'EVENT_TIME';

  constructor(
    out: Output<unknown>,
    operator: OperatorContext,
    store: BroadcastStateStore,
    backend: KeyedStateBackend | undefined,
    private readonly process: ProcessContextImpl,
  ) {
    super(out, operator, store, backend);
  }

  getBroadcastState<K, V>(descriptor: MapStateDescriptor<K, V>): ReadOnlyBroadcastState<K, V> {
    return this.store.get(descriptor).readOnly;
  }

  getCurrentKey(): unknown {
    return this.keyedOnly('getCurrentKey').getCurrentKey();
  }

  timerService(): TimerService {
    this.keyedOnly('timerService');
    return this.process.timerService();
  }

  timeDomain(): TimeDomain {
    return this.currentTimeDomain;
  }

  private keyedOnly(what: string): KeyedStateBackend {
    if (this.backend === undefined) {
      throw new IllegalStateError(
        `Operator '${this.operator.operatorName}': ${what}() needs a keyed stream connected to the broadcast stream (keyBy(...).connect(broadcastStream))`,
      );
    }
    return this.backend;
  }
}

/** The broadcast side's context. */
class BroadcastContextImpl extends BaseContext implements KeyedBroadcastContext {
  getBroadcastState<K, V>(descriptor: MapStateDescriptor<K, V>): BroadcastState<K, V> {
    return this.store.get(descriptor);
  }

  applyToKeyedState<S>(descriptor: StateDescriptor<S, any>, fn: KeyedStateFunction<any, S>): void {
    const backend = this.backend;
    if (backend === undefined) {
      throw new IllegalStateError(
        `Operator '${this.operator.operatorName}': applyToKeyedState() needs a keyed stream connected to the broadcast stream`,
      );
    }
    // Keys are collected first: `fn` may clear the state it is given, which must not disturb the iteration.
    const keys = [...backend.getKeys(descriptor.name)];
    try {
      for (const key of keys) {
        backend.setCurrentKey(key);
        const state = backend.getOrCreateKeyedState(descriptor, voidNamespaceSerializer) as unknown as {
          setCurrentNamespace(ns: unknown): void;
        };
        state.setCurrentNamespace(VoidNamespace);
        fn(key, state as unknown as S);
      }
    } finally {
      backend.clearCurrentKey();
    }
  }
}
