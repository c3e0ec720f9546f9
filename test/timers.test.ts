// Key-bound timers: ordering, de-duplication, deletion, time domains and what records emitted from timers carry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputTag, type DataStream, type KeyedProcessFunction } from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';

interface Cmd {
  key: string;
  /** 'e@T' registers an event-time timer at T; 'p@T' a processing-time one; '-e@T' / '-p@T' delete. */
  op: string;
}

const timerTag = new OutputTag<string>('timer-side');

const timerFunction = (): KeyedProcessFunction<string, Cmd, string> => ({
  processElement(cmd, ctx) {
    const [kind, at] = cmd.op.split('@') as [string, string];
    const time = Number(at);
    const ts = ctx.timerService();
    if (kind === 'e') ts.registerEventTimeTimer(time);
    if (kind === 'p') ts.registerProcessingTimeTimer(time);
    if (kind === '-e') ts.deleteEventTimeTimer(time);
    if (kind === '-p') ts.deleteProcessingTimeTimer(time);
  },
  onTimer(timestamp, ctx, out) {
    out.collect(`${ctx.getCurrentKey()}:${ctx.timeDomain()}@${timestamp}`);
    ctx.output(timerTag, `side ${ctx.getCurrentKey()}@${ctx.timestamp()}`);
  },
});

const build = (input: DataStream<Cmd>) => input.keyBy((c) => c.key).process(timerFunction());

describe('timers', () => {
  it('fire on a watermark in timestamp order, each with its own key, and carry the timer time', async () => {
    for (const parallelism of [1, 4]) {
      const h = await TestHarness.create(build, { parallelism });
      h.processElement({ key: 'b', op: 'e@30' });
      h.processElement({ key: 'a', op: 'e@10' });
      h.processElement({ key: 'c', op: 'e@20' });
      h.processElement({ key: 'a', op: 'e@40' });
      h.processWatermark(30);
      const out = h.output();
      if (parallelism === 1) {
        assert.deepEqual(out, [
          { value: 'a:EVENT_TIME@10', timestamp: 10 },
          { value: 'c:EVENT_TIME@20', timestamp: 20 },
          { value: 'b:EVENT_TIME@30', timestamp: 30 },
          { watermark: 30 },
        ]);
      } else {
        assert.deepEqual(out.slice(-1), [{ watermark: 30 }]);
        assert.deepEqual(h.records().sort(), ['a:EVENT_TIME@10', 'b:EVENT_TIME@30', 'c:EVENT_TIME@20']);
      }
      assert.equal(h.numEventTimeTimers(), 1);
      h.processWatermark(100);
      assert.equal(h.records().at(-1), 'a:EVENT_TIME@40');
      assert.deepEqual(h.sideOutput(timerTag).slice(-1), [{ value: 'side a@40', timestamp: 40 }]);
    }
  });

  it('de-duplicates a timer registered twice and ignores deleting a missing one', async () => {
    const h = await TestHarness.create(build);
    h.processElement({ key: 'a', op: 'e@10' });
    h.processElement({ key: 'a', op: 'e@10' });
    h.processElement({ key: 'b', op: 'e@10' });
    h.processElement({ key: 'a', op: '-e@99' });
    assert.equal(h.numEventTimeTimers(), 2);
    h.processWatermark(10);
    assert.deepEqual(h.records(), ['a:EVENT_TIME@10', 'b:EVENT_TIME@10']);
  });

  it('deletes timers of the current key only', async () => {
    const h = await TestHarness.create(build);
    h.processElement({ key: 'a', op: 'e@10' });
    h.processElement({ key: 'b', op: 'e@10' });
    h.processElement({ key: 'b', op: '-e@10' });
    h.processWatermark(20);
    assert.deepEqual(h.records(), ['a:EVENT_TIME@10']);
  });

  it('fires processing-time timers when the clock reaches them; their records carry no timestamp', async () => {
    const h = await TestHarness.create(build);
    h.setProcessingTime(5);
    h.processElement({ key: 'a', op: 'p@20' });
    h.processElement({ key: 'b', op: 'p@10' });
    h.processElement({ key: 'c', op: 'p@15' });
    h.processElement({ key: 'c', op: '-p@15' });
    h.setProcessingTime(9);
    assert.deepEqual(h.output(), []);
    h.setProcessingTime(25);
    assert.deepEqual(h.output(), [
      { value: 'b:PROCESSING_TIME@10', timestamp: undefined },
      { value: 'a:PROCESSING_TIME@20', timestamp: undefined },
    ]);
    // As in Flink, ctx.timestamp() and side outputs carry the timer's time in both domains.
    assert.deepEqual(h.sideOutput(timerTag), [
      { value: 'side b@10', timestamp: 10 },
      { value: 'side a@20', timestamp: 20 },
    ]);
    assert.equal(h.numProcessingTimeTimers(), 0);
  });

  it('lets onTimer register further timers, which fire in the same advance when due', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      input
        .keyBy(() => 'k')
        .process({
          processElement(n, ctx) {
            ctx.timerService().registerEventTimeTimer(n);
          },
          onTimer(ts, ctx, out) {
            out.collect(ts);
            if (ts < 40) ctx.timerService().registerEventTimeTimer(ts + 10);
          },
        }),
    );
    h.processElement(10, 1);
    h.processWatermark(35);
    assert.deepEqual(h.records(), [10, 20, 30]);
    h.processWatermark(50);
    assert.deepEqual(h.records(), [10, 20, 30, 40]);
    assert.equal(h.numEventTimeTimers(), 0);
  });

  it('refuses timers on a stream that is not keyed, naming the operator', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      input.process(
        { processElement: (_n, ctx) => ctx.timerService().registerEventTimeTimer(5) },
        'No keys here',
      ),
    );
    assert.throws(
      () => h.processElement(1),
      /Operator 'No keys here'.*Setting timers is only supported on a keyed stream/,
    );
  });

  it('fires pending event-time timers at the end of a bounded input (final watermark)', async () => {
    const h = await TestHarness.create(build);
    h.processElement({ key: 'a', op: 'e@1000000' });
    h.endInput();
    assert.deepEqual(h.output(), [
      { value: 'a:EVENT_TIME@1000000', timestamp: 1000000 },
      { watermark: Infinity },
    ]);
  });
});
