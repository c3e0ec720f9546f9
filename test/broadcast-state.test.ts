// Ported from Flink's BroadcastStateITCase: keyed and non-keyed broadcast connections run as whole jobs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MapStateDescriptor,
  StreamExecutionEnvironment,
  WatermarkStrategy,
  type BroadcastProcessFunction,
  type DataStream,
  type KeyedBroadcastProcessFunction,
} from '../src/index.ts';

/** Flink's AbstractTestBase runs its jobs at parallelism 4. */
const PARALLELISM = 4;

const expected = new Map<number, string>([0, 1, 2, 3, 4, 5].map((i) => [i, `test:${i}`]));

const utterDescriptor = new MapStateDescriptor<number, string>('broadcast-state');

/** Flink's CustomWmEmitter: a punctuated watermark at every element's timestamp. */
function withWatermarks<T>(stream: DataStream<T>, timestamp: (v: T) => number): DataStream<T> {
  return stream.assignTimestampsAndWatermarks(WatermarkStrategy.forPunctuated<T>((_v, ts) => ts, timestamp));
}

function sources(env: StreamExecutionEnvironment) {
  // Flink's env.fromSequence(0, 5), timestamped by value.
  const srcOne = withWatermarks(env.fromElements(0, 1, 2, 3, 4, 5), (v) => v);
  const srcTwo = withWatermarks(env.fromCollection(expected.values()), (v) => Number(v.split(':')[1]));
  return { srcOne, srcTwo };
}

/**
 * Flink's TestKeyedBroadcastProcessFunction: the broadcast side fills the broadcast state; every keyed element
 * registers an event-time timer far ahead (100000, 100001, ... per subtask), so the timers fire once both inputs
 * have ended, and each checks its key and that the broadcast state holds every broadcast element.
 */
interface TimerCheck extends KeyedBroadcastProcessFunction<number, number, string, string> {
  nextTimerTimestamp: number;
  timerToExpectedKey: Map<number, number>;
  keysFired: number[];
}

describe('BroadcastStateITCase (Flink)', () => {
  it('testKeyedWithBroadcastTranslation', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: PARALLELISM });
    const { srcOne, srcTwo } = sources(env);
    const firedKeys: number[] = [];
    const fn: TimerCheck = {
      nextTimerTimestamp: 0,
      timerToExpectedKey: new Map(),
      keysFired: firedKeys,
      open() {
        // Fields set in open are per subtask, as the fields of Flink's function instance.
        this.nextTimerTimestamp = 100_000;
        this.timerToExpectedKey = new Map();
      },
      processElement(value, ctx) {
        const currentTime = this.nextTimerTimestamp++;
        ctx.timerService().registerEventTimeTimer(currentTime);
        this.timerToExpectedKey.set(currentTime, value);
      },
      processBroadcastElement(value, ctx) {
        ctx.getBroadcastState(utterDescriptor).put(Number(value.split(':')[1]), value);
      },
      onTimer(timestamp, ctx, out) {
        assert.equal(ctx.getCurrentKey(), this.timerToExpectedKey.get(timestamp));
        assert.deepEqual(new Map(ctx.getBroadcastState(utterDescriptor).immutableEntries()), expected);
        this.keysFired.push(ctx.getCurrentKey());
        out.collect(String(timestamp));
      },
    };
    const output = srcOne
      .keyBy((v) => v)
      .connect(srcTwo.broadcast(utterDescriptor))
      .process(fn);
    const results = await output.executeAndCollect();
    // Flink's TestSink(expected.size()): every timer fired, once.
    assert.equal(results.length, expected.size);
    assert.ok(
      results.every((t) => Number(t) >= 100_000 && Number(t) < 100_000 + expected.size),
      `timer timestamps ${results.join(', ')}`,
    );
    assert.deepEqual(
      firedKeys.sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5],
    );
  });

  it('testBroadcastTranslation', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: PARALLELISM });
    const { srcOne, srcTwo } = sources(env);
    const stateSizes: number[] = [];
    const fn: BroadcastProcessFunction<number, string, string> & { sizes: number[] } = {
      sizes: stateSizes,
      processElement() {},
      processBroadcastElement(value, ctx) {
        const state = ctx.getBroadcastState(utterDescriptor);
        state.put(Number(value.split(':')[1]), value);
        this.sizes.push(state.size());
      },
    };
    const results = await srcOne.connect(srcTwo.broadcast(utterDescriptor)).process(fn).executeAndCollect();
    // Flink's TestSink(0): the function emits nothing.
    assert.deepEqual(results, []);
    // Every one of the 4 subtasks received all 6 broadcast elements, each growing its own copy of the state.
    assert.deepEqual(
      stateSizes.sort((a, b) => a - b),
      [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6],
    );
  });
});
