// TriggerResult: what a trigger tells the window operator to do with a pane after an event.

/**
 * The decision a {@link Trigger} returns from each callback, as Flink's `TriggerResult`:
 *
 * - `CONTINUE`: do nothing.
 * - `FIRE`: evaluate the window function on the pane and emit the result; the contents stay.
 * - `PURGE`: drop the pane's contents without emitting (the window itself and its trigger state remain
 *   until the window is cleaned up).
 * - `FIRE_AND_PURGE`: emit, then drop the contents.
 *
 * The values are bit flags (fire = 1, purge = 2) so the operator tests them with one `&`.
 *
 * @example
 * onEventTime(time, window) {
 *   return time === window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
 * }
 */
export const TriggerResult = {
  CONTINUE: 0,
  FIRE: 1,
  PURGE: 2,
  FIRE_AND_PURGE: 3,
} as const;
export type TriggerResult = (typeof TriggerResult)[keyof typeof TriggerResult];

/** Whether the result asks to evaluate the window function. */
export function isFire(result: TriggerResult): boolean {
  return (result & TriggerResult.FIRE) !== 0;
}

/** Whether the result asks to drop the pane's contents. */
export function isPurge(result: TriggerResult): boolean {
  return (result & TriggerResult.PURGE) !== 0;
}

const NAMES = ['CONTINUE', 'FIRE', 'PURGE', 'FIRE_AND_PURGE'] as const;

/** The Flink name of a result, for messages and test output. */
export function triggerResultName(result: TriggerResult): string {
  return NAMES[result] ?? `TriggerResult(${String(result)})`;
}
