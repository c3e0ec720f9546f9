// Tests of the side-output job: each record reaches exactly the consumers of its output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CollectSink,
  ConfigurationError,
  OutputTag,
  StreamExecutionEnvironment,
  type DataStream,
} from '../../src/index.ts';
import { TestHarness } from '../../src/testing/index.ts';
import { largeTag, negativeTag, splitStream } from './split-stream.ts';

describe('side outputs', () => {
  it('splits one stream into a main output and two side outputs, at any parallelism', async () => {
    for (const parallelism of [1, 3]) {
      const env = StreamExecutionEnvironment.create({ parallelism });
      const { main, negative, large } = splitStream(
        env
          .fromElements(5, -3, 250, 42, -1, 101, 7)
          .rebalance()
          .map((n) => n),
      );
      const [m, n, l] = [new CollectSink<number>(), new CollectSink<number>(), new CollectSink<string>()];
      main.sinkTo(m);
      negative.sinkTo(n);
      large.sinkTo(l);
      await env.execute('split');
      assert.deepEqual(
        m.values.sort((a, b) => a - b),
        [5, 7, 42],
      );
      assert.deepEqual(
        n.values.sort((a, b) => a - b),
        [-3, -1],
      );
      assert.deepEqual(l.values.sort(), ['large: 101', 'large: 250']);
    }
  });

  it('keeps the record timestamp on side outputs and routes only to the consumers of the tag', async () => {
    const h = await TestHarness.create((input: DataStream<number>) => {
      const { main, large } = splitStream(input);
      return main.union(large.map((s) => s.length));
    });
    h.processElement(-5, 1);
    h.processElement(500, 2);
    h.processElement(50, 3);
    assert.deepEqual(h.output(), [
      { value: 10, timestamp: 2 },
      { value: 50, timestamp: 3 },
    ]);
    assert.deepEqual(h.sideOutput(negativeTag), [{ value: -5, timestamp: 1 }]);
    assert.deepEqual(h.sideOutput(largeTag), [{ value: 'large: 500', timestamp: 2 }]);
  });

  it('rejects two tags with one id and different element types when the job is built', async () => {
    const env = StreamExecutionEnvironment.create();
    const { main } = splitStream(env.fromElements(1));
    main.getSideOutput(new OutputTag<number>('negative', 'number')).print();
    main.getSideOutput(new OutputTag<string>('negative', 'string')).print();
    await assert.rejects(env.execute(), ConfigurationError);
  });
});
