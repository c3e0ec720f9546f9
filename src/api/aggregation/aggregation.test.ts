// Ported from Flink's AggregationFunctionTest, plus windowed and all-windowed aggregations and the field types.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../data-stream.ts';
import { ConfigurationError, JobExecutionError } from '../../core/errors.ts';
import { TestHarness } from '../../testing/index.ts';
import { TumblingEventTimeWindows } from '../../windowing/assigners/tumbling-event-time-windows.ts';
import type { ComparableField, NumericField } from './aggregation-field.ts';
import { comparableAggregator } from './comparable-aggregator.ts';
import { sumAggregator } from './sum-aggregator.ts';

type Tuple2 = [number, number];
type Tuple3 = [number, number, number];

/** Flink's MyPojo / MyPojo3: grouped on f0, aggregated on f1. */
interface Pojo {
  f0: number;
  f1: number;
}
interface Pojo3 {
  f0: number;
  f1: number;
  f2: number;
}

async function keyed<T>(inputs: T[], build: (input: DataStream<T>) => DataStream<T>): Promise<T[]> {
  const h = await TestHarness.create(build);
  for (const v of inputs) h.processElement(v, 0);
  const out = h.records();
  await h.close();
  return out;
}

const tuples2 = (): Tuple2[] => Array.from({ length: 9 }, (_, i): Tuple2 => [i % 3, i]);
const pojos = (): Pojo[] => Array.from({ length: 9 }, (_, i) => ({ f0: i % 3, f1: i }));
const tuples3 = (): Tuple3[] => Array.from({ length: 9 }, (_, i): Tuple3 => [0, i % 3, i]);
// Flink's MyPojo3(f1, f2) keeps f0 at 0.
const pojos3 = (): Pojo3[] => Array.from({ length: 9 }, (_, i) => ({ f0: 0, f1: i % 3, f2: i }));

describe('AggregationFunctionTest (Flink)', () => {
  const sums = [0, 1, 2, 3, 5, 7, 9, 12, 15];
  it('groupSumIntegerTest: sum, min and max of field 1 grouped on field 0', async () => {
    assert.deepEqual(
      await keyed(tuples2(), (s) => s.keyBy((t) => t[0]).sum(1)),
      sums.map((sum, i) => [i % 3, sum]),
    );
    assert.deepEqual(
      await keyed(tuples2(), (s) => s.keyBy((t) => t[0]).min(1)),
      sums.map((_, i) => [i % 3, i % 3]),
    );
    assert.deepEqual(
      await keyed(tuples2(), (s) => s.keyBy((t) => t[0]).max(1)),
      sums.map((_, i) => [i % 3, i]),
    );
  });

  it('pojoGroupSumIntegerTest: the same by field name', async () => {
    assert.deepEqual(
      await keyed(pojos(), (s) => s.keyBy((p) => p.f0).sum('f1')),
      sums.map((sum, i) => ({ f0: i % 3, f1: sum })),
    );
    assert.deepEqual(
      await keyed(pojos(), (s) => s.keyBy((p) => p.f0).min('f1')),
      sums.map((_, i) => ({ f0: i % 3, f1: i % 3 })),
    );
    assert.deepEqual(
      await keyed(pojos(), (s) => s.keyBy((p) => p.f0).max('f1')),
      sums.map((_, i) => ({ f0: i % 3, f1: i })),
    );
  });

  const maxByFirst = [
    [0, 0, 0],
    [0, 1, 1],
    [0, 2, 2],
    [0, 2, 2],
    [0, 2, 2],
    [0, 2, 2],
    [0, 2, 2],
    [0, 2, 2],
    [0, 2, 2],
  ];
  const maxByLast = [
    [0, 0, 0],
    [0, 1, 1],
    [0, 2, 2],
    [0, 2, 2],
    [0, 2, 2],
    [0, 2, 5],
    [0, 2, 5],
    [0, 2, 5],
    [0, 2, 8],
  ];
  const minByFirst = Array.from({ length: 9 }, () => [0, 0, 0]);
  const minByLast = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 3],
    [0, 0, 3],
    [0, 0, 3],
    [0, 0, 6],
    [0, 0, 6],
    [0, 0, 6],
  ];

  it('minMaxByTest: minBy / maxBy with first = true and false', async () => {
    const k = (s: DataStream<Tuple3>) => s.keyBy((t) => t[0]);
    assert.deepEqual(await keyed(tuples3(), (s) => k(s).maxBy(1, true)), maxByFirst);
    assert.deepEqual(await keyed(tuples3(), (s) => k(s).maxBy(1, false)), maxByLast);
    assert.deepEqual(await keyed(tuples3(), (s) => k(s).minBy(1, false)), minByLast);
    assert.deepEqual(await keyed(tuples3(), (s) => k(s).minBy(1, true)), minByFirst);
    assert.deepEqual(await keyed(tuples3(), (s) => k(s).maxBy(1)), maxByFirst, 'first is the default');
  });

  it('pojoMinMaxByTest: the same by field name and by selector', async () => {
    const asPojo = (rows: number[][]) => rows.map(([f0, f1, f2]) => ({ f0, f1, f2 }));
    const k = (s: DataStream<Pojo3>) => s.keyBy((p) => p.f0);
    assert.deepEqual(await keyed(pojos3(), (s) => k(s).maxBy('f1', true)), asPojo(maxByFirst));
    assert.deepEqual(await keyed(pojos3(), (s) => k(s).maxBy('f1', false)), asPojo(maxByLast));
    assert.deepEqual(await keyed(pojos3(), (s) => k(s).minBy('f1', false)), asPojo(minByLast));
    assert.deepEqual(await keyed(pojos3(), (s) => k(s).minBy((p) => p.f1, true)), asPojo(minByFirst));
  });
});

describe('aggregations', () => {
  it('min and max keep the first record’s other fields; minBy takes the whole record', async () => {
    const rows = [
      { id: 'a', price: 5 },
      { id: 'b', price: 3 },
      { id: 'c', price: 3 },
      { id: 'd', price: 9 },
    ];
    const k = (s: DataStream<{ id: string; price: number }>) => s.keyBy(() => 'all');
    assert.deepEqual(
      (await keyed(rows, (s) => k(s).min('price'))).map((r) => `${r.id}${r.price}`),
      ['a5', 'a3', 'a3', 'a3'],
    );
    assert.deepEqual(
      (await keyed(rows, (s) => k(s).max('price'))).map((r) => `${r.id}${r.price}`),
      ['a5', 'a5', 'a5', 'a9'],
    );
    assert.deepEqual(
      (await keyed(rows, (s) => k(s).minBy('price'))).map((r) => r.id),
      ['a', 'b', 'b', 'b'],
    );
    assert.deepEqual(
      (await keyed(rows, (s) => k(s).minBy('price', false))).map((r) => r.id),
      ['a', 'b', 'c', 'c'],
    );
  });

  it('never mutates a record it already emitted, and keeps class instances', async () => {
    class Sale {
      constructor(
        readonly shop: string,
        readonly amount: number,
      ) {}
      label(): string {
        return `${this.shop}:${this.amount}`;
      }
    }
    const out = await keyed([new Sale('x', 1), new Sale('x', 2), new Sale('x', 4)], (s) =>
      s.keyBy((v) => v.shop).sum('amount'),
    );
    assert.deepEqual(
      out.map((s) => s.label()),
      ['x:1', 'x:3', 'x:7'],
    );
  });

  it('sums bigints and strings compare as strings', async () => {
    const out = await keyed(
      [
        { k: 1, n: 2n ** 60n, s: 'b' },
        { k: 1, n: 2n ** 60n, s: 'a' },
      ],
      (s) => s.keyBy((v) => v.k).sum('n'),
    );
    assert.deepEqual(
      out.map((v) => v.n),
      [2n ** 60n, 2n ** 61n],
    );
    const names = await keyed(
      [
        { k: 1, name: 'pear' },
        { k: 1, name: 'apple' },
      ],
      (s) => s.keyBy((v) => v.k).min('name'),
    );
    assert.deepEqual(
      names.map((v) => v.name),
      ['pear', 'apple'],
    );
  });

  it('on tumbling windows: sum, max, maxBy per key and window', async () => {
    type Reading = { sensor: string; t: number; v: number };
    const rows: [Reading, number][] = [
      [{ sensor: 'a', t: 100, v: 3 }, 100],
      [{ sensor: 'b', t: 200, v: 1 }, 200],
      [{ sensor: 'a', t: 300, v: 7 }, 300],
      [{ sensor: 'a', t: 400, v: 7 }, 400],
      [{ sensor: 'a', t: 1100, v: 2 }, 1100],
    ];
    const run = async (agg: (w: ReturnType<typeof windowOf>) => DataStream<Reading>) => {
      const h = await TestHarness.create((s: DataStream<Reading>) => agg(windowOf(s)));
      for (const [v, ts] of rows) h.processElement(v, ts);
      h.processWatermark(999);
      h.processWatermark(1999);
      const out = h.output().flatMap((e) => ('value' in e ? [[e.value, e.timestamp]] : []));
      await h.close();
      return out;
    };
    const windowOf = (s: DataStream<Reading>) =>
      s.keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(1000));
    assert.deepEqual(await run((w) => w.sum('v')), [
      [{ sensor: 'a', t: 100, v: 17 }, 999],
      [{ sensor: 'b', t: 200, v: 1 }, 999],
      [{ sensor: 'a', t: 1100, v: 2 }, 1999],
    ]);
    assert.deepEqual(await run((w) => w.max('v')), [
      [{ sensor: 'a', t: 100, v: 7 }, 999],
      [{ sensor: 'b', t: 200, v: 1 }, 999],
      [{ sensor: 'a', t: 1100, v: 2 }, 1999],
    ]);
    assert.deepEqual(await run((w) => w.maxBy('v', false)), [
      [{ sensor: 'a', t: 400, v: 7 }, 999],
      [{ sensor: 'b', t: 200, v: 1 }, 999],
      [{ sensor: 'a', t: 1100, v: 2 }, 1999],
    ]);
  });

  it('on all-windows: min and minBy over the whole stream', async () => {
    const h = await TestHarness.create(
      (s: DataStream<[string, number]>) => s.windowAll(TumblingEventTimeWindows.of(10)).min(1),
      { parallelism: 2 },
    );
    h.processElement(['x', 5], 1);
    h.processElement(['y', 2], 2);
    h.processElement(['z', 4], 12);
    h.processWatermark(20);
    assert.deepEqual(h.records(), [
      ['x', 2],
      ['z', 4],
    ]);
    await h.close();
    const h2 = await TestHarness.create((s: DataStream<[string, number]>) =>
      s.windowAll(TumblingEventTimeWindows.of(10)).minBy((t) => t[1]),
    );
    h2.processElement(['x', 5], 1);
    h2.processElement(['y', 2], 2);
    h2.processWatermark(20);
    assert.deepEqual(h2.records(), [['y', 2]]);
    await h2.close();
  });

  it('a field that is not numeric at run time fails naming the field and the record', async () => {
    const h = await TestHarness.create((s: DataStream<{ k: string; n: number }>) =>
      s.keyBy((v) => v.k).sum('n'),
    );
    h.processElement({ k: 'a', n: 1 }, 0);
    assert.throws(
      () => h.processElement({ k: 'a', n: '2' as unknown as number }, 0),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        /Keyed Aggregation/.test(e.message) &&
        /sum\("n"\): field "n" must be a number or bigint, got string "2"/.test(e.message),
    );
  });

  it('rejects a function where a field is written back, and a bad field argument', () => {
    assert.throws(() => comparableAggregator<{ n: number }>('min', (v) => v.n), ConfigurationError);
    assert.throws(() => sumAggregator(''), ConfigurationError);
    assert.throws(() => sumAggregator(-1), ConfigurationError);
  });

  it('accepts only numeric fields for sum, comparable ones for min/max (checked by the compiler)', () => {
    type Row = { id: string; n: number; big: bigint; flag: boolean; opt?: number };
    const numeric: NumericField<Row>[] = ['n', 'big'];
    const comparable: ComparableField<Row>[] = ['n', 'big', 'id'];
    // @ts-expect-error a string field cannot be summed
    const notNumeric: NumericField<Row> = 'id';
    // @ts-expect-error an optional field may be absent
    const optional: NumericField<Row> = 'opt';
    // @ts-expect-error booleans do not compare
    const notComparable: ComparableField<Row> = 'flag';
    const tupleIndex: NumericField<[string, number]> = 1;
    // @ts-expect-error element 0 of the tuple is a string
    const tupleString: NumericField<[string, number]> = 0;
    assert.deepEqual(
      [numeric, comparable, notNumeric, optional, notComparable, tupleIndex, tupleString],
      [['n', 'big'], ['n', 'big', 'id'], 'id', 'opt', 'flag', 1, 0],
    );
  });
});
