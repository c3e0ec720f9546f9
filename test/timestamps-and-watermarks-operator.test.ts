// Flink's TimestampsAndWatermarksOperatorTest, ported, plus the record-count rule and punctuated ordering.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CollectionSource,
  CollectSink,
  ManualClock,
  OutputTag,
  SlidingEventTimeWindows,
  StreamExecutionEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
  type DataStream,
  type TimeWindow,
  type WatermarkGenerator,
  type WatermarkOutput,
  type WindowAssigner,
} from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';

const AUTO_WATERMARK_INTERVAL = 50;

/** Flink's test generator: remembers the last timestamp (no max), emits it minus 1 periodically; may regress. */
class PeriodicWatermarkGenerator implements WatermarkGenerator<number> {
  private current = Number.NEGATIVE_INFINITY;
  onEvent(_event: number, timestamp: number): void {
    this.current = timestamp;
  }
  onPeriodicEmit(output: WatermarkOutput): void {
    output.emitWatermark(this.current === Number.NEGATIVE_INFINITY ? this.current : this.current - 1);
  }
}

/** Flink's punctuated test generator: an event [true, ts] carries the watermark ts. */
class PunctuatedWatermarkGenerator implements WatermarkGenerator<[boolean, number]> {
  onEvent(event: [boolean, number], _timestamp: number, output: WatermarkOutput): void {
    if (event[0]) output.emitWatermark(event[1]);
  }
  onPeriodicEmit(): void {}
}

const periodic = WatermarkStrategy.forGenerator(() => new PeriodicWatermarkGenerator()).withTimestampAssigner(
  (n) => n,
);
const punctuated = WatermarkStrategy.forGenerator(
  () => new PunctuatedWatermarkGenerator(),
).withTimestampAssigner((e) => e[1]);

/** Flink's createTestHarness: the operator alone, clock-driven emission every 50 ms. */
function harness<T>(strategy: WatermarkStrategy<T>) {
  return TestHarness.create((input: DataStream<T>) => input.assignTimestampsAndWatermarks(strategy), {
    autoWatermarkInterval: AUTO_WATERMARK_INTERVAL,
    watermarkEmission: 'processing-time',
  });
}

describe('TimestampsAndWatermarksOperator (Flink TimestampsAndWatermarksOperatorTest)', () => {
  it('inputWatermarksAreNotForwarded', async () => {
    const h = await harness(periodic);
    h.processWatermark(42);
    h.setProcessingTime(AUTO_WATERMARK_INTERVAL);
    assert.deepEqual(h.output(), []);
  });

  it('longMaxInputWatermarkIsForwarded', async () => {
    const h = await harness(periodic);
    h.processWatermark(Number.POSITIVE_INFINITY);
    assert.deepEqual(h.output(), [{ watermark: Number.POSITIVE_INFINITY }]);
  });

  it('periodicWatermarksEmitOnPeriodicEmitStreamMode', async () => {
    const h = await harness(periodic);
    h.processElement(2, 1);
    h.setProcessingTime(AUTO_WATERMARK_INTERVAL);
    assert.deepEqual(h.output(), [{ value: 2, timestamp: 2 }, { watermark: 1 }]);
    h.clearOutput();
    h.processElement(4, 1);
    h.setProcessingTime(AUTO_WATERMARK_INTERVAL * 2);
    assert.deepEqual(h.output(), [{ value: 4, timestamp: 4 }, { watermark: 3 }]);
  });

  it('periodicWatermarksOnlyEmitOnPeriodicEmitStreamMode', async () => {
    const h = await harness(periodic);
    h.processElement(2, 1);
    assert.deepEqual(h.output(), [{ value: 2, timestamp: 2 }]);
  });

  it('periodicWatermarksDoNotRegressStreamMode', async () => {
    const h = await harness(periodic);
    h.processElement(4, 1);
    h.setProcessingTime(AUTO_WATERMARK_INTERVAL);
    assert.deepEqual(h.output(), [{ value: 4, timestamp: 4 }, { watermark: 3 }]);
    h.clearOutput();
    h.processElement(2, 1);
    h.setProcessingTime(AUTO_WATERMARK_INTERVAL);
    assert.deepEqual(h.output(), [{ value: 2, timestamp: 2 }]);
  });

  it('punctuatedWatermarksEmitImmediatelyStreamMode: the watermark follows its record', async () => {
    const h = await harness(punctuated);
    h.processElement([true, 2], 1);
    assert.deepEqual(h.output(), [{ value: [true, 2], timestamp: 2 }, { watermark: 2 }]);
    h.clearOutput();
    h.processElement([true, 4], 1);
    assert.deepEqual(h.output(), [{ value: [true, 4], timestamp: 4 }, { watermark: 4 }]);
  });

  it('punctuatedWatermarksDoNotRegressStreamMode', async () => {
    const h = await harness(punctuated);
    h.processElement([true, 4], 1);
    assert.deepEqual(h.output(), [{ value: [true, 4], timestamp: 4 }, { watermark: 4 }]);
    h.clearOutput();
    h.processElement([true, 2], 1);
    assert.deepEqual(h.output(), [{ value: [true, 2], timestamp: 2 }]);
  });

  it('testNegativeTimestamps: every timestamp is forwarded as assigned', async () => {
    const values = [Number.MIN_SAFE_INTEGER, -1, 0, 1, 2, 3, Number.MAX_SAFE_INTEGER];
    const h = await harness(WatermarkStrategy.noWatermarks<number>().withTimestampAssigner((n) => n));
    for (const v of values) h.processElement(v);
    assert.deepEqual(
      h.output().map((e) => ('timestamp' in e ? e.timestamp : e)),
      values,
    );
  });
});

describe('deterministic watermark emission', () => {
  it('a periodic generator emits after every autoWatermarkRecords-th record, not on a silent clock', async () => {
    const h = await TestHarness.create(
      (input: DataStream<number>) => input.assignTimestampsAndWatermarks(periodic),
      { autoWatermarkRecords: 3, autoWatermarkInterval: AUTO_WATERMARK_INTERVAL },
    );
    for (const v of [10, 20, 30, 40, 50, 60, 70]) h.processElement(v);
    assert.deepEqual(h.output(), [
      { value: 10, timestamp: 10 },
      { value: 20, timestamp: 20 },
      { value: 30, timestamp: 30 },
      { watermark: 29 },
      { value: 40, timestamp: 40 },
      { value: 50, timestamp: 50 },
      { value: 60, timestamp: 60 },
      { watermark: 59 },
      { value: 70, timestamp: 70 },
    ]);
    h.clearOutput();
    // A harness input counts as unbounded: the clock drives emission too, so a quiet input still advances.
    h.setProcessingTime(AUTO_WATERMARK_INTERVAL);
    assert.deepEqual(h.output(), [{ watermark: 69 }]);
    h.clearOutput();
    // The end of input runs one last periodic emit (as Flink's finish()), then the final watermark passes.
    h.processElement(80);
    h.endInput();
    assert.deepEqual(h.output(), [
      { value: 80, timestamp: 80 },
      { watermark: 79 },
      { watermark: Number.POSITIVE_INFINITY },
    ]);
  });

  it('in a bounded job the clock is not consulted: 7 records, every 3rd, then the end', async () => {
    const clock = new ManualClock(0);
    const env = StreamExecutionEnvironment.create({ clock, autoWatermarkRecords: 3 });
    const seen: string[] = [];
    env
      .fromElements(10, 20, 30, 40, 50, 60, 70)
      // A slow machine: a second of processing time passes before each record reaches the generator.
      .map((v) => (clock.advanceTo(clock.now() + 1_000), v))
      .assignTimestampsAndWatermarks(periodic)
      .process({
        processElement(v, ctx) {
          seen.push(`${v}@wm${ctx.timerService().currentWatermark()}`);
        },
      })
      .sinkTo(new CollectSink());
    await env.execute('count-driven');
    assert.deepEqual(seen, [
      '10@wm-Infinity',
      '20@wm-Infinity',
      '30@wm-Infinity',
      '40@wm29',
      '50@wm29',
      '60@wm29',
      '70@wm59',
    ]);
  });

  it("in 'processing-time' mode (Flink's rule) the same bounded job follows the clock instead", async () => {
    const clock = new ManualClock(0);
    const env = StreamExecutionEnvironment.create({
      clock,
      autoWatermarkRecords: 3,
      autoWatermarkInterval: 1_000,
      watermarkEmission: 'processing-time',
    });
    const seen: string[] = [];
    env
      .fromElements(10, 20, 30)
      .map((v) => (clock.advanceTo(clock.now() + 1_000), v))
      .assignTimestampsAndWatermarks(periodic)
      .process({
        processElement(v, ctx) {
          seen.push(`${v}@wm${ctx.timerService().currentWatermark()}`);
        },
      })
      .sinkTo(new CollectSink());
    await env.execute('clock-driven');
    // The clock passes the interval before each record: the watermark of the record before it is emitted first.
    assert.deepEqual(seen, ['10@wm-Infinity', '20@wm9', '30@wm19']);
  });
});

describe('a punctuated watermark follows the record that produced it', () => {
  const lateTag = new OutputTag<number>('late');
  const everyRecord = WatermarkStrategy.forPunctuated((_v: number, ts) => ts).withTimestampAssigner((v) => v);
  const assigners: [string, WindowAssigner<unknown, TimeWindow>][] = [
    ['tumbling', TumblingEventTimeWindows.of(1)],
    ['sliding', SlidingEventTimeWindows.of(1, 1)],
  ];

  for (const [kind, assigner] of assigners) {
    it(`1, 2, 5, 3, 4 into a 1 ms ${kind} all-window: late output is exactly 3 and 4 (assignTimestampsAndWatermarks)`, async () => {
      const env = StreamExecutionEnvironment.create();
      const windows = env
        .fromElements(1, 2, 5, 3, 4)
        .assignTimestampsAndWatermarks(everyRecord)
        .windowAll(assigner)
        .allowedLateness(0)
        .sideOutputLateData(lateTag)
        .reduce((a, b) => a + b);
      const late = new CollectSink<number>();
      windows.getSideOutput(lateTag).sinkTo(late);
      const out = await windows.executeAndCollect();
      assert.deepEqual(out, [1, 2, 5]);
      assert.deepEqual(late.values, [3, 4]);
    });

    it(`1, 2, 5, 3, 4 into a 1 ms ${kind} all-window: late output is exactly 3 and 4 (strategy in the source)`, async () => {
      const env = StreamExecutionEnvironment.create();
      const windows = env
        .fromSource(new CollectionSource([1, 2, 5, 3, 4]), everyRecord, 'numbers')
        .windowAll(assigner)
        .allowedLateness(0)
        .sideOutputLateData(lateTag)
        .reduce((a, b) => a + b);
      const late = new CollectSink<number>();
      windows.getSideOutput(lateTag).sinkTo(late);
      const out = await windows.executeAndCollect();
      assert.deepEqual(out, [1, 2, 5]);
      assert.deepEqual(late.values, [3, 4]);
    });
  }

  it('forPunctuated: undefined means no watermark; a NaN watermark fails naming the source and record', async () => {
    const h = await TestHarness.create((input: DataStream<{ v: number; mark: boolean }>) =>
      input.assignTimestampsAndWatermarks(
        WatermarkStrategy.forPunctuated((e: { v: number; mark: boolean }, ts) =>
          e.mark ? ts : undefined,
        ).withTimestampAssigner((e) => e.v),
      ),
    );
    h.processElement({ v: 5, mark: false });
    h.processElement({ v: 7, mark: true });
    assert.deepEqual(h.output(), [
      { value: { v: 5, mark: false }, timestamp: 5 },
      { value: { v: 7, mark: true }, timestamp: 7 },
      { watermark: 7 },
    ]);

    const env = StreamExecutionEnvironment.create();
    const out = env
      .fromSource(
        new CollectionSource([1, 2]),
        WatermarkStrategy.forPunctuated((v: number) => (v === 2 ? Number.NaN : v)).withTimestampAssigner(
          (v) => v,
        ),
        'numbers',
      )
      .executeAndCollect();
    await assert.rejects(out, (error: Error) => {
      assert.match(error.message, /'numbers'/);
      assert.match(error.message, /record 2\b|2/);
      assert.match(String((error as { cause?: Error }).cause?.message), /returned NaN/);
      return true;
    });
  });
});
