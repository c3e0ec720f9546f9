// A window aggregation whose accumulator is a class instance: declared with `accumulatorType`, it keeps its class
// through a durable backend that writes and reads it for every record; undeclared, the job fails naming the state,
// the class and the option to use.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import type { AggregateFunction, AggregateOptions } from '../src/core/aggregate-function.ts';
import { LmdbStateBackend } from '../src/state/lmdb/lmdb-state-backend.ts';
import { WatermarkStrategy } from '../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../src/windowing/assigners/tumbling-event-time-windows.ts';
import { freshDirs } from './support/fresh-dirs.ts';

const fresh = freshDirs('weir-window-accumulator-');

class Mean {
  count = 0;
  sum = 0;
  add(value: number): this {
    this.count++;
    this.sum += value;
    return this;
  }
  value(): number {
    return this.sum / this.count;
  }
}

interface Reading {
  sensor: string;
  value: number;
  ts: number;
}

// Methods of the accumulator are called on every add: a restored plain object would throw here.
const mean: AggregateFunction<Reading, Mean, string> = {
  createAccumulator: () => new Mean(),
  add: (r, acc) => acc.add(r.value),
  getResult: (acc) => `${acc.count}@${acc.value()}`,
  merge: (a, b) => {
    const m = new Mean();
    m.count = a.count + b.count;
    m.sum = a.sum + b.sum;
    return m;
  },
};

const readings: Reading[] = [
  { sensor: 'a', value: 1, ts: 0 },
  { sensor: 'b', value: 10, ts: 100 },
  { sensor: 'a', value: 3, ts: 200 },
  { sensor: 'b', value: 20, ts: 900 },
  { sensor: 'a', value: 5, ts: 1_100 },
  { sensor: 'a', value: 7, ts: 1_500 },
];

function run(options: AggregateOptions<Mean> | undefined, all = false): Promise<string[]> {
  const env = StreamExecutionEnvironment.create({ parallelism: 1, workers: 1 });
  // One cached value: every switch of key or window writes the accumulator to LMDB and reads it back.
  env.setStateBackend(new LmdbStateBackend({ path: fresh('lmdb'), cacheEntries: 1 }));
  const stream = env
    .fromElements(...readings)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Reading>().withTimestampAssigner((r) => r.ts),
    );
  const windowed = all
    ? stream.windowAll(TumblingEventTimeWindows.of(1_000)).aggregate(mean, options)
    : stream
        .keyBy((r) => r.sensor)
        .window(TumblingEventTimeWindows.of(1_000))
        .aggregate(mean, options);
  return windowed.executeAndCollect('means');
}

describe('window aggregation with a class accumulator', () => {
  it('keeps the class through a durable backend when accumulatorType declares it', async () => {
    const results = await run({ accumulatorType: Mean });
    assert.deepEqual(results.sort(), ['2@15', '2@2', '2@6']);
  });

  it('does so for windowAll too', async () => {
    assert.deepEqual(await run({ accumulatorType: Mean }, true), ['4@8.5', '2@6']);
  });

  it('fails without it, naming the state, the class and the option', async () => {
    await assert.rejects(run(undefined), (error: Error) => {
      const message = `${error.message} ${String((error.cause as Error | undefined)?.message)}`;
      assert.match(message, /State 'window-contents'/);
      assert.match(message, /holds instances of class Mean/);
      assert.match(message, /\.aggregate\(fn, \{ accumulatorType: Mean \}\)/);
      return true;
    });
  });
});
