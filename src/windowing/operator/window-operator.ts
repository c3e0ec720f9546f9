// WindowOperator: Flink's window operator — assigns elements to panes, asks the trigger, fires, purges, cleans up.
import { IllegalStateError } from '../../core/errors.ts';
import type { OutputTag } from '../../core/output-tag.ts';
import { TimestampedCollector } from '../../operators/timestamped-collector.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../../operators/stream-operator.ts';
import { FieldCounter } from '../../metrics/counter.ts';
import type {
  InternalAppendingState,
  InternalListState,
  InternalValueState,
} from '../../state/internal-state.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import type { AbstractHeapState } from '../../state/heap/abstract-heap-state.ts';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import type { StateTable } from '../../state/heap/state-table.ts';
import {
  keyRowVoidNamespaceSerializer,
  VoidNamespace,
  type NamespaceSerializer,
} from '../../state/namespace.ts';
import {
  ValueStateDescriptor,
  type AggregatingStateDescriptor,
  type ListStateDescriptor,
  type ReducingStateDescriptor,
} from '../../core/state-descriptor.ts';
import type {
  InternalTimer,
  InternalTimerService,
  KeyListTimers,
  Triggerable,
} from '../../time/internal-timer-service.ts';
import { MAX_WATERMARK } from '../../core/time-domain.ts';
import type { Evictor, EvictorContext, TimestampedValue } from '../evictor.ts';
import type { Trigger } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import {
  MergingWindowAssigner,
  type WindowAssigner,
  type WindowAssignerContext,
} from '../window-assigner.ts';
import type { Window } from '../window.ts';
import type { InternalWindowFunction } from './internal-window-function.ts';
import {
  mergingWindowPairsSerializer,
  MergingWindowSet,
  type MergeFunction,
  type MergingWindowPairs,
} from './merging-window-set.ts';
import { EventTimeSessionWindows } from '../assigners/event-time-session-windows.ts';
import { requireTimestamp } from '../assigners/require-timestamp.ts';
import { SlidingEventTimeWindows } from '../assigners/sliding-event-time-windows.ts';
import { SlidingProcessingTimeWindows } from '../assigners/sliding-processing-time-windows.ts';
import { KeyFirstPaneState } from './key-first-pane-state.ts';
import { WindowFirstPaneState } from './window-first-pane-state.ts';
import { WindowProcessContext } from './window-process-context.ts';
import { WindowTriggerContext } from './window-trigger-context.ts';
import { LateRecordLog } from '../../operators/late-record-log.ts';

/** The state a pane's contents live in: incremental (reducing, aggregating) or every element (list). */
export type WindowStateDescriptor<IN, ACC> =
  | ReducingStateDescriptor<IN>
  | AggregatingStateDescriptor<IN, any, ACC>
  | ListStateDescriptor<IN>
  | ListStateDescriptor<TimestampedValue<IN>>;

/** Everything a window operator is built from; the WindowedStream fills it in. */
export interface WindowOperatorConfig<K, IN, ACC, OUT, W extends Window> {
  readonly assigner: WindowAssigner<IN, W>;
  readonly trigger: Trigger<IN, W>;
  /** Named "window-contents", as in Flink; with an evictor, a list of {@link TimestampedValue}s. */
  readonly windowStateDescriptor: WindowStateDescriptor<IN, ACC>;
  readonly windowFunction: InternalWindowFunction<ACC, OUT, K, W>;
  readonly allowedLateness: number;
  readonly lateDataOutputTag: OutputTag<IN> | undefined;
  /** With an evictor the contents are a list of every element with its timestamp (Flink's EvictingWindowOperator). */
  readonly evictor?: Evictor<IN, W> | undefined;
}

/** The panes a window operator holds itself on the heap backend (see `WindowOperator.ownPanes`). */
interface OwnPaneState {
  /** Panes held: (key, window) pairs with a value. */
  readonly panes: number;
  /** Removes the current (key, window)'s pane; returns what reading it would have. */
  getAndClear(): unknown;
  /** Writes every pane into the backend's table of the contents state, in the form it snapshots. */
  writeTo(table: StateTable<unknown>): void;
  /** Takes the panes restored into the backend's table, and empties it. */
  takeFrom(table: StateTable<unknown>): void;
}

/** A pane's contents: list, reducing or aggregating state per (key, window), whose `add` says whether it created the pane. */
type PaneState<ACC> = InternalAppendingState<any, any> & { get(): ACC | undefined };

/**
 * Flink's `WindowOperator` and `EvictingWindowOperator` in one class (the evictor only changes what a pane
 * stores and how it is emitted).
 *
 * **Life of an element.** The assigner names its windows. For a merging assigner each window is first added to
 * the key's {@link MergingWindowSet}, which may merge it with in-flight windows (merging their contents via
 * `mergeNamespaces`, calling the trigger's `onMerge`, and clearing the trigger state and cleanup timers of the
 * swallowed windows); the element then goes to the merged window. A window that is already late (its cleanup
 * time `maxTimestamp + allowedLateness` is at or behind the watermark) is skipped. Otherwise the element is added
 * to the pane's state, the trigger's `onElement` decides: FIRE evaluates the window function on the contents and
 * emits with the window's max timestamp; PURGE clears the contents; and a cleanup timer is registered. An element
 * that landed in no window and is itself late (`timestamp + allowedLateness <= watermark`) goes to the late-data
 * side output, or is counted in {@link numLateRecordsDropped}.
 *
 * **Timers.** Trigger timers and cleanup timers share one timer service ("window-timers"), namespaced by window.
 * When one fires the trigger decides as above; if it is the cleanup timer (event time, `maxTimestamp +
 * allowedLateness`; processing time, `maxTimestamp`) every trace of the window is removed: contents, trigger
 * state (`trigger.clear`), per-window state (`ProcessWindowFunction.clear`), and its merging-set entry. This is
 * what keeps state bounded: after the watermark passes every window, no entries and no timers remain.
 *
 * **Hot path.** For a tumbling event-time window with an aggregate the assigner returns a cached array, the
 * pane state is one accumulator, and the trigger and cleanup timers are de-duplicated by the timer heap: nothing
 * is allocated per element once a window exists. With a trigger that declares it fires only at the window's end
 * ({@link Trigger.firesOnlyAtWindowEnd}: Flink's default `EventTimeTrigger`), non-merging and without an
 * evictor, an element whose pane already existed before it, in a window the watermark has not passed, skips the
 * trigger and timer registration altogether: the first element of that pane registered the trigger timer at
 * `maxTimestamp` and the cleanup timer at `maxTimestamp + allowedLateness`, and both live exactly as long as the
 * pane (they are removed only by firing, which needs the watermark past `maxTimestamp`, or by `clearAllState`,
 * which drops the pane too), so `onElement` would return CONTINUE and both registrations would be de-duplicated
 * no-ops. The pane state's `add` says whether it created the entry. An element that creates a pane skips the
 * trigger too: the operator registers what its `onElement` would (the timer at `maxTimestamp`), then the cleanup
 * timer, both as timers known to be new, which the timer service keeps as one list of keys per window end (an
 * array slot per key, not a Map entry: see `TimerHeap.addNew`). With that trigger and no allowed lateness the
 * trigger's timer *is* the cleanup timer, so the operator does not register or delete it a second time, and at
 * cleanup it skips the trigger's `clear`, whose only timer has fired by then; and a window's end, whose keys the timer
service hands over as one list, fires them in one loop that asks the trigger nothing (it would answer FIRE for
every key: see {@link fireWindowEnd}). Each skip replaces a call whose
 * effect would have been nil or is done in its place, so results, timers and state are exactly those of the
 * general path.
 */
export class WindowOperator<K, IN, ACC, OUT, W extends Window>
  extends AbstractStreamOperator<OUT>
  implements OneInputStreamOperator<IN, OUT>, Triggerable<K, W>, WindowAssignerContext, EvictorContext
{
  /** Elements dropped because they were late and no late-data side output was set (Flink's numLateRecordsDropped). */
  numLateRecordsDropped = 0;
  /** Logs the drops rate-limited; the record path only increments the count above. */
  private lateRecordLog!: LateRecordLog;

  protected readonly assigner: WindowAssigner<IN, W>;
  protected readonly mergingAssigner: MergingWindowAssigner<IN, W> | undefined;
  protected readonly trigger: Trigger<IN, W>;
  protected readonly windowFunction: InternalWindowFunction<ACC, OUT, K, W>;
  protected readonly allowedLateness: number;
  protected readonly lateDataOutputTag: OutputTag<IN> | undefined;
  protected readonly evictor: Evictor<IN, W> | undefined;
  protected readonly isEventTime: boolean;
  protected readonly windowSerializer: NamespaceSerializer<W>;
  /** Flink's heap list state returns null when empty; ours returns [], which must count as "no contents". */
  private readonly listContents: boolean;
  /** Whether an element added to an existing pane may skip the trigger (see "Hot path" above). */
  private readonly existingPaneFastPath: boolean;
  /** A trigger firing only at the window end (EventTimeTrigger) on event time: its one timer is (window, maxTimestamp). */
  private readonly windowEndTrigger: boolean;
  /** With that trigger and no allowed lateness, the trigger's timer and the cleanup timer are one and the same. */
  private readonly cleanupIsTriggerTimer: boolean;
  /**
   * The gap of `EventTimeSessionWindows` itself (not a subclass, which may assign otherwise), whose window for an
   * element is known without asking it (see {@link processInSession}); 0 for any other assigner.
   */
  private readonly sessionGap: number;

  protected backend!: KeyedStateBackend;
  protected timerService!: InternalTimerService<W>;
  protected windowState!: PaneState<ACC>;
  protected triggerContext!: WindowTriggerContext<K, W>;
  protected processContext!: WindowProcessContext<W>;
  protected mergingWindows: MergingWindowSet<W> | undefined = undefined;
  /**
   * On the heap backend, for non-merging windows whose contents are one value (aggregate, reduce) and no evictor: the
   * panes held by the operator in a store of their own, which `windowState` then is; the backend's table of the
   * contents state holds them only from a snapshot's preparation to the snapshot. Sliding windows (an element in
   * several windows) look a key's panes up by key first ({@link KeyFirstPaneState}: one lookup for all of them); any
   * other assigner keeps a flat table of keys per window ({@link WindowFirstPaneState}: one lookup per window, a cache
   * miss fewer than the backend's Map; key first costs a tumbling element a miss more: docs/performance.md).
   */
  private ownPanes: OwnPaneState | undefined = undefined;
  private heapPaneTable: StateTable<unknown> | undefined = undefined;
  private collector!: TimestampedCollector<OUT>;
  private currentMergeKey: K = undefined as K;
  /**
   * The window whose trigger timer the last merge registered by moving the swallowed window's (see
   * {@link onWindowsMerged}), until the element that merged is added to it.
   */
  private timerMovedTo: W | undefined = undefined;
  private readonly mergeFunction: MergeFunction<W>;

  constructor(private readonly config: WindowOperatorConfig<K, IN, ACC, OUT, W>) {
    super();
    this.assigner = config.assigner;
    this.mergingAssigner = config.assigner instanceof MergingWindowAssigner ? config.assigner : undefined;
    this.trigger = config.trigger;
    this.windowFunction = config.windowFunction;
    if (!(config.allowedLateness >= 0)) {
      throw new IllegalStateError(`The allowed lateness cannot be negative, got ${config.allowedLateness}`);
    }
    this.allowedLateness = config.allowedLateness;
    this.lateDataOutputTag = config.lateDataOutputTag;
    this.evictor = config.evictor;
    this.isEventTime = config.assigner.isEventTime();
    this.windowSerializer = config.assigner.getWindowSerializer();
    this.listContents = config.windowStateDescriptor.kind === 'list';
    this.windowEndTrigger = config.trigger.firesOnlyAtWindowEnd() && this.isEventTime;
    this.cleanupIsTriggerTimer = this.windowEndTrigger && this.allowedLateness === 0;
    this.sessionGap =
      Object.getPrototypeOf(config.assigner) === EventTimeSessionWindows.prototype
        ? (config.assigner as unknown as EventTimeSessionWindows).sessionTimeout
        : 0;
    this.existingPaneFastPath =
      this.windowEndTrigger && config.evictor === undefined && this.mergingAssigner === undefined;
    this.mergeFunction = (mergeResult, mergedWindows, stateWindowResult, mergedStateWindows) =>
      this.onWindowsMerged(mergeResult, mergedWindows, stateWindowResult, mergedStateWindows);
  }

  override open(): void | Promise<void> {
    this.context.metricGroup.counter(
      'numLateRecordsDropped',
      new FieldCounter(() => this.numLateRecordsDropped),
    );
    this.lateRecordLog = new LateRecordLog(this.context, 'window operator');
    const backend = this.context.keyedStateBackend;
    if (backend === undefined) {
      throw new IllegalStateError(
        `Operator '${this.context.operatorName}': a window operator needs a keyed stream (use keyBy(...).window(...) or windowAll(...))`,
      );
    }
    this.backend = backend;
    this.collector = new TimestampedCollector(this.output);
    this.timerService = this.context.getInternalTimerService<K, W>(
      'window-timers',
      this.windowSerializer,
      this,
    );
    this.triggerContext = new WindowTriggerContext(
      backend,
      this.timerService,
      this.windowSerializer,
      this.trigger,
    );
    this.processContext = new WindowProcessContext(
      this.output as never,
      this.timerService,
      this.context.runtimeContext,
      backend,
      this.windowSerializer,
      this.mergingAssigner !== undefined,
      this.context.operatorName,
    );
    const descriptor = this.config.windowStateDescriptor;
    this.windowState = backend.getOrCreateKeyedState(
      descriptor,
      this.windowSerializer,
    ) as unknown as PaneState<ACC>;
    const hashing = this.windowSerializer.hashing;
    if (
      backend instanceof HeapKeyedStateBackend &&
      this.mergingAssigner === undefined &&
      this.evictor === undefined &&
      hashing !== undefined &&
      (descriptor.kind === 'aggregating' || descriptor.kind === 'reducing') &&
      descriptor.ttl === undefined
    ) {
      const panes = landsInSeveralWindows(this.assigner)
        ? new KeyFirstPaneState<W, IN, ACC>(
            backend,
            descriptor as never,
            hashing,
            panesPerKey(this.assigner as unknown as SlidingWindows),
          )
        : new WindowFirstPaneState<W, IN, ACC>(backend, descriptor as never, hashing);
      const table = (this.windowState as unknown as AbstractHeapState<W, unknown>).table;
      panes.takeFrom(table);
      this.ownPanes = panes;
      this.heapPaneTable = table;
      this.windowState = panes as unknown as PaneState<ACC>;
    }
    // Panes in flight: one (key, window) entry of the contents state each, counted when read, not per record.
    const paneState = descriptor.name;
    const ownPanes = this.ownPanes;
    this.context.metricGroup.gauge('numWindowPanes', {
      getValue: () => (ownPanes !== undefined ? ownPanes.panes : backend.numStateEntries(paneState)),
    });
    if (this.mergingAssigner !== undefined) {
      const setState = backend.getOrCreateKeyedState(
        new ValueStateDescriptor<MergingWindowPairs<W>>('merging-window-set', {
          serializer: mergingWindowPairsSerializer(this.windowSerializer),
        }),
        // Beside the panes it points to, in the key's row of the heap backend: one lookup finds both.
        keyRowVoidNamespaceSerializer,
      ) as InternalValueState<VoidNamespace, MergingWindowPairs<W>>;
      setState.setCurrentNamespace(VoidNamespace);
      this.mergingWindows = new MergingWindowSet(this.mergingAssigner, setState, this.windowSerializer);
      // A session whose timer moves (see onWindowsMerged) leaves the old one retired in place: every window the set
      // makes is a TimeWindow of one key, with one timer, at its end (the trigger fires only there; no lateness).
      if (this.sessionGap > 0 && this.cleanupIsTriggerTimer) this.timerService.retireMovedTimersLazily?.();
    }
    return this.windowFunction.open(this.context.runtimeContext);
  }

  override processWatermark(watermark: number): void {
    super.processWatermark(watermark);
    if (this.numLateRecordsDropped !== this.lateRecordLog.logged)
      this.lateRecordLog.report(this.numLateRecordsDropped, false);
  }

  /** Panes the operator holds itself reach the backend's table here, in the form it snapshots. */
  override prepareKeyedStateSnapshot(): void {
    if (this.ownPanes !== undefined) this.ownPanes.writeTo(this.heapPaneTable!);
  }

  /**
   * Runs after the keyed state snapshot: the copy of the panes written for it is dropped again, so between snapshots
   * the panes are held once. (Where no snapshot follows a preparation, the next preparation empties the table first.)
   */
  override snapshotOperatorState(): unknown {
    this.heapPaneTable?.clear();
    return undefined;
  }

  override close(): void | Promise<void> {
    this.lateRecordLog.report(this.numLateRecordsDropped, true);
    return this.windowFunction.close();
  }

  // WindowAssignerContext and EvictorContext: processing-time assigners and evictors read the clock here.
  getCurrentProcessingTime(): number {
    return this.timerService.currentProcessingTime();
  }

  getCurrentWatermark(): number {
    return this.timerService.currentWatermark();
  }

  processElement(value: IN, timestamp: number): void {
    const mergingWindows = this.mergingWindows;
    let skipped: boolean;
    if (this.sessionGap > 0 && mergingWindows !== undefined) {
      // What the assigner's assignWindows checks before naming the window.
      requireTimestamp(timestamp);
      const key = this.backend.getCurrentKey() as K;
      skipped = this.processInSession(value, timestamp, key, this.sessionGap, mergingWindows);
    } else {
      const windows = this.assigner.assignWindows(value, timestamp, this);
      const key = this.backend.getCurrentKey() as K;
      skipped =
        mergingWindows === undefined
          ? this.processInWindows(value, timestamp, key, windows)
          : this.processInMergingWindows(value, timestamp, key, windows, mergingWindows);
    }
    // An element no window took is late only if the element itself is behind the watermark (Flink's rule), so a
    // session that fails to merge with an expired window does not reroute a fresh element.
    if (skipped && this.isElementLate(timestamp)) {
      if (this.lateDataOutputTag !== undefined)
        this.output.collectSide(this.lateDataOutputTag, value, timestamp);
      else if (++this.numLateRecordsDropped === 1)
        this.lateRecordLog.first(timestamp, this.timerService.currentWatermark());
    }
  }

  /** Non-merging windows; returns true when every window was late (the element was skipped). */
  private processInWindows(value: IN, timestamp: number, key: K, windows: readonly W[]): boolean {
    const windowState = this.windowState;
    const triggerContext = this.triggerContext;
    const watermark = this.timerService.currentWatermark();
    let skipped = true;
    for (let i = 0; i < windows.length; i++) {
      const window = windows[i]!;
      if (this.isEventTime && this.cleanedUpBy(window, watermark)) continue; // the window is late
      skipped = false;
      windowState.setCurrentNamespace(window);
      if (this.existingPaneFastPath) {
        const created = windowState.add(value);
        if (window.maxTimestamp() > watermark) {
          if (created === false) continue;
          if (created === true) {
            this.registerNewPaneTimers(window);
            continue;
          }
        }
      } else {
        this.addToPane(value, timestamp);
      }
      triggerContext.key = key;
      triggerContext.window = window;
      const result = triggerContext.onElement(value, timestamp);
      if ((result & TriggerResult.FIRE) !== 0) {
        const contents = windowState.get();
        if (this.isEmpty(contents)) continue;
        this.emitWindowContents(window, contents!);
      }
      if ((result & TriggerResult.PURGE) !== 0) windowState.clear();
      // The trigger's CONTINUE registered (window, maxTimestamp): with no allowed lateness that is the cleanup
      // timer too, and registering it again would be a de-duplicated no-op.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: only skips registering a timer the trigger registered (a de-duplicated no-op); a window-end trigger with no lateness answers FIRE here only for a late window, skipped above
      if (result === TriggerResult.CONTINUE && this.cleanupIsTriggerTimer) continue;
      this.registerCleanupTimer(window);
    }
    return skipped;
  }

  private processInMergingWindows(
    value: IN,
    timestamp: number,
    key: K,
    windows: readonly W[],
    mergingWindows: MergingWindowSet<W>,
  ): boolean {
    mergingWindows.load();
    let skipped = true;
    // An indexed loop: a for-of allocated an iterator result per window where V8 did not elide it.
    for (let w = 0; w < windows.length; w++) {
      // Adding the window may merge it with in-flight windows; we then work with the merged window.
      this.currentMergeKey = key;
      this.timerMovedTo = undefined;
      const actualWindow = mergingWindows.addWindow(windows[w]!, this.mergeFunction);
      if (this.processInMergedWindow(value, timestamp, key, actualWindow, mergingWindows)) skipped = false;
    }
    mergingWindows.persist();
    return skipped;
  }

  /**
   * `processInMergingWindows` for `EventTimeSessionWindows` with a fixed gap, whose one window for an element is
   * [timestamp, timestamp + gap): the set takes it as its bounds (`MergingWindowSet.addTimeWindow`), so the window
   * object and its list are made only for an element that opens a session.
   */
  private processInSession(
    value: IN,
    timestamp: number,
    key: K,
    gap: number,
    mergingWindows: MergingWindowSet<W>,
  ): boolean {
    mergingWindows.load();
    this.currentMergeKey = key;
    this.timerMovedTo = undefined;
    const actualWindow = mergingWindows.addTimeWindow(timestamp, timestamp + gap, this.mergeFunction);
    const taken = this.processInMergedWindow(value, timestamp, key, actualWindow, mergingWindows);
    mergingWindows.persist();
    return !taken;
  }

  /**
   * The element in the window the merging set put it in (its own or a merged one): skipped if the window is late,
   * else added to the state window's pane, with the trigger asked. Returns whether the window took it.
   */
  private processInMergedWindow(
    value: IN,
    timestamp: number,
    key: K,
    actualWindow: W,
    mergingWindows: MergingWindowSet<W>,
  ): boolean {
    if (this.isWindowLate(actualWindow)) {
      mergingWindows.retireWindow(actualWindow);
      return false;
    }
    const windowState = this.windowState;
    const stateWindow = mergingWindows.lastAddedStateWindow();
    if (stateWindow === undefined)
      throw new IllegalStateError(`Window ${String(actualWindow)} is not in in-flight window set.`);
    windowState.setCurrentNamespace(stateWindow);
    this.addToPane(value, timestamp);
    // The merge just registered the trigger's timer of this window, which the watermark has not reached (or the
    // merge would have failed): `onElement` would register it again, a duplicate, and return CONTINUE, and with
    // no allowed lateness that timer is the cleanup timer too.
    if (this.timerMovedTo === actualWindow) return true;
    const triggerContext = this.triggerContext;
    triggerContext.key = key;
    triggerContext.window = actualWindow;
    const result = triggerContext.onElement(value, timestamp);
    if ((result & TriggerResult.FIRE) !== 0) {
      const contents = windowState.get();
      if (this.isEmpty(contents)) return true;
      this.emitWindowContents(actualWindow, contents!);
    }
    if ((result & TriggerResult.PURGE) !== 0) windowState.clear();
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only skips registering a timer the trigger registered (a de-duplicated no-op), as above
    if (result === TriggerResult.CONTINUE && this.cleanupIsTriggerTimer) return true; // registered by the trigger
    this.registerCleanupTimer(actualWindow);
    return true;
  }

  /** Flink's MergeFunction of WindowOperator.processElement. */
  private onWindowsMerged(
    mergeResult: W,
    mergedWindows: readonly W[],
    stateWindowResult: W,
    mergedStateWindows: readonly W[],
  ): void {
    if (
      this.isEventTime &&
      saturatingAdd(mergeResult.maxTimestamp(), this.allowedLateness) <= this.timerService.currentWatermark()
    ) {
      throw new IllegalStateError(
        `The end timestamp of an event-time window cannot become earlier than the current watermark by merging. ` +
          `Current watermark: ${this.timerService.currentWatermark()} window: ${String(mergeResult)}`,
      );
    } else if (!this.isEventTime && mergeResult.maxTimestamp() <= this.timerService.currentProcessingTime()) {
      throw new IllegalStateError(
        `The end timestamp of a processing-time window cannot become earlier than the current processing time by merging. ` +
          `Current processing time: ${this.timerService.currentProcessingTime()} window: ${String(mergeResult)}`,
      );
    }
    if (this.cleanupIsTriggerTimer && mergedWindows.length === 1) {
      // One window grew (a session extended by an element): a trigger that fires only at the window's end
      // registers the grown window's timer in `onMerge` (the check above leaves the watermark before its end) and
      // deletes the old window's in `clear`, its only timer, which is the cleanup timer too. The timer service
      // does both in one call.
      const merged = mergedWindows[0]!;
      this.timerService.moveEventTimeTimer(
        merged,
        merged.maxTimestamp(),
        mergeResult,
        mergeResult.maxTimestamp(),
      );
      this.timerMovedTo = mergeResult;
    } else {
      const triggerContext = this.triggerContext;
      triggerContext.key = this.currentMergeKey;
      triggerContext.window = mergeResult;
      triggerContext.onMerge(mergedWindows);
      for (let i = 0; i < mergedWindows.length; i++) {
        const merged = mergedWindows[i]!;
        triggerContext.window = merged;
        triggerContext.clear();
        // The trigger's clear just deleted the cleanup timer when the two are one.
        if (!this.cleanupIsTriggerTimer) this.deleteCleanupTimer(merged);
      }
      this.timerMovedTo = undefined;
    }
    // Merge the contents of the swallowed state windows into the one that stays.
    this.windowState.mergeNamespaces(stateWindowResult, mergedStateWindows);
  }

  onEventTime(timer: InternalTimer<K, W>): void {
    this.onTimer(timer.timestamp, timer.key, timer.namespace, true);
  }

  onProcessingTime(timer: InternalTimer<K, W>): void {
    this.onTimer(timer.timestamp, timer.key, timer.namespace, false);
  }

  /**
   * A window end's timers, one per key (those the timer service keeps as a list: see `registerNewPaneTimers`), fired
   * in one loop, each exactly as `onEventTime` fires it: no timer object and no call from the timer service per key.
   */
  onEventTimeKeyList(timestamp: number, window: W, timers: KeyListTimers<K>): void {
    if (
      this.cleanupIsTriggerTimer &&
      this.existingPaneFastPath &&
      timestamp === window.maxTimestamp() &&
      this.isCleanupTime(window, timestamp)
    ) {
      this.fireWindowEnd(window, timers);
      return;
    }
    let key: K | undefined;
    while ((key = timers.pollKey()) !== undefined) this.onTimer(timestamp, key, window, true);
  }

  /**
   * `onTimer` for each key of a window's end, with a trigger that fires only there and no allowed lateness, asked
   * once for them all: by its contract the trigger answers FIRE to the timer at `maxTimestamp` whatever the key,
   * touching nothing, and that timer is the cleanup timer too, whose `clear` of the trigger `onTimer` skips as well.
   * So each pane is read and removed, emitted, and its per-window state cleared, as `onTimer` does (not merging, and
   * no evictor, which would write the pane back after the window function).
   */
  private fireWindowEnd(window: W, timers: KeyListTimers<K>): void {
    const windowState = this.windowState;
    const ownPanes = this.ownPanes;
    const triggerContext = this.triggerContext;
    const processContext = this.processContext;
    let key: K | undefined;
    while ((key = timers.pollKey()) !== undefined) {
      triggerContext.key = key;
      triggerContext.window = window;
      windowState.setCurrentNamespace(window);
      let contents: ACC | undefined;
      if (ownPanes !== undefined) contents = ownPanes.getAndClear() as ACC | undefined;
      else {
        contents = windowState.get();
        windowState.clear();
      }
      if (!this.isEmpty(contents)) this.emitWindowContents(window, contents!);
      processContext.window = window;
      this.windowFunction.clear(window, processContext);
    }
  }

  /** Flink's onEventTime / onProcessingTime, which differ only in the trigger callback and the cleanup domain. */
  private onTimer(timestamp: number, key: K, window: W, eventTime: boolean): void {
    const triggerContext = this.triggerContext;
    triggerContext.key = key;
    triggerContext.window = window;
    const mergingWindows = this.mergingWindows;
    if (mergingWindows !== undefined) {
      const stateWindow = mergingWindows.load().getStateWindow(window);
      // A timer for a window no longer in flight: a trigger did not clean up its timers, and the window's state
      // (including the trigger's) is gone already, so there is nothing to do.
      if (stateWindow === undefined) return;
      this.windowState.setCurrentNamespace(stateWindow);
    } else {
      this.windowState.setCurrentNamespace(window);
    }

    const result = eventTime
      ? triggerContext.onEventTime(timestamp)
      : triggerContext.onProcessingTime(timestamp);
    const cleanup = this.isEventTime === eventTime && this.isCleanupTime(window, timestamp);
    const ownPanes = this.ownPanes;
    let contentsCleared = false;
    if (result === TriggerResult.FIRE && cleanup && ownPanes !== undefined) {
      // A window's end that fires and then removes the pane: read and freed in one lookup. The window function
      // cannot tell (the contents state is the operator's own, and nothing else runs in between).
      const contents = ownPanes.getAndClear() as ACC | undefined;
      if (!this.isEmpty(contents)) this.emitWindowContents(window, contents!);
      contentsCleared = true;
    } else {
      if ((result & TriggerResult.FIRE) !== 0) {
        const contents = this.windowState.get();
        if (!this.isEmpty(contents)) this.emitWindowContents(window, contents!);
      }
      if ((result & TriggerResult.PURGE) !== 0) this.windowState.clear();
    }
    if (cleanup) {
      // The trigger's clear only deletes the event-time timer at maxTimestamp <= this cleanup time: every such
      // timer has fired by now (it is this one, or an earlier one), so the deletion would be a no-op.
      this.clearAllState(window, mergingWindows, !(eventTime && this.windowEndTrigger), contentsCleared);
    }
    mergingWindows?.persist();
  }

  /** Removes everything of a window: contents, trigger state, per-window user state, merging-set entry. */
  private clearAllState(
    window: W,
    mergingWindows: MergingWindowSet<W> | undefined,
    clearTrigger = true,
    contentsCleared = false,
  ): void {
    if (!contentsCleared) this.windowState.clear();
    this.triggerContext.window = window;
    if (clearTrigger) this.triggerContext.clear();
    this.processContext.window = window;
    this.windowFunction.clear(window, this.processContext);
    if (mergingWindows !== undefined) mergingWindows.retireWindow(window);
  }

  private addToPane(value: IN, timestamp: number): void {
    if (this.evictor === undefined) this.windowState.add(value);
    else this.windowState.add({ value, timestamp } satisfies TimestampedValue<IN>);
  }

  private isEmpty(contents: ACC | undefined): boolean {
    return (
      contents === undefined ||
      (this.listContents && (contents as unknown as readonly unknown[]).length === 0)
    );
  }

  /** Evaluates the window function; results carry the window's max timestamp. */
  private emitWindowContents(window: W, contents: ACC): void {
    this.collector.timestamp = window.maxTimestamp();
    this.processContext.window = window;
    if (this.evictor === undefined) {
      this.windowFunction.process(
        this.triggerContext.key,
        window,
        this.processContext,
        contents,
        this.collector,
      );
    } else {
      this.emitEvicting(window, contents as unknown as readonly TimestampedValue<IN>[]);
    }
  }

  /**
   * Flink's EvictingWindowOperator.emitWindowContents: evict before, evaluate the remaining values, evict after,
   * and store what is left (the evictors remove elements from the array in place).
   */
  private emitEvicting(window: W, contents: readonly TimestampedValue<IN>[]): void {
    const evictor = this.evictor!;
    // Stryker disable next-line MethodExpression: the array evicted in place is the one written back right after
    const records = contents.slice();
    evictor.evictBefore(records, records.length, window, this);
    const values = records.map((r) => r.value);
    (this.windowFunction as unknown as InternalWindowFunction<readonly IN[], OUT, K, W>).process(
      this.triggerContext.key,
      window,
      this.processContext,
      values,
      this.collector,
    );
    evictor.evictAfter(records, records.length, window, this);
    (this.windowState as unknown as InternalListState<unknown, TimestampedValue<IN>>).update(records);
  }

  /** A window is late when its cleanup time has passed (event time only). */
  protected isWindowLate(window: W): boolean {
    // cleanedUpBy, not cleanupTime: no boxed cleanup time per element where the call is not inlined.
    return this.isEventTime && this.cleanedUpBy(window, this.timerService.currentWatermark());
  }

  protected isElementLate(timestamp: number): boolean {
    return (
      this.isEventTime &&
      saturatingAdd(timestamp, this.allowedLateness) <= this.timerService.currentWatermark()
    );
  }

  /**
   * The timers of a pane the element just created, in a window the watermark has not passed, with a trigger that
   * fires only at the window's end: what its `onElement` would register (maxTimestamp; it would return CONTINUE),
   * then the cleanup timer. Neither can be queued: a pane lives exactly as long as its timers (see "Hot path"), a
   * pane that existed before was removed only at its cleanup time, and the watermark has not reached the window's
   * end since, let alone that. So both go in as new timers, which the timer service keeps as one list of keys per
   * window end.
   */
  private registerNewPaneTimers(window: W): void {
    const timerService = this.timerService;
    timerService.registerNewEventTimeTimer(window, window.maxTimestamp());
    if (this.cleanupIsTriggerTimer) return;
    const cleanupTime = this.cleanupTime(window);
    if (cleanupTime !== MAX_WATERMARK) timerService.registerNewEventTimeTimer(window, cleanupTime);
  }

  private registerCleanupTimer(window: W): void {
    const cleanupTime = this.cleanupTime(window);
    // No cleanup timer for "end of time" (global windows).
    if (cleanupTime === MAX_WATERMARK) return;
    if (this.isEventTime) this.timerService.registerEventTimeTimer(window, cleanupTime);
    else this.timerService.registerProcessingTimeTimer(window, cleanupTime);
  }

  private deleteCleanupTimer(window: W): void {
    const cleanupTime = this.cleanupTime(window);
    if (cleanupTime === MAX_WATERMARK) return;
    if (this.isEventTime) this.timerService.deleteEventTimeTimer(window, cleanupTime);
    else this.timerService.deleteProcessingTimeTimer(window, cleanupTime);
  }

  /**
   * When a window's state is removed: `maxTimestamp + allowedLateness` in event time, `maxTimestamp` in
   * processing time (allowed lateness is meaningless there), as Flink's `cleanupTime`.
   */
  private cleanupTime(window: W): number {
    if (!this.isEventTime) return window.maxTimestamp();
    return saturatingAdd(window.maxTimestamp(), this.allowedLateness);
  }

  /**
   * Whether an event-time window's cleanup time is at or before `watermark`: `cleanupTime(window) <= watermark`
   * without the cleanup time as a value. Where `cleanupTime` is not inlined its result is a number V8 boxes in a
   * fresh heap object (an epoch time is no small integer): once per window of every element, most of the garbage
   * a sliding window's elements made.
   */
  private cleanedUpBy(window: W, watermark: number): boolean {
    const sum = window.maxTimestamp() + this.allowedLateness;
    return sum > Number.MAX_SAFE_INTEGER ? MAX_WATERMARK <= watermark : sum <= watermark;
  }

  private isCleanupTime(window: W, time: number): boolean {
    return time === this.cleanupTime(window);
  }
}

type SlidingWindows = SlidingEventTimeWindows | SlidingProcessingTimeWindows;

/** Whether the assigner puts an element in more than one window (non-merging): sliding windows longer than their slide. */
function landsInSeveralWindows(assigner: WindowAssigner<any, any>): boolean {
  return (
    (assigner instanceof SlidingEventTimeWindows || assigner instanceof SlidingProcessingTimeWindows) &&
    assigner.size > assigner.slide
  );
}

/**
 * The panes a key of sliding windows holds at once, as the block size of its key-first panes: the windows an element
 * lands in and the one the watermark has not yet closed. At most 8, so that a key with few elements does not hold
 * dozens of free slots for windows many slides long (more panes chain a further block).
 */
function panesPerKey(assigner: SlidingWindows): number {
  return Math.min(Math.ceil(assigner.size / assigner.slide) + 1, 8);
}

/**
 * `time + delta`, saturating at the end of time: past Number.MAX_SAFE_INTEGER a sum is no longer exact, so a
 * cleanup time there would be a timer that never matches its window. As Flink's `cleanupTime`, which returns
 * Long.MAX_VALUE on overflow, the result is then MAX_WATERMARK (no cleanup timer; the state goes at the end).
 */
function saturatingAdd(time: number, delta: number): number {
  const sum = time + delta;
  return sum > Number.MAX_SAFE_INTEGER ? MAX_WATERMARK : sum;
}
