// Ported from Flink's IntervalJoinOperatorTest (both input orders), plus the API's checks and a full job.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../data-stream.ts';
import { ConfigurationError, JobExecutionError } from '../../core/errors.ts';
import { OutputTag } from '../../core/output-tag.ts';
import { StreamExecutionEnvironment } from '../stream-execution-environment.ts';
import { IntervalJoinOperator } from '../../operators/interval-join-operator.ts';
import { TestHarness, type TwoInputTestHarness } from '../../testing/index.ts';
import type { HarnessElement } from '../../testing/harness-sink-operator.ts';
import { WatermarkStrategy } from '../../time/watermark-strategy.ts';
import type { ProcessJoinFunction } from '../../core/join-functions.ts';

/** Flink's TestElem: every element has the key "key". */
interface TestElem {
  key: string;
  ts: number;
  source: 'lhs' | 'rhs';
}
const lhs = (ts: number): TestElem => ({ key: 'key', ts, source: 'lhs' });
const rhs = (ts: number): TestElem => ({ key: 'key', ts, source: 'rhs' });

type Pair = [TestElem, TestElem];
const passthrough: ProcessJoinFunction<TestElem, TestElem, Pair> = {
  processElement: (left, right, _ctx, out) => out.collect([left, right]),
};

interface Bounds {
  lower: number;
  lowerInclusive: boolean;
  upper: number;
  upperInclusive: boolean;
  leftLate?: OutputTag<TestElem>;
  rightLate?: OutputTag<TestElem>;
}

class JoinTest {
  operator: IntervalJoinOperator<string, TestElem, TestElem, Pair> | undefined = undefined;
  harness!: TwoInputTestHarness<TestElem, TestElem, Pair>;

  static async create(bounds: Bounds, fn = passthrough): Promise<JoinTest> {
    const test = new JoinTest();
    test.harness = await TestHarness.createTwoInput((a: DataStream<TestElem>, b: DataStream<TestElem>) =>
      test.build(a, b, bounds, fn),
    );
    return test;
  }

  build(a: DataStream<TestElem>, b: DataStream<TestElem>, bounds: Bounds, fn = passthrough) {
    let joined = a
      .keyBy((e) => e.key)
      .intervalJoin(b.keyBy((e) => e.key))
      .between(bounds.lower, bounds.upper);
    if (!bounds.lowerInclusive) joined = joined.lowerBoundExclusive();
    if (!bounds.upperInclusive) joined = joined.upperBoundExclusive();
    if (bounds.leftLate) joined = joined.sideOutputLeftLateData(bounds.leftLate);
    if (bounds.rightLate) joined = joined.sideOutputRightLateData(bounds.rightLate);
    const out = joined.process(fn);
    // Keep the operator instance (parallelism 1) to read its buffers, as Flink's test does.
    const factory = out.transformation.operatorFactory!;
    out.transformation.operatorFactory = () => {
      this.operator = factory() as IntervalJoinOperator<string, TestElem, TestElem, Pair>;
      return this.operator;
    };
    return out;
  }

  element1(ts: number): this {
    this.harness.processElement1(lhs(ts), ts);
    return this;
  }
  element2(ts: number): this {
    this.harness.processElement2(rhs(ts), ts);
    return this;
  }
  watermark1(ts: number): this {
    this.harness.processWatermark1(ts);
    return this;
  }
  watermark2(ts: number): this {
    this.harness.processWatermark2(ts);
    return this;
  }

  elementsAndWatermarks(from: number, to: number, lhsFaster: boolean): this {
    const left = () => {
      for (let i = from; i <= to; i++) this.element1(i).watermark1(i);
    };
    const right = () => {
      for (let i = from; i <= to; i++) this.element2(i).watermark2(i);
    };
    if (lhsFaster) {
      left();
      right();
    } else {
      right();
      left();
    }
    return this;
  }

  /** Flink's streamRecordOf(l, r): the pair (lhs:l, rhs:r) at timestamp max(l, r); compared as a set. */
  expect(...pairs: [number, number][]): this {
    const actual = records(this.harness.output()).map(
      ([[l, r], ts]) => `${l.source}:${l.ts},${r.source}:${r.ts}@${ts}`,
    );
    const expected = pairs.map(([l, r]) => `lhs:${l},rhs:${r}@${Math.max(l, r)}`);
    assert.deepEqual([...actual].sort(), [...expected].sort());
    return this;
  }

  /** Flink's TestHarnessUtil.assertNoLateRecords: no record behind a watermark emitted before it. */
  noLateRecords(): this {
    let watermark = -Infinity;
    for (const e of this.harness.output()) {
      if ('watermark' in e) watermark = e.watermark;
      else assert.ok(e.timestamp! > watermark, `record at ${e.timestamp} behind watermark ${watermark}`);
    }
    return this;
  }

  leftBuffer(...timestamps: number[]): this {
    assert.deepEqual(this.operator!.bufferedTimestamps('left', 'key'), timestamps);
    return this;
  }
  rightBuffer(...timestamps: number[]): this {
    assert.deepEqual(this.operator!.bufferedTimestamps('right', 'key'), timestamps);
    return this;
  }

  async close(): Promise<void> {
    await this.harness.close();
  }
}

function records<T>(output: HarnessElement<T>[]): [T, number | undefined][] {
  return output.flatMap((e) => ('value' in e ? [[e.value, e.timestamp] as [T, number | undefined]] : []));
}

const b = (lower: number, lowerInclusive: boolean, upper: number, upperInclusive: boolean): Bounds => ({
  lower,
  lowerInclusive,
  upper,
  upperInclusive,
});

describe('IntervalJoinOperatorTest (Flink)', () => {
  for (const lhsFaster of [true, false]) {
    describe(`lhs faster than rhs: ${lhsFaster}`, () => {
      it('testImplementationMirrorsCorrectly', async () => {
        const t1 = await JoinTest.create(b(1, true, 3, false));
        t1.elementsAndWatermarks(1, 4, lhsFaster)
          .expect([1, 2], [1, 3], [2, 3], [2, 4], [3, 4])
          .noLateRecords();
        await t1.close();
        const t2 = await JoinTest.create(b(-3, false, -1, true));
        t2.elementsAndWatermarks(1, 4, lhsFaster)
          .expect([2, 1], [3, 1], [3, 2], [4, 2], [4, 3])
          .noLateRecords();
        await t2.close();
      });

      const cases: [string, Bounds, [number, number][]][] = [
        [
          'testNegativeInclusiveAndNegativeInclusive',
          b(-2, true, -1, true),
          [
            [2, 1],
            [3, 1],
            [3, 2],
            [4, 2],
            [4, 3],
          ],
        ],
        [
          'testNegativeInclusiveAndPositiveInclusive',
          b(-1, true, 1, true),
          [
            [1, 1],
            [1, 2],
            [2, 1],
            [2, 2],
            [2, 3],
            [3, 2],
            [3, 3],
            [3, 4],
            [4, 3],
            [4, 4],
          ],
        ],
        [
          'testPositiveInclusiveAndPositiveInclusive',
          b(1, true, 2, true),
          [
            [1, 2],
            [1, 3],
            [2, 3],
            [2, 4],
            [3, 4],
          ],
        ],
        [
          'testNegativeExclusiveAndNegativeExlusive',
          b(-3, false, -1, false),
          [
            [3, 1],
            [4, 2],
          ],
        ],
        [
          'testNegativeExclusiveAndPositiveExlusive',
          b(-1, false, 1, false),
          [
            [1, 1],
            [2, 2],
            [3, 3],
            [4, 4],
          ],
        ],
        [
          'testPositiveExclusiveAndPositiveExlusive',
          b(1, false, 3, false),
          [
            [1, 3],
            [2, 4],
          ],
        ],
      ];
      for (const [name, bounds, expected] of cases) {
        it(name, async () => {
          const t = await JoinTest.create(bounds);
          t.elementsAndWatermarks(1, 4, lhsFaster)
            .expect(...expected)
            .noLateRecords();
          await t.close();
        });
      }

      const cleanups: [string, Bounds, number[][]][] = [
        [
          'testStateCleanupNegativeInclusiveNegativeInclusive',
          b(-1, true, 0, true),
          [[2, 3, 4, 5], [1, 2, 3, 4, 5], [5], [4, 5]],
        ],
        [
          'testStateCleanupNegativePositiveNegativeExlusive',
          b(-2, false, 1, false),
          [[2, 3, 4, 5], [1, 2, 3, 4, 5], [5], [4, 5]],
        ],
        [
          'testStateCleanupPositiveInclusivePositiveInclusive',
          b(0, true, 1, true),
          [[1, 2, 3, 4, 5], [2, 3, 4, 5], [4, 5], [5]],
        ],
        [
          'testStateCleanupPositiveExlusivePositiveExclusive',
          b(-1, false, 2, false),
          [[1, 2, 3, 4, 5], [2, 3, 4, 5], [4, 5], [5]],
        ],
      ];
      for (const [name, bounds, [left1, right1, left4, right4]] of cleanups) {
        it(name, async () => {
          const t = await JoinTest.create(bounds);
          for (let i = 1; i <= 5; i++) t.element1(i);
          for (let i = 1; i <= 5; i++) t.element2(i);
          t.watermark1(1)
            .watermark2(1)
            .leftBuffer(...left1!)
            .rightBuffer(...right1!);
          t.watermark1(4)
            .watermark2(4)
            .leftBuffer(...left4!)
            .rightBuffer(...right4!);
          t.watermark1(6).watermark2(6).leftBuffer().rightBuffer();
          assert.equal(t.harness.numKeyedStateEntries(), 0, 'no keyed state left');
          assert.equal(t.harness.numEventTimeTimers(), 0, 'no cleanup timer left');
          await t.close();
        });
      }

      it('testDiscardsLateData', async () => {
        const t = await JoinTest.create(b(-1, true, 1, true));
        t.element1(1).element2(1).element1(2).element2(2).element1(3).element2(3);
        t.watermark1(3).watermark2(3);
        t.element1(1); // late: not joined again
        t.element1(4).element2(4).element1(5).element2(5);
        t.expect(
          [1, 1],
          [1, 2],
          [2, 1],
          [2, 2],
          [2, 3],
          [3, 2],
          [3, 3],
          [3, 4],
          [4, 3],
          [4, 4],
          [4, 5],
          [5, 4],
          [5, 5],
        ).noLateRecords();
        await t.close();
      });

      it('testLateData', async () => {
        const leftLate = new OutputTag<TestElem>('left_late');
        const rightLate = new OutputTag<TestElem>('right_late');
        const t = await JoinTest.create({ ...b(-1, true, 1, true), leftLate, rightLate });
        t.element1(3).element2(3).watermark1(3).watermark2(3);
        t.element1(4).element2(4);
        t.element1(1); // late left
        t.element2(2); // late right
        t.element1(5).element2(5);
        t.expect([3, 3], [3, 4], [4, 3], [4, 4], [4, 5], [5, 4], [5, 5]);
        assert.deepEqual(t.harness.sideOutput(leftLate), [{ value: lhs(1), timestamp: 1 }]);
        assert.deepEqual(t.harness.sideOutput(rightLate), [{ value: rhs(2), timestamp: 2 }]);
        await t.close();
      });
    });
  }

  it('testRestoreFromSnapshot', async () => {
    const bounds = b(-1, true, 1, true);
    const first = await JoinTest.create(bounds);
    first.element1(1).watermark1(1).element2(1).watermark2(1);
    first.element1(2).watermark1(2).element2(2).watermark2(2);
    first.element1(3).watermark1(3).element2(3).watermark2(3);
    const snapshot = first.harness.snapshot();
    first.expect([1, 1], [1, 2], [2, 1], [2, 2], [2, 3], [3, 2], [3, 3]).noLateRecords();
    await first.close();

    const second = new JoinTest();
    second.harness = await TestHarness.restoreTwoInput(
      (a: DataStream<TestElem>, c: DataStream<TestElem>) => second.build(a, c, bounds),
      snapshot,
    );
    second.element1(4).watermark1(4).element2(4).watermark2(4);
    second.expect([3, 4], [4, 3], [4, 4]).noLateRecords();
    await second.close();
  });

  it('testContextCorrectLeftTimestamp / RightTimestamp / testReturnsCorrectTimestamp', async () => {
    const seen: string[] = [];
    const t = await JoinTest.create(b(-1, true, 1, true), {
      processElement(left, right, ctx, out) {
        assert.equal(ctx.getLeftTimestamp(), left.ts);
        assert.equal(ctx.getRightTimestamp(), right.ts);
        assert.equal(ctx.getTimestamp(), Math.max(left.ts, right.ts));
        seen.push(`${left.ts}-${right.ts}`);
        out.collect([left, right]);
      },
    });
    t.elementsAndWatermarks(1, 4, true);
    assert.equal(seen.length, 10);
    await t.close();
  });

  it('testFailsWithNoTimestampsLeft / Right', async () => {
    for (const side of [1, 2]) {
      const t = await JoinTest.create(b(0, true, 0, true));
      assert.throws(
        () => (side === 1 ? t.harness.processElement1(lhs(0)) : t.harness.processElement2(rhs(0))),
        (e: unknown) =>
          e instanceof JobExecutionError &&
          /IntervalJoin/.test(e.message) &&
          new RegExp(`the ${side === 1 ? 'left' : 'right'} element has no timestamp`).test(e.message),
      );
      await t.close();
    }
  });
});

describe('interval join', () => {
  it('rejects reversed or infinite bounds and processing time, as Flink', () => {
    const env = StreamExecutionEnvironment.create();
    const a = env.fromElements(lhs(1)).keyBy((e) => e.key);
    const c = env.fromElements(rhs(1)).keyBy((e) => e.key);
    assert.throws(() => a.intervalJoin(c).between(2, 1), /lowerBound <= upperBound/);
    assert.throws(() => a.intervalJoin(c).between(0, Infinity), ConfigurationError);
    assert.throws(() => a.intervalJoin(c).inProcessingTime().between(0, 1), /only supported in event time/);
  });

  it('emits side outputs from the join function at the pair timestamp, and keeps keys apart', async () => {
    const far = new OutputTag<string>('far');
    const h = await TestHarness.createTwoInput((a: DataStream<TestElem>, c: DataStream<TestElem>) =>
      a
        .keyBy((e) => e.key)
        .intervalJoin(c.keyBy((e) => e.key))
        .between(-5, 5)
        .process((l, r, ctx, out: { collect(v: string): void }) => {
          if (Math.abs(l.ts - r.ts) > 2) ctx.output(far, `${l.key}:${l.ts}-${r.ts}`);
          else out.collect(`${l.key}:${l.ts}-${r.ts}`);
        }),
    );
    h.processElement1({ key: 'a', ts: 10, source: 'lhs' }, 10);
    h.processElement1({ key: 'b', ts: 10, source: 'lhs' }, 10);
    h.processElement2({ key: 'a', ts: 11, source: 'rhs' }, 11);
    h.processElement2({ key: 'a', ts: 14, source: 'rhs' }, 14);
    assert.deepEqual(records(h.output()), [['a:10-11', 11]]);
    assert.deepEqual(h.sideOutput(far), [{ value: 'a:10-14', timestamp: 14 }]);
    await h.close();
  });

  it('runs as a job at parallelism 2: every pair once, results carry the later timestamp', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    type Ev = { user: string; t: number };
    const strategy = WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.t);
    const clicks = env
      .fromElements<Ev>({ user: 'u1', t: 100 }, { user: 'u2', t: 150 }, { user: 'u1', t: 400 })
      .assignTimestampsAndWatermarks(strategy);
    const views = env
      .fromElements<Ev>(
        { user: 'u1', t: 90 },
        { user: 'u2', t: 60 },
        { user: 'u1', t: 380 },
        { user: 'u3', t: 1 },
      )
      .assignTimestampsAndWatermarks(strategy);
    const out = await clicks
      .keyBy((c) => c.user)
      .intervalJoin(views.keyBy((v) => v.user))
      .between(-50, 0)
      .process((c, v, ctx, o: { collect(s: string): void }) =>
        o.collect(`${c.user} ${v.t}->${c.t} @${ctx.getTimestamp()}`),
      )
      .executeAndCollect();
    assert.deepEqual(out.sort(), ['u1 380->400 @400', 'u1 90->100 @100']);
  });
});

describe('IntervalJoinOperator cleanup with bounds of one sign', () => {
  // Left buckets go at t + upper when upper > 0 (else at t); right buckets at t - lower when lower < 0 (else at t).
  const cases: [string, Bounds, number[][]][] = [
    ['positive bounds [1, 2]', b(1, true, 2, true), [[1, 2, 3, 4, 5], [2, 3, 4, 5], [3, 4, 5], [5], [5], []]],
    [
      'negative bounds [-2, -1]',
      b(-2, true, -1, true),
      [[2, 3, 4, 5], [1, 2, 3, 4, 5], [5], [3, 4, 5], [], [5]],
    ],
  ];
  for (const [name, bounds, [left1, right1, left4, right4, left6, right6]] of cases) {
    it(name, async () => {
      const t = await JoinTest.create(bounds);
      for (let i = 1; i <= 5; i++) t.element1(i);
      for (let i = 1; i <= 5; i++) t.element2(i);
      t.watermark1(1)
        .watermark2(1)
        .leftBuffer(...left1!)
        .rightBuffer(...right1!);
      t.watermark1(4)
        .watermark2(4)
        .leftBuffer(...left4!)
        .rightBuffer(...right4!);
      t.watermark1(6)
        .watermark2(6)
        .leftBuffer(...left6!)
        .rightBuffer(...right6!);
      t.watermark1(7).watermark2(7).leftBuffer().rightBuffer();
      assert.equal(t.harness.numKeyedStateEntries(), 0, 'no keyed state left');
      assert.equal(t.harness.numEventTimeTimers(), 0, 'no cleanup timer left');
      await t.close();
    });
  }

  it('an element at the watermark is not late; elements of one timestamp share a bucket', async () => {
    const t = await JoinTest.create(b(0, true, 0, true));
    t.watermark1(5).watermark2(5);
    t.element1(5).element1(5).element2(5);
    t.expect([5, 5], [5, 5]);
    t.leftBuffer(5).rightBuffer(5);
    await t.close();
  });

  it('a late element without a late-data output is dropped quietly', async () => {
    const t = await JoinTest.create(b(0, true, 0, true));
    t.watermark1(5).watermark2(5);
    t.element1(4).element2(4);
    t.expect();
    assert.deepEqual(t.harness.output(), [{ watermark: 5 }]);
    await t.close();
  });

  it('reads the buffers of a key sorted, and leaves the current key as it was', async () => {
    const t = await JoinTest.create(b(-10, true, 10, true));
    t.leftBuffer();
    t.element1(7).element1(3).element1(5);
    t.leftBuffer(3, 5, 7);
    t.element2(4);
    t.expect([7, 4], [3, 4], [5, 4]);
    await t.close();
  });
});
