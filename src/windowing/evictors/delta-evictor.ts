// DeltaEvictor: evicts elements that are at least a threshold away from the newest element of the pane.
import type { DeltaFunction } from '../delta-function.ts';
import { removeElementsWhere, type Evictor, type EvictorContext, type TimestampedValue } from '../evictor.ts';
import type { Window } from '../window.ts';

/**
 * Evicts every element whose delta to the last element of the pane is `>= threshold`, as Flink's
 * `DeltaEvictor`.
 *
 * @example
 * // Evaluate only the readings within 10 degrees of the latest one
 * windowed.evictor(DeltaEvictor.of(10, (a: Reading, b: Reading) => Math.abs(a.celsius - b.celsius)))
 */
export class DeltaEvictor<T, W extends Window = Window> implements Evictor<T, W> {
  private constructor(
    readonly threshold: number,
    readonly deltaFunction: DeltaFunction<T>,
    readonly doEvictAfter: boolean,
  ) {}

  static of<T, W extends Window = Window>(
    threshold: number,
    deltaFunction: DeltaFunction<T>,
    doEvictAfter = false,
  ): DeltaEvictor<T, W> {
    return new DeltaEvictor<T, W>(threshold, deltaFunction, doEvictAfter);
  }

  evictBefore(elements: TimestampedValue<T>[], _size: number, _window: W, _ctx: EvictorContext): void {
    if (!this.doEvictAfter) this.evict(elements);
  }

  evictAfter(elements: TimestampedValue<T>[], _size: number, _window: W, _ctx: EvictorContext): void {
    if (this.doEvictAfter) this.evict(elements);
  }

  private evict(elements: TimestampedValue<T>[]): void {
    // An empty pane has no newest element, and then the predicate is never called.
    const last = elements[elements.length - 1]!;
    removeElementsWhere(elements, (e) => this.deltaFunction(e.value, last.value) >= this.threshold);
  }

  toString(): string {
    return `DeltaEvictor(${this.deltaFunction.name || 'deltaFunction'}, ${this.threshold})`;
  }
}
