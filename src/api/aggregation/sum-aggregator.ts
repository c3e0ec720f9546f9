// sum(field): a ReduceFunction adding one numeric field and keeping the first record's other fields.
import { ConfigurationError } from '../../core/errors.ts';
import { checkFieldArgument, describeValue, readField, withField } from './aggregation-field.ts';
import type { ReduceFunction } from '../../core/aggregate-function.ts';

const isNumeric = (v: unknown): boolean => typeof v === 'number' || typeof v === 'bigint';

/**
 * Flink's SumAggregator: `reduce(a, b)` is `a` with `field` set to `a.field + b.field`, so every other field keeps
 * the value of the first record of the key (or window). Numbers add as numbers, bigints as bigints; mixing the
 * two in one field fails, naming the field.
 *
 * @example
 * keyed.reduce(sumAggregator<Order>('amount')) // what keyed.sum('amount') runs
 */
export function sumAggregator<T>(field: string | number): ReduceFunction<T> {
  try {
    checkFieldArgument(field, 'sum');
  } catch (error) {
    throw new ConfigurationError((error as Error).message);
  }
  return (a: T, b: T): T => {
    const x = readField(a, field, 'sum', isNumeric, 'a number or bigint');
    const y = readField(b, field, 'sum', isNumeric, 'a number or bigint');
    if (typeof x !== typeof y) {
      throw new TypeError(
        `sum(${JSON.stringify(field)}): cannot add ${describeValue(y)} to ${describeValue(x)}; use one numeric type per field`,
      );
    }
    return withField(a, field, (x as number) + (y as number));
  };
}
