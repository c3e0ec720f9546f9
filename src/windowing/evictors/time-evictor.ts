// TimeEvictor: keeps only elements within `windowSize` ms of the newest element of the pane.
import { ConfigurationError } from '../../core/errors.ts';
import { removeElementsWhere, type Evictor, type EvictorContext, type TimestampedValue } from '../evictor.ts';
import type { Window } from '../window.ts';

/**
 * Evicts elements whose timestamp is `windowSize` ms or more older than the newest element in the pane, as
 * Flink's `TimeEvictor` (the cut-off is `max timestamp - windowSize`, inclusive). Elements without timestamps
 * (processing time) are never evicted.
 *
 * @example
 * keyed.window(GlobalWindows.create()).evictor(TimeEvictor.of(Time.seconds(10))).trigger(CountTrigger.of(5))
 */
export class TimeEvictor<W extends Window = Window> implements Evictor<unknown, W> {
  private constructor(
    readonly windowSize: number,
    readonly doEvictAfter: boolean,
  ) {
    if (!(windowSize >= 0))
      throw new ConfigurationError(`TimeEvictor needs a window size >= 0, got ${windowSize}`);
  }

  static of<W extends Window = Window>(windowSize: number, doEvictAfter = false): TimeEvictor<W> {
    return new TimeEvictor<W>(windowSize, doEvictAfter);
  }

  evictBefore(elements: TimestampedValue<unknown>[], _size: number, _window: W, _ctx: EvictorContext): void {
    if (!this.doEvictAfter) this.evict(elements);
  }

  evictAfter(elements: TimestampedValue<unknown>[], _size: number, _window: W, _ctx: EvictorContext): void {
    if (this.doEvictAfter) this.evict(elements);
  }

  private evict(elements: TimestampedValue<unknown>[]): void {
    // Flink looks at the first element only to decide whether the pane has timestamps at all.
    const first = elements[0];
    if (first === undefined || first.timestamp !== first.timestamp) return;
    let currentTime = Number.NEGATIVE_INFINITY;
    for (const e of elements) if (e.timestamp > currentTime) currentTime = e.timestamp;
    const evictCutoff = currentTime - this.windowSize;
    removeElementsWhere(elements, (e) => e.timestamp <= evictCutoff);
  }

  toString(): string {
    return `TimeEvictor(${this.windowSize})`;
  }
}
