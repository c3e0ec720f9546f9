// Event time: watermark strategies, periodic emission, min over inputs, idleness, and the final watermark.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigurationError,
  CollectSink,
  CollectionSource,
  StreamExecutionEnvironment,
  WatermarkStrategy,
  type DataStream,
  type Source,
} from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';
import { TumblingEventTimeWindows } from '../src/windowing/assigners/tumbling-event-time-windows.ts';

interface Ev {
  id: string;
  ts: number;
}

describe('watermarks', () => {
  it('bounded out-of-orderness emits max timestamp - bound - 1, periodically, only when it grows', async () => {
    const h = await TestHarness.create(
      (input: DataStream<Ev>) =>
        input.assignTimestampsAndWatermarks(
          WatermarkStrategy.forBoundedOutOfOrderness<Ev>(5).withTimestampAssigner((e) => e.ts),
        ),
      { autoWatermarkInterval: 100 },
    );
    h.processElement({ id: 'a', ts: 10 });
    h.processElement({ id: 'b', ts: 30 });
    h.processElement({ id: 'c', ts: 20 });
    assert.deepEqual(h.output(), [
      { value: { id: 'a', ts: 10 }, timestamp: 10 },
      { value: { id: 'b', ts: 30 }, timestamp: 30 },
      { value: { id: 'c', ts: 20 }, timestamp: 20 },
    ]);
    h.clearOutput();
    h.setProcessingTime(100);
    assert.deepEqual(h.output(), [{ watermark: 24 }]);
    h.setProcessingTime(200);
    assert.deepEqual(h.output(), [{ watermark: 24 }], 'an unchanged watermark is not emitted again');
    h.processElement({ id: 'd', ts: 50 });
    h.setProcessingTime(300);
    assert.deepEqual(h.output().slice(-1), [{ watermark: 44 }]);
  });

  it('monotonous timestamps: the watermark trails the largest timestamp by 1 ms', async () => {
    const h = await TestHarness.create(
      (input: DataStream<Ev>) =>
        input.assignTimestampsAndWatermarks(
          WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts),
        ),
      { autoWatermarkInterval: 10 },
    );
    h.processElement({ id: 'a', ts: 7 });
    h.setProcessingTime(10);
    assert.deepEqual(h.output().slice(-1), [{ watermark: 6 }]);
  });

  it('drops upstream watermarks after assignTimestampsAndWatermarks but passes the final one', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      input.assignTimestampsAndWatermarks(
        WatermarkStrategy.noWatermarks<Ev>().withTimestampAssigner((e) => e.ts),
      ),
    );
    h.processWatermark(1_000);
    h.processElement({ id: 'a', ts: 3 });
    h.endInput();
    assert.deepEqual(h.output(), [{ value: { id: 'a', ts: 3 }, timestamp: 3 }, { watermark: Infinity }]);
  });

  it('an operator watermark is the minimum over its inputs; idle inputs do not hold it back', async () => {
    const h = await TestHarness.createTwoInput(
      (a: DataStream<Ev>, b: DataStream<Ev>) =>
        a
          .assignTimestampsAndWatermarks(
            WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts),
          )
          .union(
            b.assignTimestampsAndWatermarks(
              WatermarkStrategy.forMonotonousTimestamps<Ev>()
                .withTimestampAssigner((e) => e.ts)
                .withIdleness(1_000),
            ),
          )
          .map((e) => e.id),
      { autoWatermarkInterval: 100 },
    );
    h.processElement1({ id: 'a1', ts: 100 });
    h.processElement2({ id: 'b1', ts: 50 });
    h.setProcessingTime(100);
    assert.deepEqual(
      h.output().filter((e) => 'watermark' in e),
      [{ watermark: 49 }],
      'min(99, 49)',
    );
    h.processElement1({ id: 'a2', ts: 500 });
    h.setProcessingTime(1_000);
    // input 2 has been silent for 1 s of processing time: idle, so input 1 alone sets the watermark
    assert.deepEqual(
      h
        .output()
        .filter((e) => 'watermark' in e)
        .slice(-1),
      [{ watermark: 499 }],
    );
    h.processElement2({ id: 'b2', ts: 600 });
    h.processElement1({ id: 'a3', ts: 900 });
    h.setProcessingTime(1_100);
    assert.deepEqual(
      h
        .output()
        .filter((e) => 'watermark' in e)
        .slice(-1),
      [{ watermark: 599 }],
      'active again: min(899, 599)',
    );
  });

  it("a window over a union fires when one input goes idle, not at the other input's next watermark", async () => {
    const strategy = WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts);
    const h = await TestHarness.createTwoInput(
      (a: DataStream<Ev>, b: DataStream<Ev>) =>
        a
          .assignTimestampsAndWatermarks(strategy)
          .union(b.assignTimestampsAndWatermarks(strategy.withIdleness(1_000)))
          .windowAll(TumblingEventTimeWindows.of(1_000))
          .process({
            process(ctx, elements, out) {
              out.collect(`[${ctx.window.start}, ${ctx.window.end}): ${[...elements].map((e) => e.id)}`);
            },
          }),
      { autoWatermarkInterval: 100 },
    );
    h.processElement1({ id: 'a1', ts: 100 });
    h.processElement2({ id: 'b1', ts: 50 });
    h.setProcessingTime(100);
    h.processElement1({ id: 'a2', ts: 1_500 });
    h.setProcessingTime(200);
    assert.deepEqual(h.output(), [{ watermark: 49 }], 'input 2 holds the window [0, 1000) back');
    h.setProcessingTime(900);
    assert.deepEqual(h.output(), [{ watermark: 49 }]);
    // Input 2 has been silent for 1 s: it goes idle, and input 1's watermark 1499 (emitted at 200, unchanged
    // since) applies at once.
    h.setProcessingTime(1_000);
    assert.deepEqual(h.output(), [
      { watermark: 49 },
      { value: '[0, 1000): a1,b1', timestamp: 999 },
      { watermark: 1_499 },
    ]);
  });

  it('a bounded job ends with the final watermark, so every pending event-time timer fires', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const sink = new CollectSink<string>();
    env
      .fromElements<Ev>({ id: 'x', ts: 5 }, { id: 'y', ts: 7 }, { id: 'x', ts: 9 })
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts),
      )
      .keyBy((e) => e.id)
      .process({
        processElement(e, ctx) {
          ctx.timerService().registerEventTimeTimer(e.ts + 1_000_000);
        },
        onTimer(ts, ctx, out) {
          out.collect(`${ctx.getCurrentKey()}@${ts}`);
        },
      })
      .sinkTo(sink);
    await env.execute('final watermark');
    assert.deepEqual(sink.values.sort(), ['x@1000005', 'x@1000009', 'y@1000007']);
  });

  it('a source whose splits all finished (so it went idle) still ends with the final watermark', async () => {
    // Each subtask reads two splits through split outputs and releases both before its input ends: with no split
    // left it declares itself idle, and the final watermark must still reach the window (Flink: emitting a
    // watermark makes an idle output active again).
    const source: Source<Ev> = {
      boundedness: 'bounded',
      createReader: () => ({
        pollNext(output) {
          const a = output.createOutputForSplit!('a');
          const b = output.createOutputForSplit!('b');
          a.collect({ id: 'a', ts: 100 });
          b.collect({ id: 'b', ts: 200 });
          a.collect({ id: 'a', ts: 2_500 });
          output.releaseOutputForSplit!('a');
          output.releaseOutputForSplit!('b');
          return 'end';
        },
      }),
    };
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const sink = new CollectSink<string>();
    env
      .fromSource(
        source,
        WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts),
      )
      .keyBy((e) => e.id)
      .window(TumblingEventTimeWindows.of(1_000))
      .process({
        process(key, context, elements, out) {
          out.collect(`${key}@${context.window.start}:${[...elements].length}`);
        },
      })
      .sinkTo(sink);
    await env.execute('idle source ends');
    assert.deepEqual(sink.values.sort(), ['a@0:2', 'a@2000:2', 'b@0:2']);
  });

  it('strategies infer their element type from the stream or source they are given to', async () => {
    const env = StreamExecutionEnvironment.create();
    const events: Ev[] = [
      { id: 'a', ts: 3 },
      { id: 'b', ts: 1 },
    ];
    // No `<Ev>` anywhere: `e` is an Ev because the stream is a DataStream<Ev> (a typo would not compile).
    const fromStream = env
      .fromCollection(events)
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps().withTimestampAssigner((e) => e.ts),
      );
    const fromSource = env.fromSource(
      new CollectionSource(events),
      WatermarkStrategy.forBoundedOutOfOrderness(5)
        .withIdleness(1_000)
        .withTimestampAssigner((e) => e.ts * 10),
      'events',
    );
    const punctuated = env.fromCollection(events).assignTimestampsAndWatermarks(
      WatermarkStrategy.forPunctuated(
        (e, ts) => (e.id === 'a' ? ts : undefined),
        (e) => e.ts,
      ),
    );
    env.fromCollection(events).assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps().withTimestampAssigner(
        // @ts-expect-error: Ev has no field 'time', and the assigner is typed by the stream
        (e) => e.time,
      ),
    );
    const sink = new CollectSink<string>();
    fromStream
      .union(fromSource, punctuated)
      .process({
        processElement(e, ctx, out) {
          out.collect(`${e.id}@${ctx.timestamp()}`);
        },
      })
      .sinkTo(sink);
    await env.execute('inferred strategies');
    assert.deepEqual(sink.values.sort(), ['a@3', 'a@3', 'a@30', 'b@1', 'b@1', 'b@10']);
  });

  it('rejects a negative out-of-orderness bound when the strategy is built', () => {
    assert.throws(() => WatermarkStrategy.forBoundedOutOfOrderness(-1), ConfigurationError);
    assert.throws(() => WatermarkStrategy.forMonotonousTimestamps().withIdleness(0), /idle timeout/);
  });
});
