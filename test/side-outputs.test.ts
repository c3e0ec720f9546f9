// Side outputs through the real runtime: watermarks flow on side-output edges, and every consumer of a tag is fed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CollectSink,
  OutputTag,
  StreamExecutionEnvironment,
  TumblingEventTimeWindows,
  type DataStream,
} from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';

const negatives = new OutputTag<number>('negatives', 'number');

/** Non-negative numbers stay on the main output; negative ones go to the `negatives` side output. */
function split(input: DataStream<number>): DataStream<number> {
  return input.process<number>(
    {
      processElement(n, ctx, out) {
        if (n < 0) ctx.output(negatives, n);
        else out.collect(n);
      },
    },
    'Split',
  );
}

describe('side outputs', () => {
  for (const parallelism of [1, 2]) {
    it(`event-time windows after getSideOutput fire as watermarks pass (parallelism ${parallelism})`, async () => {
      const h = await TestHarness.create(
        (input: DataStream<number>) =>
          split(input)
            .getSideOutput(negatives)
            .windowAll(TumblingEventTimeWindows.of(1_000))
            .reduce((a, b) => a + b),
        { parallelism },
      );
      for (const n of [1, -2, 3, -4, 1_500, -1_600, 2_500, -2_600]) h.processElement(n, Math.abs(n));
      assert.deepEqual(h.output(), []);
      h.processWatermark(999);
      assert.deepEqual(h.output(), [{ value: -6, timestamp: 999 }, { watermark: 999 }]);
      h.processWatermark(1_999);
      h.processWatermark(2_999);
      assert.deepEqual(h.output(), [
        { value: -6, timestamp: 999 },
        { watermark: 999 },
        { value: -1_600, timestamp: 1_999 },
        { watermark: 1_999 },
        { value: -2_600, timestamp: 2_999 },
        { watermark: 2_999 },
      ]);
      await h.close();
    });
  }

  for (const parallelism of [1, 2]) {
    it(`a side output consumed twice (a sink and a map) feeds both every record (parallelism ${parallelism})`, async () => {
      const env = StreamExecutionEnvironment.create({ parallelism });
      const main = split(env.fromElements(1, -2, 3, -4, 5, -6));
      const [direct, mapped, rest] = [
        new CollectSink<number>(),
        new CollectSink<number>(),
        new CollectSink<number>(),
      ];
      main.getSideOutput(negatives).sinkTo(direct);
      main
        .getSideOutput(negatives)
        .map((n) => n * 10)
        .sinkTo(mapped);
      main.sinkTo(rest);
      await env.execute('side output consumed twice');
      const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
      assert.deepEqual(ascending(direct.values), [-6, -4, -2]);
      assert.deepEqual(ascending(mapped.values), [-60, -40, -20]);
      assert.deepEqual(ascending(rest.values), [1, 3, 5]);
    });
  }
});
