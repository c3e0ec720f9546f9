// Exactly-once across worker threads: SIGKILL the crash job running on 2 workers at seeded moments; the committed
// output equals an uninterrupted single-thread run's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { buildCrashJob, committedLines, OUTPUTS } from './crash-job.ts';
import { seededRandom } from '../support/child-run.ts';
import { runChild } from './run-crash-child.ts';

const COUNT = 20_000;
const RATE = 4_000;
const KILLS = 5;
const SEED = 20_261_201;
const root = mkdtempSync(join(tmpdir(), 'weir-crash-workers-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('crash test at 2 worker threads: exactly-once under SIGKILL', () => {
  it(`commits exactly the uninterrupted output after ${KILLS} kills`, { timeout: 900_000 }, async () => {
    const expectedDir = join(root, 'expected');
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    await buildCrashJob(env, expectedDir, COUNT);
    await env.execute('crash-job reference');
    const expected = Object.fromEntries(OUTPUTS.map((o) => [o, committedLines(expectedDir, o)]));
    assert.ok(expected.windows!.length > 500 && expected.big!.length > 50 && expected.idle!.length > 10);

    const out = join(root, 'out');
    const args = [
      out,
      join(root, 'checkpoints'),
      join(root, 'state'),
      String(COUNT),
      String(RATE),
      'heap',
      'cep',
      '2',
    ];
    const next = seededRandom(SEED);
    let kills = 0;
    let finished = false;
    while (!finished) {
      // Kill moments: 100–1,600 ms after both workers loaded the job (the main thread and each worker print
      // RUNNING), so some kills fall before the first checkpoint and some after several.
      const killAfter = kills < KILLS ? 100 + Math.floor(next() * 1_500) : undefined;
      const runArgs = killAfter === undefined ? [...args.slice(0, 4), '0', ...args.slice(5)] : args;
      const run = await runChild(runArgs, killAfter, 3);
      finished = run.finished;
      if (!finished) kills++;
      assert.ok(kills <= KILLS + 5, 'the job makes no progress between kills');
    }
    assert.ok(kills >= KILLS, `only ${kills} kills before the job finished; lower RATE or raise COUNT`);
    for (const o of OUTPUTS) {
      const actual = committedLines(out, o);
      assert.equal(
        actual.length,
        expected[o]!.length,
        `output '${o}': ${actual.length} committed, expected ${expected[o]!.length}`,
      );
      assert.deepEqual(actual, expected[o], `output '${o}' differs from the uninterrupted run`);
    }
  });
});
