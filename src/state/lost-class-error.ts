// The error a snapshot raises before it would turn class instances in state into plain objects.
import { IllegalStateError } from '../core/errors.ts';
import type { LostClass } from '../core/type-serializer.ts';

/**
 * A snapshot would turn class instances in state into plain objects: fail, saying how to keep the class. Names the
 * state, the operator, the class and, for a field, where it sits.
 */
export function lostClassError(state: string, operator: string, lost: LostClass): IllegalStateError {
  const advice =
    state === 'window-contents'
      ? lost.path === ''
        ? `for an aggregate() accumulator, declare its class (.aggregate(fn, { accumulatorType: ${lost.className} })) or give it an accumulatorSerializer; for reduce() or process(), map the records to plain objects before the window`
        : `for an aggregate() accumulator, give it an accumulatorSerializer that restores it; for reduce() or process(), map the records to plain objects before the window`
      : lost.path === ''
        ? `declare the class on the descriptor (new ValueStateDescriptor('${state}', { type: ${lost.className} }), likewise for list and map states) or give it a serializer`
        : 'give the descriptor a serializer that restores it';
  return new IllegalStateError(
    `State '${state}' of operator '${operator}' holds instances of class ${lost.className}${lost.path === '' ? '' : ` at ${lost.path}`}, which a snapshot would restore as plain objects; ${advice}`,
  );
}
