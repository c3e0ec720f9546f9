// Output assertions for windowing tests: records compared per watermark segment, order-insensitive within one.
import assert from 'node:assert/strict';
import type { HarnessOutput } from './keyed-operator-harness.ts';

/**
 * Flink's `TestHarnessUtil.assertOutputEqualsSorted`, made a little stricter: the watermarks must match in order,
 * and the records between two watermarks must match as a multiset (Flink sorts them because its firing order
 * depends on hashing).
 */
export function assertOutputEqualsSorted<T>(
  actual: readonly HarnessOutput<T>[],
  expected: readonly HarnessOutput<T>[],
  message?: string,
): void {
  assert.deepEqual(segments(actual), segments(expected), message);
}

function segments<T>(output: readonly HarnessOutput<T>[]): unknown[] {
  const result: unknown[] = [];
  let records: string[] = [];
  for (const o of output) {
    if ('watermark' in o) {
      result.push(records.sort(), { watermark: o.watermark });
      records = [];
    } else {
      records.push(JSON.stringify([o.timestamp, o.value]));
    }
  }
  result.push(records.sort());
  return result;
}

/** Shorthand for an expected record. */
export function record<T>(value: T, timestamp: number): HarnessOutput<T> {
  return { value, timestamp };
}

/** Shorthand for an expected watermark. */
export function watermark(ms: number): HarnessOutput<never> {
  return { watermark: ms };
}
