// Window: a finite (or, for GlobalWindow, endless) bucket of elements, and the namespace its state lives in.

/**
 * A window groups elements of one key, as Flink's `Window`. Its only contract is {@link maxTimestamp}: the
 * largest timestamp that still belongs to it, which is also the timestamp of every result the window emits
 * and the time its default trigger fires.
 *
 * @example
 * const w = new TimeWindow(0, 1000);
 * w.maxTimestamp(); // 999
 */
export interface Window {
  /** The largest timestamp still inside the window. */
  maxTimestamp(): number;
}
