// Exactly-once across worker threads: the crash job on 2 worker threads kills its process at seeded moments of its
// own progress (a record read, a sink pre-commit, a checkpoint completed or committed on one worker thread); the
// committed output equals an uninterrupted single-thread run's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { buildCrashJob, committedLines, OUTPUTS } from './crash-job.ts';
import { formatKillPlan, seededKillPlans } from './kill-switch.ts';
import { runPlannedChild, type PlannedRun } from './run-crash-child.ts';

const COUNT = 36_000;
const RATE = 4_000;
const KILLS = 8;
/**
 * Records one worker thread may pass to its kill switch before the process dies anyway. Each thread reads one of the
 * two source subtasks' halves (18,000 records), so 8 runs of at most 2,000 records each cannot finish the job.
 */
const READ_CAP = 2_000;
const SEED = 20_261_201;
/** Sink writers one switch sees: each worker thread runs one subtask of each of the five sinks. */
const WRITERS_PER_THREAD = OUTPUTS.length;
const root = mkdtempSync(join(tmpdir(), 'weir-crash-workers-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('crash test at 2 worker threads: exactly-once under SIGKILL', () => {
  it(
    `commits exactly the uninterrupted output after ${KILLS} kills at seeded protocol moments`,
    { timeout: 900_000 },
    async () => {
      const expectedDir = join(root, 'expected');
      // The reference is an uninterrupted run on one thread, whatever the suite's default (npm run test:workers).
      const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: 1 });
      await buildCrashJob(env, expectedDir, COUNT);
      await env.execute('crash-job reference');
      const expected = Object.fromEntries(OUTPUTS.map((o) => [o, committedLines(expectedDir, o)]));
      assert.ok(expected.windows!.length > 1_000 && expected.big!.length > 50 && expected.idle!.length > 10);

      const out = join(root, 'out');
      const args = (rate: number) => [
        out,
        join(root, 'checkpoints'),
        join(root, 'state'),
        String(COUNT),
        String(rate),
        'heap',
        'cep',
        '2',
      ];
      const plans = seededKillPlans(KILLS, SEED, WRITERS_PER_THREAD);
      const runs: PlannedRun[] = [];
      for (let i = 0; ; i++) {
        // The last run is not killed: it may go at full speed (the rate changes timing, never the records).
        const plan = i < plans.length ? formatKillPlan(plans[i]!) : 'none';
        const run = await runPlannedChild([...args(plan === 'none' ? 0 : RATE), plan, String(READ_CAP)]);
        runs.push(run);
        if (process.env.WEIR_CRASH_VERBOSE)
          process.stderr.write(
            `crash run ${i}: from checkpoint ${run.restoredFrom}, ${run.killed === undefined ? 'finished' : `killed at ${run.killed} (planned ${plan})`}\n`,
          );
        if (run.killed === undefined) break;
        assert.ok(
          run.killed === plan || run.killed === `read:${READ_CAP}`,
          `the child died at ${run.killed}, planned ${plan}`,
        );
      }
      const kills = runs.filter((r) => r.killed !== undefined).length;
      assert.equal(kills, KILLS, `only ${kills} kills before the job finished; raise COUNT`);
      // Progress between kills: later runs restore from later checkpoints.
      assert.ok(runs.at(-1)!.restoredFrom > 0, 'the last run restored from no checkpoint');
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
