// sum / min / max by selector: the aggregate of the selected values is the output, rolling per key or per window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../data-stream.ts';
import { JobExecutionError } from '../../core/errors.ts';
import { TestHarness } from '../../testing/index.ts';
import { EventTimeSessionWindows } from '../../windowing/assigners/event-time-session-windows.ts';
import { TumblingEventTimeWindows } from '../../windowing/assigners/tumbling-event-time-windows.ts';
import { isType } from '../../../test/support/is-type.ts';

type Tuple2 = [number, number];

/** Runs `build` over `inputs` (timestamps as given), then the watermarks, and returns [value, timestamp] pairs. */
async function run<T, R>(
  build: (input: DataStream<T>) => DataStream<R>,
  inputs: [T, number][],
  watermarks: number[] = [],
): Promise<[R, number | undefined][]> {
  const h = await TestHarness.create(build);
  for (const [v, ts] of inputs) h.processElement(v, ts);
  for (const w of watermarks) h.processWatermark(w);
  const out = h
    .output()
    .flatMap((e): [R, number | undefined][] => ('value' in e ? [[e.value, e.timestamp]] : []));
  await h.close();
  return out;
}

// Flink's AggregationFunctionTest input: (i % 3, i) for i in 0..8, keyed on field 0.
const tuples2 = (): [Tuple2, number][] =>
  Array.from({ length: 9 }, (_, i): [Tuple2, number] => [[i % 3, i], i]);

describe('aggregations by selector', () => {
  it('keyed, rolling: the running sum, min and max of the selected value, one per record', async () => {
    const sums = await run((s: DataStream<Tuple2>) => s.keyBy((t) => t[0]).sum((t) => t[1]), tuples2());
    assert.deepEqual(
      sums.map(([v]) => v),
      [0, 1, 2, 3, 5, 7, 9, 12, 15],
    );
    // Each aggregate keeps the timestamp of the record that produced it.
    assert.deepEqual(
      sums.map(([, ts]) => ts),
      [0, 1, 2, 3, 4, 5, 6, 7, 8],
    );
    const mins = await run((s: DataStream<Tuple2>) => s.keyBy((t) => t[0]).min((t) => 10 - t[1]), tuples2());
    assert.deepEqual(
      mins.map(([v]) => v),
      [10, 9, 8, 7, 6, 5, 4, 3, 2],
    );
    const maxes = await run((s: DataStream<Tuple2>) => s.keyBy((t) => t[0]).max((t) => t[1] % 4), tuples2());
    // Keys 0, 1, 2 see values 0,3,6 / 1,4,7 / 2,5,8; mod 4: 0,3,2 / 1,0,3 / 2,1,0.
    assert.deepEqual(
      maxes.map(([v]) => v),
      [0, 1, 2, 3, 1, 2, 3, 3, 2],
    );
  });

  it('a stream of plain numbers: what Flink writes as sum(0)', async () => {
    const out = await run(
      (s: DataStream<number>) => s.keyBy((n) => n % 2).sum((n) => n),
      [1, 2, 3, 4, 5].map((n): [number, number] => [n, n]),
    );
    assert.deepEqual(
      out.map(([v]) => v),
      [1, 2, 4, 6, 9],
    );
  });

  it('sums bigints, compares strings, and keeps the earlier value on a tie and NaN above every number', async () => {
    const big = await run(
      (s: DataStream<{ k: string; n: bigint }>) => s.keyBy((r) => r.k).sum((r) => r.n),
      [
        [{ k: 'a', n: 2n ** 60n }, 0],
        [{ k: 'a', n: 1n }, 1],
      ],
    );
    assert.deepEqual(
      big.map(([v]) => v),
      [2n ** 60n, 2n ** 60n + 1n],
    );
    const names = await run(
      (s: DataStream<{ k: string; name: string }>) => s.keyBy((r) => r.k).min((r) => r.name),
      [
        [{ k: 'a', name: 'mia' }, 0],
        [{ k: 'a', name: 'ann' }, 1],
        [{ k: 'a', name: 'zoe' }, 2],
      ],
    );
    assert.deepEqual(
      names.map(([v]) => v),
      ['mia', 'ann', 'ann'],
    );
    const nan = await run(
      (s: DataStream<number>) => s.keyBy(() => 'all').max((n) => n),
      [
        [1, 0],
        [Number.NaN, 1],
        [5, 2],
      ],
    );
    assert.deepEqual(
      nan.map(([v]) => v),
      [1, Number.NaN, Number.NaN],
    );
  });

  it('on tumbling windows: the sum and max of the selected values per key and window', async () => {
    type Reading = { sensor: string; v: number };
    const rows: [Reading, number][] = [
      [{ sensor: 'a', v: 3 }, 100],
      [{ sensor: 'b', v: 1 }, 200],
      [{ sensor: 'a', v: 7 }, 300],
      [{ sensor: 'a', v: 7 }, 400],
      [{ sensor: 'a', v: 2 }, 1100],
    ];
    const windowOf = (s: DataStream<Reading>) =>
      s.keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(1000));
    assert.deepEqual(
      await run((s: DataStream<Reading>) => windowOf(s).sum((r) => r.v * 10), rows, [999, 1999]),
      [
        [170, 999],
        [10, 999],
        [20, 1999],
      ],
    );
    assert.deepEqual(await run((s: DataStream<Reading>) => windowOf(s).max((r) => r.v), rows, [999, 1999]), [
      [7, 999],
      [1, 999],
      [2, 1999],
    ]);
  });

  it('on session windows: partial aggregates merge when sessions do', async () => {
    // Gap 10: 0 and 15 open two sessions, [0, 10) and [15, 25); 7 bridges them into one [0, 25).
    const out = await run(
      (s: DataStream<number>) =>
        s
          .keyBy(() => 'k')
          .window(EventTimeSessionWindows.withGap(10))
          .min((n) => n),
      [
        [5, 0],
        [3, 15],
        [4, 7],
        [9, 50],
      ],
      [100],
    );
    assert.deepEqual(out, [
      [3, 24],
      [9, 59],
    ]);
  });

  it('on all-windows: the minimum of the selected values over the whole stream', async () => {
    const out = await run(
      (s: DataStream<[string, number]>) => s.windowAll(TumblingEventTimeWindows.of(10)).min((t) => t[1]),
      [
        [['x', 5], 1],
        [['y', 2], 2],
        [['z', 4], 12],
      ],
      [20],
    );
    assert.deepEqual(out, [
      [2, 9],
      [4, 19],
    ]);
  });

  it('types the result as the selected value (checked by the compiler)', () => {
    const check = (s: DataStream<{ k: string; n: number; big: bigint; id: string; flag: boolean }>) => {
      const keyed = s.keyBy((r) => r.k);
      assert.ok(isType<ReturnType<typeof keyed.sum<number>>, DataStream<number>>(true));
      const _sum = keyed.sum((r) => r.n);
      const _bigSum = keyed.sum((r) => r.big);
      const _min = keyed.min((r) => r.id);
      const _fieldSum = keyed.sum('n');
      assert.ok(isType<typeof _sum, DataStream<number>>(true));
      assert.ok(isType<typeof _bigSum, DataStream<bigint>>(true));
      assert.ok(isType<typeof _min, DataStream<string>>(true));
      assert.ok(
        isType<
          typeof _fieldSum,
          DataStream<{ k: string; n: number; big: bigint; id: string; flag: boolean }>
        >(true),
      );
      // @ts-expect-error strings cannot be summed
      keyed.sum((r) => r.id);
      // @ts-expect-error booleans do not compare
      keyed.max((r) => r.flag);
    };
    assert.equal(typeof check, 'function');
  });

  it('a selected value of the wrong type at run time fails naming the operator, the value and the record', async () => {
    const h = await TestHarness.create((s: DataStream<{ k: string; n: number }>) =>
      s.keyBy((v) => v.k).sum((v) => v.n),
    );
    h.processElement({ k: 'a', n: 1 }, 0);
    assert.throws(
      () => h.processElement({ k: 'a', n: '2' as unknown as number }, 0),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        /Keyed Aggregation/.test(e.message) &&
        /sum\(selector\): the selector must return a number or bigint, got string "2"/.test(e.message),
    );
    await h.close();
    const mixed = await TestHarness.create((s: DataStream<number | bigint>) =>
      s.keyBy(() => 'k').sum((v) => v),
    );
    mixed.processElement(1, 0);
    assert.throws(
      () => mixed.processElement(2n, 0),
      (e: unknown) =>
        e instanceof JobExecutionError && /sum\(selector\): cannot add bigint 2n to number 1/.test(e.message),
    );
    await mixed.close();
  });
});
