// Watermark alignment (WatermarkStrategy.withWatermarkAlignment): which source subtask is paused, and when.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { GeneratorSource } from '../connectors/generator-source.ts';
import { ConfigurationError } from '../core/errors.ts';
import { WatermarkStrategy } from './watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../windowing/assigners/tumbling-event-time-windows.ts';

interface Tick {
  readonly src: string;
  readonly ts: number;
}

/**
 * Two bounded sources of 20 records each, two records per poll, a watermark after every record: `slow` moves 10 ms of
 * event time per record, `fast` 100 ms. Their union in arrival order, as `slow20`, `fast300`.
 */
async function interleaving(
  align: (s: WatermarkStrategy<Tick>) => WatermarkStrategy<Tick>,
): Promise<string[]> {
  const env = StreamExecutionEnvironment.create({ parallelism: 1, workers: 1, autoWatermarkRecords: 1 });
  const source = (src: string, step: number): GeneratorSource<Tick> =>
    GeneratorSource.of(20, (i) => ({ src, ts: i * step }), { batchSize: 2 });
  const strategy = (): WatermarkStrategy<Tick> =>
    align(WatermarkStrategy.forMonotonousTimestamps<Tick>()).withTimestampAssigner((t) => t.ts);
  const fast = env.fromSource(source('fast', 100), strategy(), 'fast');
  const slow = env.fromSource(source('slow', 10), strategy(), 'slow');
  const out = await fast
    .union(slow)
    .map((t) => `${t.src}${t.ts}`)
    .executeAndCollect('alignment');
  return out;
}

const range = (src: string, from: number, to: number, step: number): string[] => {
  const names: string[] = [];
  for (let ts = from; ts <= to; ts += step) names.push(`${src}${ts}`);
  return names;
};

describe('WatermarkStrategy.withWatermarkAlignment', () => {
  it('pauses the source subtask ahead of its group by more than the drift until the others catch up', async () => {
    // Bounded sources are polled in turn, a batch each, the last one first (slow, then fast). Without alignment
    // they alternate two records at a time.
    const free = await interleaving((s) => s);
    assert.deepEqual(free.slice(0, 8), [
      'slow0',
      'slow10',
      'fast0',
      'fast100',
      'slow20',
      'slow30',
      'fast200',
      'fast300',
    ]);
    // With a drift of 50 ms: after its first batch fast's watermark is 99 against slow's 29, more than 50 ahead:
    // paused. Slow's next batch takes it to 49 (99 is not above 49 + 50), fast polls once (to 299) and is paused
    // again until slow's watermark could reach 249, which it never does (its last record is at 190): fast resumes
    // when slow ends and leaves the group's lowest.
    const aligned = await interleaving((s) => s.withWatermarkAlignment('ticks', 50, 1));
    assert.deepEqual(aligned, [
      'slow0',
      'slow10',
      'fast0',
      'fast100',
      'slow20',
      'slow30',
      'slow40',
      'slow50',
      'fast200',
      'fast300',
      ...range('slow', 60, 190, 10),
      ...range('fast', 400, 1900, 100),
    ]);
    // The same records either way: alignment changes the order only.
    assert.deepEqual([...aligned].sort(), [...free].sort());
  });

  it('leaves sources of other groups, and sources without alignment, alone', async () => {
    const free = await interleaving((s) => s);
    let group = 0;
    // Each source its own group: nobody to be ahead of.
    assert.deepEqual(await interleaving((s) => s.withWatermarkAlignment(`own ${group++}`, 0, 1)), free);
  });

  it('gives the same windows with and without alignment, with the subtasks of one source far apart in event time', async () => {
    // Two source subtasks: subtask 0 takes the even indices (1 ms of event time per index), subtask 1 the odd ones
    // (50 ms per index), so subtask 1 runs far ahead. With worker threads (npm run test:workers) they run on two
    // threads and are aligned through the shared slots; on one thread, in turn. Counts per key and 100 ms window.
    const count = 4_000;
    const tsOf = (i: number): number => (i % 2 === 0 ? i : i * 50);
    const windows = async (
      align: (s: WatermarkStrategy<number>) => WatermarkStrategy<number>,
    ): Promise<string[]> => {
      const env = StreamExecutionEnvironment.create({ parallelism: 2, autoWatermarkRecords: 10 });
      const out = await env
        .fromSource(
          GeneratorSource.of(count, (i) => i, { batchSize: 50 }),
          align(WatermarkStrategy.forMonotonousTimestamps<number>()).withTimestampAssigner(tsOf),
          'indices',
        )
        .keyBy((i) => i % 3)
        .window(TumblingEventTimeWindows.of(100))
        .aggregate({
          createAccumulator: () => [0, 0] as [number, number],
          add: (i, acc) => [i % 3, acc[1] + 1] as [number, number],
          getResult: (acc) => acc,
          merge: (a, b) => [a[0], a[1] + b[1]] as [number, number],
        })
        .map(([key, n]) => `${key}:${n}`)
        .executeAndCollect('alignment windows');
      return out.sort();
    };
    // The reference: every index counted into its key's window by hand.
    const expected = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const window = `${i % 3}/${Math.floor(tsOf(i) / 100)}`;
      expected.set(window, (expected.get(window) ?? 0) + 1);
    }
    const reference = [...expected].map(([window, n]) => `${window.split('/')[0]}:${n}`).sort();
    assert.deepEqual(await windows((s) => s), reference);
    assert.deepEqual(await windows((s) => s.withWatermarkAlignment('indices', 200, 2)), reference);
  });

  it('keeps the alignment through withIdleness and withTimestampAssigner, and checks its arguments', () => {
    const strategy = WatermarkStrategy.forBoundedOutOfOrderness<Tick>(5)
      .withWatermarkAlignment('g', 1000)
      .withIdleness(10)
      .withTimestampAssigner((t) => t.ts);
    assert.deepEqual(strategy.alignment, { group: 'g', maxAllowedDriftMs: 1000, updateIntervalMs: 1000 });
    assert.equal(WatermarkStrategy.forMonotonousTimestamps().alignment, undefined);
    assert.throws(() => WatermarkStrategy.noWatermarks().withWatermarkAlignment('', 10), ConfigurationError);
    assert.throws(() => WatermarkStrategy.noWatermarks().withWatermarkAlignment('g', -1), ConfigurationError);
    assert.throws(
      () => WatermarkStrategy.noWatermarks().withWatermarkAlignment('g', 10, 0),
      ConfigurationError,
    );
    assert.throws(
      () => WatermarkStrategy.noWatermarks().withWatermarkAlignment('g', Number.POSITIVE_INFINITY),
      ConfigurationError,
    );
  });

  it('is refused by assignTimestampsAndWatermarks: only sources are aligned', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1, workers: 1 });
    const stream = env.fromElements(1, 2, 3);
    assert.throws(
      () =>
        stream.assignTimestampsAndWatermarks(
          WatermarkStrategy.forMonotonousTimestamps<number>().withWatermarkAlignment('g', 10),
        ),
      /applies to sources only/,
    );
  });
});
