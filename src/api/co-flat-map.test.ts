// ConnectedStreams.flatMap (Flink's CoFlatMapFunction): per-side methods, keyed state, per-subtask fields.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { CoFlatMapFunction } from './connected-streams.ts';
import { StreamExecutionEnvironment } from './stream-execution-environment.ts';
import { TestHarness } from '../testing/index.ts';
import { ValueStateDescriptor } from '../core/state-descriptor.ts';
import type { ValueState } from '../core/state.ts';

describe('ConnectedStreams.flatMap', () => {
  it('keyed: a control stream blocks words (Flink training ControlFunction), state scoped to the key', async () => {
    const control: CoFlatMapFunction<string, string, string> & { blocked: ValueState<boolean> } = {
      blocked: undefined as unknown as ValueState<boolean>,
      open(ctx) {
        this.blocked = ctx.getState(new ValueStateDescriptor<boolean>('blocked'));
      },
      flatMap1(word) {
        this.blocked.update(true);
        void word;
      },
      flatMap2(word, out) {
        if (this.blocked.value() !== true) out.collect(word);
      },
    };
    const h = await TestHarness.createTwoInput(
      (controls: DataStream<string>, words: DataStream<string>) =>
        controls
          .connect(words)
          .keyBy(
            (c) => c,
            (w) => w,
          )
          .flatMap(control),
      { parallelism: 2 },
    );
    h.processElement1('DROP', 1);
    h.processElement1('IGNORE', 2);
    for (const [w, ts] of [
      ['Apache', 3],
      ['DROP', 4],
      ['Flink', 5],
      ['IGNORE', 6],
    ] as const)
      h.processElement2(w, ts);
    assert.deepEqual(h.output(), [
      { value: 'Apache', timestamp: 3 },
      { value: 'Flink', timestamp: 5 },
    ]);
    await h.close();
  });

  it('emits zero or more records per element of either side, with fields per subtask', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const numbers = env.fromElements(1, 2, 3);
    const words = env.fromElements('a b', '', 'c');
    const seenBy: number[] = [];
    const out = await numbers
      .connect(words)
      .flatMap<string>({
        count: 0,
        open() {
          this.count = 0;
        },
        flatMap1(n, o) {
          for (let i = 0; i < n; i++) o.collect(`n${n}`);
          seenBy.push(++this.count);
        },
        flatMap2(line, o) {
          for (const w of line.split(' ').filter((x) => x.length > 0)) o.collect(w);
        },
      })
      .executeAndCollect();
    assert.deepEqual(
      out.filter((s) => s.startsWith('n')),
      ['n1', 'n2', 'n2', 'n3', 'n3', 'n3'],
    );
    assert.deepEqual(
      out.filter((s) => !s.startsWith('n')),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(seenBy, [1, 2, 3]);
  });

  it('rejects an object without flatMap1 and flatMap2', () => {
    const env = StreamExecutionEnvironment.create();
    const a = env.fromElements(1);
    assert.throws(() => a.connect(a).flatMap({ flatMap1() {} } as never), ConfigurationError);
  });
});
