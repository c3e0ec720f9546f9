// Conditions: the predicates stages test events with, plain or iterative (Flink's SimpleCondition / IterativeCondition).

/**
 * What an iterative condition sees besides the event: the events already accepted by the partial match it is
 * evaluated for, the event's timestamp and the current processing time (Flink's `IterativeCondition.Context`).
 */
export interface ConditionContext<T> {
  /**
   * The events the current partial match has accepted for the stage `name`, in order (empty if none). Computed on
   * first use per partial match and event, so plain conditions pay nothing for it.
   */
  getEventsForPattern(name: string): readonly T[];
  /** The timestamp of the event being tested (event time, or processing time in processing-time mode). */
  timestamp(): number;
  currentProcessingTime(): number;
}

/**
 * A stage condition. A function of one argument is Flink's `SimpleCondition`; one that also takes the context is
 * an `IterativeCondition` and can look at the events matched so far.
 *
 * @example
 * // simple
 * (e: Tx) => e.amount < 1
 * // iterative: the average price of the events taken so far by 'middle' stays below 5
 * (e: Tx, ctx) => { const prev = ctx.getEventsForPattern('middle'); return avg([...prev, e]) < 5; }
 */
export type IterativeCondition<T, F extends T = T> = (value: F, ctx: ConditionContext<T>) => boolean;

/** A condition as the NFA stores it: over the base event type. */
export type Condition<T> = (value: T, ctx: ConditionContext<T>) => boolean;

/** The condition that always holds (Flink's `BooleanConditions.trueFunction()`). */
export const trueCondition: Condition<any> = () => true;

/** Both conditions hold; the left one is tested first (Flink's `RichAndCondition`). */
export function andCondition<T>(left: Condition<T>, right: Condition<T>): Condition<T> {
  return (value, ctx) => left(value, ctx) && right(value, ctx);
}

/** Either condition holds; the left one is tested first (Flink's `RichOrCondition`). */
export function orCondition<T>(left: Condition<T>, right: Condition<T>): Condition<T> {
  return (value, ctx) => left(value, ctx) || right(value, ctx);
}

/** The negation (Flink's `RichNotCondition`). */
export function notCondition<T>(inner: Condition<T>): Condition<T> {
  return (value, ctx) => !inner(value, ctx);
}
