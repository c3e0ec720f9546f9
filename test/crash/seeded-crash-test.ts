// The crash test's procedure, shared by its single-thread and worker-thread forms: an uninterrupted reference run,
// then runs of the crash job in child processes, each killed at the next seeded moment of the exactly-once
// protocol, until one finishes; the committed output must equal the reference record for record.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { buildCrashJob, committedLines, OUTPUTS } from './crash-job.ts';
import { formatKillPlan, seededKillPlans } from './kill-switch.ts';
import { runPlannedChild, type PlannedRun } from './run-crash-child.ts';

export interface SeededCrashTest {
  /** A fresh folder for the reference, the output, checkpoints and local state. */
  readonly root: string;
  /** Input records of the job. */
  readonly count: number;
  /** Input records per second while runs are killed (the last run goes at full speed). */
  readonly rate: number;
  readonly kills: number;
  /** Records one kill switch may pass before the process dies anyway, so every run dies within a few checkpoints. */
  readonly readCap: number;
  readonly seed: number;
  /** Sink writers one kill switch sees (each seals, completes and commits every checkpoint). */
  readonly writers: number;
  readonly backend: 'heap' | 'lmdb';
  /** Worker threads of the killed runs (1: the calling thread). */
  readonly workers: number;
  /** The least number of 'big' outputs the reference must have, so the CEP output is exercised. */
  readonly minBig: number;
}

export async function runSeededCrashTest(test: SeededCrashTest): Promise<void> {
  const { root, count, readCap } = test;
  const expectedDir = join(root, 'expected');
  // The reference is an uninterrupted run on one thread, whatever the suite's default (npm run test:workers).
  const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: 1 });
  await buildCrashJob(env, expectedDir, count);
  await env.execute('crash-job reference');
  const expected = Object.fromEntries(OUTPUTS.map((o) => [o, committedLines(expectedDir, o)]));
  assert.ok(
    expected.windows!.length > 1_000 && expected.big!.length > test.minBig && expected.idle!.length > 10,
  );

  const out = join(root, 'out');
  const args = (rate: number) => [
    out,
    join(root, 'checkpoints'),
    join(root, 'state'),
    String(count),
    String(rate),
    test.backend,
    'cep',
    String(test.workers),
  ];
  const plans = seededKillPlans(test.kills, test.seed, test.writers);
  const runs: PlannedRun[] = [];
  for (let i = 0; ; i++) {
    // The last run is not killed: it may go at full speed (the rate changes timing, never the records).
    const plan = i < plans.length ? formatKillPlan(plans[i]!) : 'none';
    const run = await runPlannedChild([...args(plan === 'none' ? 0 : test.rate), plan, String(readCap)]);
    runs.push(run);
    if (process.env.WEIR_CRASH_VERBOSE)
      process.stderr.write(
        `crash run ${i}: from checkpoint ${run.restoredFrom}, ${run.killed === undefined ? 'finished' : `killed at ${run.killed} (planned ${plan})`}\n`,
      );
    if (run.killed === undefined) break;
    assert.ok(
      run.killed === plan || run.killed === `read:${readCap}`,
      `the child died at ${run.killed}, planned ${plan}`,
    );
  }
  const kills = runs.filter((r) => r.killed !== undefined).length;
  assert.equal(kills, test.kills, `only ${kills} kills before the job finished; raise the record count`);
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
}
