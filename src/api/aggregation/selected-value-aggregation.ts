// sum / min / max of a value picked by a selector: the result is that value, not a record with a field replaced.
import type { AggregateFunction } from '../../core/aggregate-function.ts';
import type { Collector, KeyedProcessContext, KeyedProcessFunction } from '../../core/functions.ts';
import type { RuntimeContext } from '../../core/runtime-context.ts';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import type { ValueState } from '../../core/state.ts';
import type { Comparable } from './aggregation-field.ts';
import { describeValue } from './aggregation-field.ts';
import { compare } from './comparable-aggregator.ts';

/** The aggregations that can run over a selected value. */
export type SelectedValueAggregation = 'sum' | 'min' | 'max';

/**
 * Combines the aggregate so far with the next selected value. `sum` adds numbers as numbers and bigints as
 * bigints; `min` / `max` keep the smaller / larger with the rules of `min(field)` (one type, NaN above every
 * number). A selected value of the wrong type fails with the aggregation and the value in the message.
 */
export function selectedValueCombiner<V extends Comparable>(
  type: SelectedValueAggregation,
): (aggregate: V | undefined, value: V) => V {
  if (type === 'sum') {
    return (aggregate, value) => {
      if (typeof value !== 'number' && typeof value !== 'bigint') {
        throw new TypeError(
          `sum(selector): the selector must return a number or bigint, got ${describeValue(value)}`,
        );
      }
      if (aggregate === undefined) return value;
      if (typeof aggregate !== typeof value) {
        throw new TypeError(
          `sum(selector): cannot add ${describeValue(value)} to ${describeValue(aggregate)}; return one numeric type`,
        );
      }
      return ((aggregate as number) + (value as number)) as V;
    };
  }
  const wantMax = type === 'max';
  return (aggregate, value) => {
    if (typeof value !== 'number' && typeof value !== 'bigint' && typeof value !== 'string') {
      throw new TypeError(
        `${type}(selector): the selector must return a number, bigint or string, got ${describeValue(value)}`,
      );
    }
    if (aggregate === undefined) return value;
    const c = compare(aggregate, value, type, selectorMarker);
    // On a tie the earlier value stays, as min(field) keeps the earlier record's field.
    return (wantMax ? c >= 0 : c <= 0) ? aggregate : value;
  };
}

// compare() names a function argument "selector" in its messages.
const selectorMarker = (): void => undefined;

/** The accumulator of a window's selected-value aggregation: undefined until the first element. */
interface SelectedValueAccumulator<V> {
  value: V | undefined;
}

/** A window's sum / min / max of a selected value, as an AggregateFunction (incremental, mergeable for sessions). */
export function selectedValueAggregate<T, V extends Comparable>(
  type: SelectedValueAggregation,
  selector: (value: T) => V,
): AggregateFunction<T, SelectedValueAccumulator<V>, V> {
  const combine = selectedValueCombiner<V>(type);
  return {
    createAccumulator: () => ({ value: undefined }),
    add(element, accumulator) {
      accumulator.value = combine(accumulator.value, selector(element));
      return accumulator;
    },
    // A window fires only once it holds an element, so the accumulator has a value here.
    getResult: (accumulator) => accumulator.value as V,
    merge(a, b) {
      if (b.value === undefined) return a;
      return { value: combine(a.value, b.value) };
    },
  };
}

/**
 * The rolling sum / min / max of a selected value per key: after every record, emits the key's aggregate so far
 * (what Flink's `sum(0)` on a keyed stream of plain numbers does). The aggregate is keyed state, so it is
 * checkpointed and rescaled with its key.
 */
export class RollingSelectedValue<K, T, V extends Comparable> implements KeyedProcessFunction<K, T, V> {
  private readonly combine: (aggregate: V | undefined, value: V) => V;
  private aggregate!: ValueState<V>;

  constructor(
    type: SelectedValueAggregation,
    private readonly selector: (value: T) => V,
  ) {
    this.combine = selectedValueCombiner<V>(type);
  }

  open(ctx: RuntimeContext): void {
    this.aggregate = ctx.getState(new ValueStateDescriptor<V>('rolling-aggregate'));
  }

  processElement(value: T, _ctx: KeyedProcessContext<K>, out: Collector<V>): void {
    const next = this.combine(this.aggregate.value(), this.selector(value));
    this.aggregate.update(next);
    out.collect(next);
  }
}
