// The engine-side timer service: (timestamp, key, namespace) timers for operators, as Flink's InternalTimerService.

/** A timer as the runtime keeps it. */
export interface InternalTimer<K, N> {
  readonly timestamp: number;
  readonly key: K;
  readonly namespace: N;
}

/** What a timer service calls when a timer fires; the current key is already set to the timer's key. */
export interface Triggerable<K, N> {
  onEventTime(timer: InternalTimer<K, N>): void;
  onProcessingTime(timer: InternalTimer<K, N>): void;
  /**
   * Fires the event-time timers of one namespace at one timestamp in one call, instead of `onEventTime` once for
   * each (a window end's timers: one per key, all of one window). It polls them by {@link KeyListTimers.pollKey}
   * until that answers undefined, and fires each as `onEventTime` would; it may stop early, and any timer left is
   * then fired as usual. The service offers the timers it keeps as a list of plain keys (see `TimerHeap.addNew`).
   */
  onEventTimeKeyList?(timestamp: number, namespace: N, timers: KeyListTimers<K>): void;
}

/**
 * The timers a {@link Triggerable.onEventTimeKeyList} call polls, all of its timestamp and namespace.
 *
 * @example
 * onEventTimeKeyList(timestamp: number, window: W, timers: KeyListTimers<K>): void {
 *   let key: K | undefined;
 *   while ((key = timers.pollKey()) !== undefined) this.fire(timestamp, key, window);
 * }
 */
export interface KeyListTimers<K> {
  /**
   * Removes the next timer and makes its key the current key, as a poll before `onEventTime` does, and returns the
   * key; undefined when the next timer is another's (of another timestamp or namespace) or there is none. The
   * timers come in the order and at the times `onEventTime` would have seen them, whatever the calls in between
   * register or delete.
   */
  pollKey(): K | undefined;
}

/**
 * Timers of one operator, scoped to the current key. Registering a timer that exists (same timestamp, key and
 * namespace) is a no-op; deleting one that does not is a no-op. Event-time timers fire when a watermark reaches
 * their timestamp, in timestamp order; processing-time timers when the clock does.
 */
export interface InternalTimerService<N> {
  currentProcessingTime(): number;
  currentWatermark(): number;
  registerEventTimeTimer(namespace: N, time: number): void;
  /**
   * Registers an event-time timer the caller knows is not registered (for the current key), skipping the
   * duplicate check: the timers of one namespace at one time then cost an array slot each (see `TimerHeap.addNew`).
   * Registering a timer that exists this way breaks the de-duplication; when in doubt use registerEventTimeTimer.
   */
  registerNewEventTimeTimer(namespace: N, time: number): void;
  deleteEventTimeTimer(namespace: N, time: number): void;
  /**
   * Registers the event-time timer (`to`, `toTime`) and then deletes (`from`, `fromTime`), for the current key, in
   * one call: what a merge does when one window grows into another (see `TimerHeap.move`).
   */
  moveEventTimeTimer(from: N, fromTime: number, to: N, toTime: number): void;
  /**
   * From now on a move leaves the old event-time timer in its bucket, retired, where it is the one timer holding the
   * `from` object (see `TimerHeap.retireMovedTimersLazily`). The caller promises that namespaces are `TimerMarked`
   * objects each of whose timers is of one key at one time (a session window's, at its end).
   */
  retireMovedTimersLazily?(): void;
  registerProcessingTimeTimer(namespace: N, time: number): void;
  deleteProcessingTimeTimer(namespace: N, time: number): void;
  numEventTimeTimers(): number;
  numProcessingTimeTimers(): number;
}
