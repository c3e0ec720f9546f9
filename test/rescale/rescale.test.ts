// Rescaling with sources: a savepoint taken mid-stream at parallelism 3 restores at 1, 2 and 5 with every record once.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  FileSource,
  GeneratorSource,
  loadSavepoint,
  StreamExecutionEnvironment,
  Time,
  TumblingEventTimeWindows,
  TwoPhaseCommitFileSink,
  WatermarkStrategy,
  type Source,
} from '../../src/index.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-rescale-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const fresh = (name: string) => join(root, `${name}-${dirs++}`);

interface Ev {
  id: number;
  key: number;
  ts: number;
}

const KEYS = 11;
const event = (id: number): Ev => ({ id, key: id % KEYS, ts: id });

/** Resolves once `count` records went through the job, so the savepoint is triggered mid-stream, not on a timer. */
class Progress {
  private seen = 0;
  private resolve!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.resolve = resolve));
  constructor(private readonly count: number) {}
  record(): void {
    if (++this.seen === this.count) this.resolve();
  }
}

/**
 * The job behind every source: each record to an exactly-once sink (to check each arrives once), and per key a
 * tumbling event-time window of 1,000 ms summing ids, to another one. The source emits no watermarks, so every
 * window fires at the end of input: its contents cross the savepoint as keyed state and move between subtasks.
 * (With watermarks, the splits a subtask reads one after the other after a rescale would step back in event time
 * and make records late, which is event-time semantics, not what this test is about.)
 */
function buildJob(
  env: StreamExecutionEnvironment,
  source: Source<Ev>,
  out: { records: string; windows: string },
  progress?: Progress,
): void {
  const events = env
    .fromSource(
      source,
      WatermarkStrategy.noWatermarks<Ev>().withTimestampAssigner((e) => e.ts),
      'events',
    )
    .uid('events')
    .map((e) => {
      progress?.record();
      return e;
    })
    .uid('progress');
  events.sinkTo(TwoPhaseCommitFileSink.jsonLines(out.records)).uid('records');
  events
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(Time.milliseconds(1_000)))
    .aggregate({
      createAccumulator: () => ({ key: -1, start: -1, sum: 0, n: 0 }),
      add: (e: Ev, acc: { key: number; start: number; sum: number; n: number }) => ({
        key: e.key,
        start: e.ts - (e.ts % 1_000),
        sum: acc.sum + e.id,
        n: acc.n + 1,
      }),
      getResult: (acc) => acc,
      merge: (a, b) => ({ ...a, sum: a.sum + b.sum, n: a.n + b.n }),
    })
    .uid('windows')
    .sinkTo(TwoPhaseCommitFileSink.jsonLines(out.windows))
    .uid('window-sink');
}

function committed(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith('part-'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.length > 0)
    .sort();
}

/** The exact output of the whole input, read once: every record, and every (key, window) sum. */
function expected(ids: readonly number[]): { records: string[]; windows: string[] } {
  const windows = new Map<string, { key: number; start: number; sum: number; n: number }>();
  for (const id of ids) {
    const e = event(id);
    const start = e.ts - (e.ts % 1_000);
    const w = windows.get(`${e.key}/${start}`) ?? { key: e.key, start, sum: 0, n: 0 };
    w.sum += id;
    w.n++;
    windows.set(`${e.key}/${start}`, w);
  }
  return {
    records: ids.map((id) => JSON.stringify(event(id))).sort(),
    windows: [...windows.values()].map((w) => JSON.stringify(w)).sort(),
  };
}

/**
 * Runs the job at parallelism 3 until `progressAt` records went through, takes a savepoint and cancels; then
 * restores it at 1, 2 and 5, each into its own output, and checks that the first run's committed output plus
 * each restored run's is exactly the whole output: nothing lost, nothing twice.
 */
async function rescaleFromThree(
  source: (firstRun: boolean) => Source<Ev>,
  ids: readonly number[],
  progressAt: number,
): Promise<void> {
  const first = { records: fresh('records'), windows: fresh('windows') };
  const env = StreamExecutionEnvironment.create({ parallelism: 3 });
  env.enableCheckpointing(1_000_000, { storage: fresh('chk') });
  const progress = new Progress(progressAt);
  buildJob(env, source(true), first, progress);
  const client = await env.executeAsync('at parallelism 3');
  await progress.reached;
  const savepoint = await client.triggerSavepoint(fresh('savepoints'));
  await client.cancel().catch(() => {});
  await client.result.catch(() => {});

  const state = loadSavepoint(savepoint).operators['events']!;
  assert.equal(state.parallelism, 3);
  const splits = (state.operatorState as unknown[][]).flat();
  assert.ok(splits.length > 0, 'the savepoint is taken mid-stream: some splits are unfinished');
  const before = committed(first.records);
  assert.ok(
    before.length >= progressAt && before.length < ids.length,
    `mid-stream: ${before.length} records`,
  );

  const whole = expected(ids);
  for (const parallelism of [1, 2, 5]) {
    const rest = { records: fresh('records'), windows: fresh('windows') };
    const env2 = StreamExecutionEnvironment.create({ parallelism });
    env2.enableCheckpointing(1_000_000, { storage: fresh('chk') });
    buildJob(env2, source(false), rest);
    await env2.execute(`restored at ${parallelism}`, { savepointPath: savepoint });
    assert.deepEqual(
      [...before, ...committed(rest.records)].sort(),
      whole.records,
      `records, restored at parallelism ${parallelism}`,
    );
    assert.deepEqual(
      [...committed(first.windows), ...committed(rest.windows)].sort(),
      whole.windows,
      `window sums, restored at parallelism ${parallelism}`,
    );
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const jsonl = (ids: readonly number[]) => ids.map((id) => JSON.stringify(event(id))).join('\n') + '\n';

describe('rescaling a savepoint with sources', () => {
  it('FileSource over several files: taken at 3, restored at 1, 2 and 5', async () => {
    const dir = fresh('files');
    mkdirSync(dir);
    // 7 files over 3 subtasks: some subtasks hold several files, one half-read, some not started.
    for (let f = 0; f < 7; f++)
      writeFileSync(join(dir, `part-${f}.jsonl`), jsonl(range(f * 4_000, (f + 1) * 4_000)));
    await rescaleFromThree(() => FileSource.jsonLines<Ev>(dir, { batchSize: 100 }), range(0, 28_000), 2_000);
  });

  it('FileSource over one big file: its one split resumes mid-file at 1, 2 and 5', async () => {
    const path = join(fresh('big'), 'big.jsonl');
    mkdirSync(join(path, '..'));
    writeFileSync(path, jsonl(range(0, 30_000)));
    await rescaleFromThree(() => FileSource.jsonLines<Ev>(path, { batchSize: 100 }), range(0, 30_000), 2_000);
  });

  it('GeneratorSource, rate-limited: taken at 3, restored at 1, 2 and 5', async () => {
    await rescaleFromThree(
      // Rate-limited in the first run only, so the savepoint is mid-stream and the restored runs are quick.
      (firstRun) =>
        GeneratorSource.of(30_000, event, firstRun ? { ratePerSecond: 30_000, batchSize: 100 } : {}),
      range(0, 30_000),
      5_000,
    );
  });
});
