// Results do not depend on parallelism: random keyed input through the same job at parallelism 1 and 4.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertAsyncProperty } from './support/property.ts';
import {
  CollectSink,
  StreamExecutionEnvironment,
  ValueStateDescriptor,
  WatermarkStrategy,
  type ValueState,
} from '../src/index.ts';

interface Ev {
  key: number;
  value: number;
  ts: number;
}

async function run(events: Ev[], parallelism: number): Promise<string[]> {
  const env = StreamExecutionEnvironment.create({ parallelism, autoWatermarkInterval: 0 });
  const sink = new CollectSink<string>();
  env
    .fromCollection(events)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts),
    )
    .keyBy((e) => e.key)
    .process({
      sum: undefined as unknown as ValueState<number>,
      open(ctx) {
        this.sum = ctx.getState(new ValueStateDescriptor<number>('sum', { defaultValue: 0 }));
      },
      processElement(e, ctx, out) {
        this.sum.update(this.sum.value()! + e.value);
        ctx.timerService().registerEventTimeTimer(Math.floor(e.ts / 100) * 100 + 99);
        out.collect(`rolling ${e.key} ${this.sum.value()}`);
      },
      onTimer(ts, ctx, out) {
        out.collect(`at ${ts} ${ctx.getCurrentKey()} ${this.sum.value()}`);
      },
    })
    // A second keyed exchange: each distinct line counted, so a line's copies must meet on one subtask.
    .map((line) => ({ line, n: 1 }))
    .keyBy((r) => r.line)
    .reduce((a, b) => ({ line: a.line, n: a.n + b.n }))
    .map((r) => `${r.line} #${r.n}`)
    .sinkTo(sink);
  await env.execute();
  return sink.values.sort();
}

describe('parallelism', () => {
  it('gives the same results at parallelism 1 and 4 (property)', async () => {
    await assertAsyncProperty(
      fc.asyncProperty(
        fc.array(
          fc.record({
            key: fc.integer({ min: 0, max: 20 }),
            value: fc.integer({ min: -5, max: 5 }),
            dt: fc.integer({ min: 0, max: 30 }),
          }),
          {
            maxLength: 200,
          },
        ),
        async (raw) => {
          let ts = 0;
          const events = raw.map((r) => ({ key: r.key, value: r.value, ts: (ts += r.dt) }));
          assert.deepEqual(await run(events, 4), await run(events, 1));
        },
      ),
      { numRuns: 25 },
    );
  });
});
