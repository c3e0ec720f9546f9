// Ported from Flink's IntervalJoinITCase: interval joins run as whole jobs, from sources to a collecting sink.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigurationError,
  StreamExecutionEnvironment,
  WatermarkStrategy,
  type Collector,
  type DataStream,
  type KeyedStream,
} from '../src/index.ts';

/** Flink's Tuple2<String, Integer>; the integer is also the event timestamp. */
type Tuple2 = [string, number];

/** Flink's Tuple2.toString: `(key,0)`. */
const show = (t: Tuple2): string => `(${t[0]},${t[1]})`;

/** Flink's CombineToStringJoinFunction. */
const combineToString = (left: Tuple2, right: Tuple2, _ctx: unknown, out: Collector<string>): void =>
  out.collect(`${show(left)}:${show(right)}`);

/** Flink's AscendingTuple2TimestampExtractor: timestamp = f1, watermarks for ascending timestamps. */
const ascending = WatermarkStrategy.forMonotonousTimestamps<Tuple2>().withTimestampAssigner((t) => t[1]);

function keyedAscending(env: StreamExecutionEnvironment, ...elements: Tuple2[]): KeyedStream<Tuple2, string> {
  return env
    .fromElements(...elements)
    .assignTimestampsAndWatermarks(ascending)
    .keyBy((t) => t[0]);
}

/** Flink's expectInAnyOrder: the sink's records, sorted, equal the expected ones, sorted. */
async function expectInAnyOrder(job: DataStream<string>, ...expected: string[]): Promise<void> {
  const results = await job.executeAndCollect();
  assert.deepEqual([...results].sort(), [...expected].sort());
}

const env1 = (): StreamExecutionEnvironment => StreamExecutionEnvironment.create({ parallelism: 1 });

const zeroToTwoElements: Tuple2[] = [
  ['key', 0],
  ['key', 1],
  ['key', 2],
];
const zeroToTwo = (env: StreamExecutionEnvironment): KeyedStream<Tuple2, string> =>
  keyedAscending(env, ...zeroToTwoElements);

/** The job most of Flink's cases run: a keyed ascending stream interval-joined with a copy of itself. */
interface SelfJoin {
  readonly elements: readonly Tuple2[];
  readonly between: readonly [lower: number, upper: number];
  /** Both bounds exclusive (default: both inclusive, as in Flink). */
  readonly exclusive?: boolean;
  readonly parallelism?: number;
}

/** Runs a {@link SelfJoin} combining pairs with Flink's CombineToStringJoinFunction; expects `expected` in any order. */
async function expectSelfJoin(job: SelfJoin, ...expected: string[]): Promise<void> {
  const env = StreamExecutionEnvironment.create({ parallelism: job.parallelism ?? 1 });
  let join = keyedAscending(env, ...job.elements)
    .intervalJoin(keyedAscending(env, ...job.elements))
    .between(job.between[0], job.between[1]);
  if (job.exclusive === true) join = join.upperBoundExclusive().lowerBoundExclusive();
  await expectInAnyOrder(join.process(combineToString), ...expected);
}

/** Two keys, alternating, timestamps 0 to 5. */
const twoKeys: Tuple2[] = [
  ['key1', 0],
  ['key2', 1],
  ['key1', 2],
  ['key2', 3],
  ['key1', 4],
  ['key2', 5],
];

describe('IntervalJoinITCase (Flink)', () => {
  it('testCanJoinOverSameKey', async () => {
    await expectSelfJoin(
      { elements: [0, 1, 2, 3, 4, 5].map((i): Tuple2 => ['key', i]), between: [0, 0] },
      '(key,0):(key,0)',
      '(key,1):(key,1)',
      '(key,2):(key,2)',
      '(key,3):(key,3)',
      '(key,4):(key,4)',
      '(key,5):(key,5)',
    );
  });

  it('testJoinsCorrectlyWithMultipleKeys', async () => {
    // Unkeyed, the bounds [0, 1] would also pair (1, 2), (2, 3), ...: that they do not is what is tested.
    await expectSelfJoin(
      { elements: twoKeys, between: [0, 1] },
      '(key1,0):(key1,0)',
      '(key2,1):(key2,1)',
      '(key1,2):(key1,2)',
      '(key2,3):(key2,3)',
      '(key1,4):(key1,4)',
      '(key2,5):(key2,5)',
    );
  });

  it('testBoundedUnorderedStreamsStillJoinCorrectly', async () => {
    const env = env1();
    // Flink's sources emit their elements out of order with collectWithTimestamp(t, t), and the watermark 5 after
    // the fifth element: here a punctuated watermark carried by that element.
    const unordered = (order: number[], watermarkAfter: number) =>
      env
        .fromElements(...order.map((i): Tuple2 => ['key', i]))
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.forPunctuated<Tuple2>(
            (t) => (t[1] === watermarkAfter ? 5 : undefined),
            (t) => t[1],
          ),
        )
        .keyBy((t) => t[0]);
    const joined = unordered([5, 1, 4, 3, 2, 9, 8, 7, 6], 2)
      .intervalJoin(unordered([2, 1, 3, 4, 5, 8, 7, 9, 6], 5))
      .between(-1, 1)
      .process(combineToString);
    await expectInAnyOrder(
      joined,
      '(key,1):(key,1)',
      '(key,1):(key,2)',

      '(key,2):(key,1)',
      '(key,2):(key,2)',
      '(key,2):(key,3)',

      '(key,3):(key,2)',
      '(key,3):(key,3)',
      '(key,3):(key,4)',

      '(key,4):(key,3)',
      '(key,4):(key,4)',
      '(key,4):(key,5)',

      '(key,5):(key,4)',
      '(key,5):(key,5)',
      '(key,5):(key,6)',

      '(key,6):(key,5)',
      '(key,6):(key,6)',
      '(key,6):(key,7)',

      '(key,7):(key,6)',
      '(key,7):(key,7)',
      '(key,7):(key,8)',

      '(key,8):(key,7)',
      '(key,8):(key,8)',
      '(key,8):(key,9)',

      '(key,9):(key,8)',
      '(key,9):(key,9)',
    );
  });

  it('testFailsWithoutUpperBound / testFailsWithoutLowerBound', () => {
    const env = env1();
    const one = () => env.fromElements<Tuple2>(['1', 1]).keyBy((t) => t[0]);
    // Flink throws a NullPointerException; Weir names the bounds it got.
    assert.throws(
      () =>
        one()
          .intervalJoin(one())
          .between(0, null as unknown as number),
      (e: unknown) =>
        e instanceof ConfigurationError &&
        /needs finite bounds in milliseconds, got 0 and null/.test(e.message),
    );
    assert.throws(
      () =>
        one()
          .intervalJoin(one())
          .between(undefined as unknown as number, 1),
      (e: unknown) =>
        e instanceof ConfigurationError &&
        /needs finite bounds in milliseconds, got undefined and 1/.test(e.message),
    );
  });

  it('testBoundsCanBeExclusive', async () => {
    await expectSelfJoin(
      { elements: zeroToTwoElements, between: [0, 2], exclusive: true },
      '(key,0):(key,1)',
      '(key,1):(key,2)',
    );
  });

  for (const name of ['testBoundsCanBeInclusive', 'testBoundsAreInclusiveByDefault']) {
    it(name, async () => {
      await expectSelfJoin(
        { elements: zeroToTwoElements, between: [0, 2] },
        '(key,0):(key,0)',
        '(key,0):(key,1)',
        '(key,0):(key,2)',

        '(key,1):(key,1)',
        '(key,1):(key,2)',

        '(key,2):(key,2)',
      );
    });
  }

  it('testExecutionFailsInProcessingTime', () => {
    const env = env1();
    // Flink fails when the job is translated; Weir when the bounds are set, before any job exists.
    assert.throws(
      () => zeroToTwo(env).intervalJoin(zeroToTwo(env)).inProcessingTime().between(0, 0),
      (e: unknown) => e instanceof ConfigurationError && /only supported in event time/.test(e.message),
    );
  });

  it('the same joins at parallelism 3 and 4 give the same pairs', async () => {
    for (const parallelism of [3, 4]) {
      await expectSelfJoin(
        { elements: twoKeys, between: [-2, 0], parallelism },
        '(key1,0):(key1,0)',
        '(key1,2):(key1,0)',
        '(key1,2):(key1,2)',
        '(key1,4):(key1,2)',
        '(key1,4):(key1,4)',
        '(key2,1):(key2,1)',
        '(key2,3):(key2,1)',
        '(key2,3):(key2,3)',
        '(key2,5):(key2,3)',
        '(key2,5):(key2,5)',
      );
    }
  });
});
