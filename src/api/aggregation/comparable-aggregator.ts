// min / max / minBy / maxBy: ReduceFunctions comparing one field (or a selected value) with Flink's tie rules.
import { ConfigurationError } from '../../core/errors.ts';
import type { Comparable } from './aggregation-field.ts';
import { checkFieldArgument, describeValue, readField, withField } from './aggregation-field.ts';
import type { ReduceFunction } from '../../core/aggregate-function.ts';

/** Flink's AggregationType for comparable aggregations. */
export type ComparableAggregationType = 'min' | 'max' | 'minBy' | 'maxBy';

const isComparable = (v: unknown): boolean =>
  typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string';

/**
 * Flink's ComparableAggregator.
 *
 * - `min` / `max`: the result is the first record with only `field` replaced by the smallest / largest value seen
 *   so far; the other fields are never taken from later records.
 * - `minBy` / `maxBy`: the result is the whole record holding the smallest / largest value. On a tie, `first`
 *   (the default in the DataStream API) keeps the earlier record, otherwise the later one wins.
 *
 * `by` is a field (property name or tuple index) or, for `minBy` / `maxBy`, a function selecting the value to
 * compare. Values compare as numbers, bigints or strings, never mixed; NaN sorts above every number, as Java's
 * `Double.compareTo`.
 */
export function comparableAggregator<T>(
  type: ComparableAggregationType,
  by: string | number | ((value: T) => Comparable),
  first = true,
): ReduceFunction<T> {
  const byRecord = type === 'minBy' || type === 'maxBy';
  const wantMax = type === 'max' || type === 'maxBy';
  if (typeof by === 'function') {
    if (!byRecord) {
      throw new ConfigurationError(
        `${type}() writes the aggregate back into the record, so it needs a field name or tuple index, not a function; use ${type}By(selector) to pick the whole record`,
      );
    }
  } else {
    try {
      checkFieldArgument(by, type);
    } catch (error) {
      throw new ConfigurationError((error as Error).message);
    }
  }
  const read =
    typeof by === 'function'
      ? (record: T): unknown => {
          const v = by(record);
          if (!isComparable(v)) {
            throw new TypeError(
              `${type}(selector): the selector must return a number, bigint or string, got ${describeValue(v)}`,
            );
          }
          return v;
        }
      : (record: T): unknown => readField(record, by, type, isComparable, 'a number, bigint or string');

  return (a: T, b: T): T => {
    const x = read(a);
    const y = read(b);
    const c = compare(x, y, type, by);
    // Flink's Comparator.isExtremal: 1 when `a` is strictly the extreme, 0 on a tie, -1 when `b` is.
    const extremal = wantMax ? Math.sign(c) : -Math.sign(c);
    if (byRecord) {
      if (extremal === 0) return first ? a : b;
      return extremal === 1 ? a : b;
    }
    return extremal === 1 ? a : withField(a, by as string | number, y);
  };
}

/** Compares two aggregated values (one type, NaN above every number), naming the aggregation when they differ in type. */
export function compare(x: unknown, y: unknown, type: string, by: unknown): number {
  if (typeof x !== typeof y) {
    const what = typeof by === 'function' ? 'selector' : JSON.stringify(by);
    throw new TypeError(
      `${type}(${what}): cannot compare ${describeValue(x)} with ${describeValue(y)}; use one type per field`,
    );
  }
  if (typeof x === 'number' && (Number.isNaN(x) || Number.isNaN(y as number))) {
    return Number.isNaN(x) ? (Number.isNaN(y as number) ? 0 : 1) : -1;
  }
  return (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
}
