// Rescaling with sources: a savepoint taken mid-stream at parallelism 3 restores at 1, 2 and 5 with every record once.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  FileSource,
  GeneratorSource,
  loadSavepoint,
  StreamExecutionEnvironment,
  type Source,
} from '../../src/index.ts';
import { buildJob, event, expected, jsonl, range, type Ev } from './rescale-job.ts';
import { freshDirs } from '../support/fresh-dirs.ts';
import { Progress } from '../support/progress.ts';
import { committedLines as committed } from '../support/committed-lines.ts';

const fresh = freshDirs('weir-rescale-');

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
  buildJob(env, source(true), first, () => progress.record());
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
