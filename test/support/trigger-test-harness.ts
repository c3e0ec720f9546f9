// TriggerTestHarness: calls one trigger directly, on real partitioned state and timers (Flink's TriggerTestHarness).
import { ManualClock } from '../../src/core/clock.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import type { KeyGroupSnapshot } from '../../src/state/keyed-state-backend.ts';
import type { NamespaceSerializer } from '../../src/state/namespace.ts';
import type { InternalTimerService } from '../../src/time/internal-timer-service.ts';
import type { InternalTimerServiceImpl } from '../../src/time/internal-timer-service-impl.ts';
import type { TimerHeap } from '../../src/time/timer-heap.ts';
import { TimerServiceManager } from '../../src/time/timer-service-manager.ts';
import { WindowTriggerContext } from '../../src/windowing/operator/window-trigger-context.ts';
import { TimeWindow } from '../../src/windowing/time-window.ts';
import type { Trigger } from '../../src/windowing/trigger.ts';
import { triggerResultName, type TriggerResult } from '../../src/windowing/trigger-result.ts';
import type { Window } from '../../src/windowing/window.ts';

/**
 * Drives a trigger without a window operator, for one key: every call names the window it is for, timers fire when
 * the watermark or the manual clock passes them (each firing calls the trigger's `onEventTime` /
 * `onProcessingTime` and is returned as `'[start,end) RESULT'`), and the counts of state entries and timers show what
 * the trigger left behind. Nothing is cleaned up on the trigger's behalf: a leaked timer or state entry shows.
 */
export class TriggerTestHarness<T, W extends Window> {
  private readonly clock = new ManualClock(0);
  private readonly backend: HeapKeyedStateBackend;
  private readonly timerService: InternalTimerServiceImpl<string, W>;
  private readonly context: WindowTriggerContext<string, W>;
  private firings: string[] = [];

  constructor(
    trigger: Trigger<T, W>,
    private readonly windowSerializer: NamespaceSerializer<W>,
  ) {
    this.backend = new HeapKeyedStateBackend(1, new KeyGroupRange(0, 0), () => this.clock.now(), 'trigger');
    this.backend.setCurrentKey('k');
    const timers = new TimerServiceManager(this.backend, this.clock, (fire) => fire());
    this.timerService = timers.getInternalTimerService<string, W>('window-timers', windowSerializer, {
      onEventTime: (timer) => {
        this.context.window = timer.namespace;
        this.firings.push(
          `${name(timer.namespace)} ${triggerResultName(this.context.onEventTime(timer.timestamp))}`,
        );
      },
      onProcessingTime: (timer) => {
        this.context.window = timer.namespace;
        this.firings.push(
          `${name(timer.namespace)} ${triggerResultName(this.context.onProcessingTime(timer.timestamp))}`,
        );
      },
    });
    // The timer service ignores a deletion at a time that is not a number; a trigger that asks for one has lost track
    // of its timers (deleted a fire time it never stored), so here it fails.
    const service = this.timerService;
    const checked: InternalTimerService<W> = {
      currentProcessingTime: () => service.currentProcessingTime(),
      currentWatermark: () => service.currentWatermark(),
      registerEventTimeTimer: (window, time) => service.registerEventTimeTimer(window, time),
      registerNewEventTimeTimer: (window, time) => service.registerNewEventTimeTimer(window, time),
      registerProcessingTimeTimer: (window, time) => service.registerProcessingTimeTimer(window, time),
      deleteEventTimeTimer: (window, time) =>
        service.deleteEventTimeTimer(window, checkTime('deleteEventTimeTimer', time)),
      moveEventTimeTimer: (from, fromTime, to, toTime) =>
        service.moveEventTimeTimer(from, checkTime('moveEventTimeTimer', fromTime), to, toTime),
      deleteProcessingTimeTimer: (window, time) =>
        service.deleteProcessingTimeTimer(window, checkTime('deleteProcessingTimeTimer', time)),
      numEventTimeTimers: () => service.numEventTimeTimers(),
      numProcessingTimeTimers: () => service.numProcessingTimeTimers(),
    };
    this.context = new WindowTriggerContext<string, W>(this.backend, checked, windowSerializer, trigger);
  }

  /** `onElement` for an element of `window`; returns its result. */
  processElement(element: T, timestamp: number, window: W): TriggerResult {
    this.context.window = window;
    return this.context.onElement(element, timestamp);
  }

  /** Advances the watermark; returns the firings of the event-time timers due, in timer order. */
  advanceWatermark(watermark: number): string[] {
    this.firings = [];
    this.timerService.advanceWatermark(watermark);
    return this.firings;
  }

  /** Advances the clock; returns the firings of the processing-time timers due, in timer order. */
  advanceProcessingTime(time: number): string[] {
    this.firings = [];
    this.clock.advanceTo(time);
    return this.firings;
  }

  /** `onEventTime` for a timer the trigger may never have registered (the window operator's cleanup timer). */
  invokeOnEventTime(time: number, window: W): TriggerResult {
    this.context.window = window;
    return this.context.onEventTime(time);
  }

  /** `onProcessingTime` for a timer the trigger may never have registered. */
  invokeOnProcessingTime(time: number, window: W): TriggerResult {
    this.context.window = window;
    return this.context.onProcessingTime(time);
  }

  /** `onMerge` into `target`, then `clear` of every merged window, as the window operator does. */
  mergeWindows(target: W, merged: readonly W[]): void {
    this.context.window = target;
    this.context.onMerge(merged);
    for (const window of merged) this.clearTriggerState(window);
  }

  /** `clear` for `window`. */
  clearTriggerState(window: W): void {
    this.context.window = window;
    this.context.clear();
  }

  /** The keyed state as a checkpoint writes it (each state through its descriptor's serializer). */
  snapshot(): KeyGroupSnapshot[] {
    return this.backend.snapshot();
  }

  numStateEntries(): number {
    return this.backend.numStateEntries();
  }

  /** Pending event-time timers, of all windows or of `window` only. */
  numEventTimeTimers(window?: W): number {
    return this.count(this.timerService.eventTimers, window);
  }

  /** Pending processing-time timers, of all windows or of `window` only. */
  numProcessingTimeTimers(window?: W): number {
    return this.count(this.timerService.processingTimers, window);
  }

  /** Pending event-time timers as `'[start,end)@time'`, in firing order. */
  eventTimeTimers(): string[] {
    return this.list(this.timerService.eventTimers);
  }

  /** Pending processing-time timers as `'[start,end)@time'`, in firing order. */
  processingTimeTimers(): string[] {
    return this.list(this.timerService.processingTimers);
  }

  private count(heap: TimerHeap<W>, window: W | undefined): number {
    if (window === undefined) return heap.size;
    const key = this.windowSerializer.key(window);
    return heap.values().filter((t) => this.windowSerializer.key(t.namespace) === key).length;
  }

  private list(heap: TimerHeap<W>): string[] {
    return heap.values().map((t) => `${name(t.namespace)}@${t.timestamp}`);
  }
}

/** `[start,end)` for a time window, as the firings and timer lists show it. */
function name(window: Window): string {
  return window instanceof TimeWindow ? `[${window.start},${window.end})` : String(window);
}

function checkTime(method: string, time: number): number {
  if (typeof time !== 'number' || Number.isNaN(time))
    throw new Error(`${method}(${String(time)}): not a time`);
  return time;
}
