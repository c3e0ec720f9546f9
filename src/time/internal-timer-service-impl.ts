// The timer service of one operator: event-time and processing-time TimerHeaps bound to the keyed backend's key.
import { IllegalStateError } from '../core/errors.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import { type NamespaceSerializer, VoidNamespace, voidNamespaceSerializer } from '../state/namespace.ts';
import type { ProcessingTimeClock, ScheduledCallback } from '../core/clock.ts';
import type { InternalTimerService, KeyListTimers, Triggerable } from './internal-timer-service.ts';
import { TimerHeap } from './timer-heap.ts';
import { MIN_WATERMARK } from '../core/time-domain.ts';

/**
 * Flink's InternalTimerServiceImpl. A timer registered now belongs to the current key. Only the earliest
 * processing-time timer is scheduled with the clock; when it fires, every due timer fires in order and the next
 * earliest is scheduled. On a watermark every event-time timer at or before it fires, each with its own key set.
 */
export class InternalTimerServiceImpl<K, N> implements InternalTimerService<N> {
  readonly eventTimers: TimerHeap<N>;
  readonly processingTimers: TimerHeap<N>;
  private scheduled: ScheduledCallback | undefined = undefined;
  private scheduledTime = Number.POSITIVE_INFINITY;
  private watermark = MIN_WATERMARK;
  /** What a triggerable that fires a window end's timers in one call polls them from (see advanceWatermark). */
  private readonly keyList: EventTimeKeyList<K, N>;
  /** Set by the runtime: runs a processing-time firing inside the task's error handling. */
  guard: (fire: () => void) => void = (fire) => fire();

  constructor(
    readonly name: string,
    private readonly backend: KeyedStateBackend,
    private readonly clock: ProcessingTimeClock,
    readonly namespaceSerializer: NamespaceSerializer<N>,
    readonly triggerable: Triggerable<K, N>,
  ) {
    const nsKey = (namespace: N): string | number => namespaceSerializer.key(namespace);
    const hashing = namespaceSerializer.hashing;
    const equals = hashing === undefined ? undefined : (a: N, b: N): boolean => hashing.equals(a, b);
    this.eventTimers = new TimerHeap<N>(nsKey, equals);
    this.processingTimers = new TimerHeap<N>(nsKey, equals);
    if (namespaceSerializer === (voidNamespaceSerializer as NamespaceSerializer<unknown>)) {
      // A process function's timers: one namespace, and deleted one by one, often long after they were registered.
      this.eventTimers.deleteLazily(VoidNamespace as N);
      this.processingTimers.deleteLazily(VoidNamespace as N);
    }
    this.keyList = new EventTimeKeyList(this.eventTimers, backend);
  }

  currentProcessingTime(): number {
    return this.clock.now();
  }

  currentWatermark(): number {
    return this.watermark;
  }

  registerEventTimeTimer(namespace: N, time: number): void {
    checkTimerTime('registerEventTimeTimer', time);
    this.eventTimers.add(time, this.backend.getCurrentKey(), this.backend.currentNormalizedKey(), namespace);
  }

  registerNewEventTimeTimer(namespace: N, time: number): void {
    checkTimerTime('registerEventTimeTimer', time);
    this.eventTimers.addNew(
      time,
      this.backend.getCurrentKey(),
      this.backend.currentNormalizedKey(),
      namespace,
    );
  }

  deleteEventTimeTimer(namespace: N, time: number): void {
    this.eventTimers.remove(time, this.backend.currentNormalizedKey(), namespace);
  }

  moveEventTimeTimer(from: N, fromTime: number, to: N, toTime: number): void {
    checkTimerTime('registerEventTimeTimer', toTime);
    const backend = this.backend;
    this.eventTimers.move(
      fromTime,
      from,
      toTime,
      backend.getCurrentKey(),
      backend.currentNormalizedKey(),
      to,
    );
  }

  retireMovedTimersLazily(): void {
    this.eventTimers.retireMovedTimersLazily();
  }

  registerProcessingTimeTimer(namespace: N, time: number): void {
    checkTimerTime('registerProcessingTimeTimer', time);
    const added = this.processingTimers.add(
      time,
      this.backend.getCurrentKey(),
      this.backend.currentNormalizedKey(),
      namespace,
    );
    // Stryker disable next-line LogicalOperator,EqualityOperator: a duplicate or a timer at the scheduled time needs no new callback, and rescheduling the same time changes nothing
    if (added && time < this.scheduledTime) this.schedule(time);
  }

  deleteProcessingTimeTimer(namespace: N, time: number): void {
    // The scheduled callback stays: when it runs it finds nothing due and schedules the next head (as Flink).
    this.processingTimers.remove(time, this.backend.currentNormalizedKey(), namespace);
  }

  numEventTimeTimers(): number {
    return this.eventTimers.size;
  }

  numProcessingTimeTimers(): number {
    return this.processingTimers.size;
  }

  /**
   * Fires every event-time timer with timestamp <= watermark, in timestamp order. Timers the heap keeps as a key list
   * (one namespace, plain keys) go to a triggerable that takes them in one call, if it does: no timer object and no
   * call per timer (a window end fires a pane per key). The order and the key set before each are the same.
   */
  advanceWatermark(watermark: number): void {
    this.watermark = watermark;
    const heap = this.eventTimers;
    const triggerable = this.triggerable;
    const byKeyList = triggerable.onEventTimeKeyList !== undefined;
    let next: number | undefined;
    while ((next = heap.peekTimestamp()) !== undefined && next <= watermark) {
      if (byKeyList) {
        const namespace = heap.headListNamespace();
        if (namespace !== undefined) {
          const keyList = this.keyList;
          keyList.start(next, namespace);
          triggerable.onEventTimeKeyList!(next, namespace, keyList);
          // One that polled nothing would be offered the same list again: its first timer goes the usual way.
          if (keyList.polled > 0) continue;
        }
      }
      const timer = heap.poll()!;
      this.backend.setCurrentNormalizedKey(timer.normalizedKey, timer.key);
      this.triggerable.onEventTime(timer as unknown as { timestamp: number; key: K; namespace: N });
    }
  }

  /** Schedules the clock callback for the earliest processing-time timer, if any (after a restore). */
  start(): void {
    const head = this.processingTimers.peekTimestamp();
    if (head !== undefined) this.schedule(head);
  }

  stop(): void {
    this.scheduled?.cancel();
    this.scheduled = undefined;
    this.scheduledTime = Number.POSITIVE_INFINITY;
  }

  private schedule(time: number): void {
    this.scheduled?.cancel();
    this.scheduledTime = time;
    this.scheduled = this.clock.schedule(time, (now) => this.guard(() => this.onProcessingTime(now)));
  }

  private onProcessingTime(now: number): void {
    this.scheduled = undefined;
    this.scheduledTime = Number.POSITIVE_INFINITY;
    const heap = this.processingTimers;
    let next: number | undefined;
    while ((next = heap.peekTimestamp()) !== undefined && next <= now) {
      const timer = heap.poll()!;
      this.backend.setCurrentNormalizedKey(timer.normalizedKey, timer.key);
      this.triggerable.onProcessingTime(timer as unknown as { timestamp: number; key: K; namespace: N });
    }
    if (next !== undefined && this.scheduled === undefined) this.schedule(next);
  }
}

/**
 * The event-time timers of one timestamp and namespace, polled by key (see {@link Triggerable.onEventTimeKeyList}).
 * One object per service, re-pointed at each list.
 */
class EventTimeKeyList<K, N> implements KeyListTimers<K> {
  private timestamp = 0;
  private namespace: N | undefined = undefined;
  /** How many timers the current list's triggerable polled. */
  polled = 0;

  constructor(
    private readonly heap: TimerHeap<N>,
    private readonly backend: KeyedStateBackend,
  ) {}

  start(timestamp: number, namespace: N): void {
    this.timestamp = timestamp;
    this.namespace = namespace;
    this.polled = 0;
  }

  pollKey(): K | undefined {
    const key = this.heap.pollListed(this.timestamp, this.namespace!);
    if (key === undefined) return undefined;
    // A key list holds plain keys only: the key is its normalized form.
    this.backend.setCurrentNormalizedKey(key, key);
    this.polled++;
    return key as K;
  }
}

/**
 * A timer at NaN (say `ctx.timestamp()! + 60_000` on a record without a timestamp) would never fire and never be
 * noticed: it is refused, with the likely cause.
 */
function checkTimerTime(method: string, time: number): void {
  if (typeof time === 'number' && !Number.isNaN(time)) return;
  throw new IllegalStateError(
    `${method}(${String(time)}): a timer needs a time in milliseconds. On a record without a timestamp ` +
      'ctx.timestamp() is undefined: assign timestamps with a WatermarkStrategy (fromSource or ' +
      'assignTimestampsAndWatermarks)',
  );
}
