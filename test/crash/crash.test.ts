// The proof of exactly-once: SIGKILL the crash job at 20+ seeded random moments; committed output equals a clean run's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { buildCrashJob, committedLines, OUTPUTS } from './crash-job.ts';
import { seededRandom } from '../support/child-run.ts';
import { runChild } from './run-crash-child.ts';

const COUNT = 40_000;
const RATE = 5_000;
const KILLS = 20;
const SEED = 20_240_601;
const root = mkdtempSync(join(tmpdir(), 'weir-crash-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('crash test: exactly-once under SIGKILL', () => {
  it(
    `commits exactly the uninterrupted output after ${KILLS} kills at random moments`,
    { timeout: 600_000 },
    async () => {
      const expectedDir = join(root, 'expected');
      const env = StreamExecutionEnvironment.create({ parallelism: 2 });
      await buildCrashJob(env, expectedDir, COUNT);
      await env.execute('crash-job reference');
      const expected = Object.fromEntries(OUTPUTS.map((o) => [o, committedLines(expectedDir, o)]));
      assert.ok(expected.windows!.length > 1_000 && expected.big!.length > 100 && expected.idle!.length > 10);

      const out = join(root, 'out');
      const args = [out, join(root, 'checkpoints'), join(root, 'state'), String(COUNT), String(RATE), 'lmdb'];
      const next = seededRandom(SEED);
      const started = Date.now();
      let kills = 0;
      let finished = false;
      while (!finished) {
        // Kill moments: 50–450 ms after start-up, long enough to pass several 40 ms checkpoints (or not, sometimes).
        const killAfter = kills < KILLS ? 50 + Math.floor(next() * 400) : undefined;
        // The last run is not killed: it may go at full speed (the rate changes timing, never the records).
        const run = await runChild(
          killAfter === undefined ? [...args.slice(0, 4), '0', ...args.slice(5)] : args,
          killAfter,
        );
        finished = run.finished;
        if (!finished) kills++;
        if (process.env.WEIR_CRASH_VERBOSE)
          process.stderr.write(
            `crash run ${kills}: ${finished ? 'finished' : `killed after ${killAfter} ms`} at ${Date.now() - started} ms\n`,
          );
        assert.ok(kills <= KILLS + 5, 'the job makes no progress between kills');
      }
      assert.ok(kills >= KILLS, `only ${kills} kills before the job finished; lower RATE or raise COUNT`);
      for (const o of OUTPUTS) {
        const actual = committedLines(out, o);
        assert.equal(
          actual.length,
          expected[o]!.length,
          `output '${o}': ${actual.length} committed records, expected ${expected[o]!.length}`,
        );
        assert.deepEqual(actual, expected[o], `output '${o}' differs from the uninterrupted run`);
      }
    },
  );
});
