// CountEvictor: keeps at most the last `maxCount` elements of a pane.
import { ConfigurationError } from '../../core/errors.ts';
import type { Evictor, EvictorContext, TimestampedValue } from '../evictor.ts';
import type { Window } from '../window.ts';

/**
 * Keeps the last `maxCount` elements of a pane (in arrival order) and evicts the rest from the front, as Flink's
 * `CountEvictor`. By default it evicts before the window function; `doEvictAfter` evicts after it.
 *
 * @example
 * // Sliding count window: every 2 elements, evaluate the last 5
 * keyed.countWindow(5, 2) // window(GlobalWindows.create()).evictor(CountEvictor.of(5)).trigger(CountTrigger.of(2))
 */
export class CountEvictor<W extends Window = Window> implements Evictor<unknown, W> {
  private constructor(
    readonly maxCount: number,
    readonly doEvictAfter: boolean,
  ) {
    if (!(maxCount >= 0)) throw new ConfigurationError(`CountEvictor needs a count >= 0, got ${maxCount}`);
  }

  static of<W extends Window = Window>(maxCount: number, doEvictAfter = false): CountEvictor<W> {
    return new CountEvictor<W>(maxCount, doEvictAfter);
  }

  evictBefore(elements: TimestampedValue<unknown>[], size: number, _window: W, _ctx: EvictorContext): void {
    if (!this.doEvictAfter) this.evict(elements, size);
  }

  evictAfter(elements: TimestampedValue<unknown>[], size: number, _window: W, _ctx: EvictorContext): void {
    if (this.doEvictAfter) this.evict(elements, size);
  }

  private evict(elements: TimestampedValue<unknown>[], size: number): void {
    // A pane within the count gives a negative delete count, which splice treats as 0.
    elements.splice(0, size - this.maxCount);
  }

  toString(): string {
    return `CountEvictor(${this.maxCount})`;
  }
}
