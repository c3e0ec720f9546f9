// Worker mode end to end: a job on 2 worker threads commits exactly what it commits on one thread; a worker thread
// that exits, throws outside any operator, is terminated or hangs past the checkpoint timeout fails the attempt into
// its restart strategy, which restores every worker; a record that cannot cross threads is named; and no worker
// thread outlives a job that finished, failed over, was cancelled or stopped with a savepoint.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { buildCrashJob, committedLines, OUTPUTS } from '../crash/crash-job.ts';
import { runChildProcess } from '../support/child-run.ts';
import { terminateIdleWorkers } from '../../src/execution/workers/worker-pool.ts';
import { JobLoadError } from '../../src/core/errors.ts';

const COUNT = 12_000;
/** A run still going by then is hung: a worker thread left running keeps its process from exiting. */
const RUN_TIMEOUT_MS = 120_000;
const job = fileURLToPath(new URL('./worker-job.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'weir-workers-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs the job module as its own process (its workers import it again); resolves with its exit code and output. */
async function runJob(
  name: string,
  workers: number,
  mode: string,
  savepoint?: string,
): Promise<{ code: number | null; stdout: string; stderr: string; out: string }> {
  const out = join(root, name, 'out');
  const args = [out, join(root, name, 'checkpoints'), String(COUNT), String(workers), mode];
  if (savepoint !== undefined) args.push(savepoint);
  const exit = await runChildProcess(job, args, {
    timeoutMs: RUN_TIMEOUT_MS,
    what: `worker-job '${mode}' (its end, then its process exiting: no worker thread may keep it open)`,
  });
  return { code: exit.code, stdout: exit.stdout, stderr: exit.stderr, out };
}

/** The job module's count of the worker threads its process started, and of those still running at its end. */
function threads(stdout: string): { started: number; running: number } {
  const match = /THREADS started=(\d+) running=(\d+)/.exec(stdout);
  assert.ok(match !== null, `no THREADS line in: ${stdout}`);
  return { started: Number(match[1]), running: Number(match[2]) };
}

let reference: Record<string, string[]> | undefined;
/** The committed output of the same job on one thread, without checkpoints or failures. */
async function expected(): Promise<Record<string, string[]>> {
  if (reference !== undefined) return reference;
  const dir = join(root, 'reference');
  // On one thread whatever the suite's default (npm run test:workers): the reference the worker runs must match.
  const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: 1 });
  await buildCrashJob(env, dir, COUNT);
  const result = await env.execute('worker-job reference');
  assert.equal(result.workerStartupMs, 0);
  reference = Object.fromEntries(OUTPUTS.map((o) => [o, committedLines(dir, o)]));
  assert.ok(reference.windows!.length > 100 && reference.big!.length > 10 && reference.fraud!.length > 0);
  return reference;
}

describe('worker mode', { timeout: 600_000 }, () => {
  for (const workers of [1, 2]) {
    it(`commits the single-thread output with ${workers} worker(s): windows, timers, MapState, side outputs, CEP`, async () => {
      const run = await runJob(`plain-${workers}`, workers, 'plain');
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /DONE/);
      const want = await expected();
      for (const output of OUTPUTS) assert.deepEqual(committedLines(run.out, output), want[output], output);
      // One worker means the calling thread: no worker thread at all.
      assert.deepEqual(threads(run.stdout), { started: workers > 1 ? workers : 0, running: 0 });
    });
  }

  // How the first attempt fails in each mode (the job module's restart log line), its worker threads replaced.
  const deaths: [mode: string, how: string, failure: RegExp][] = [
    ['exit', 'exits', /Worker \d of job 'worker-job' exited unexpectedly \(exit code 9\)/],
    [
      'throw',
      'throws outside any operator',
      /Worker \d of job 'worker-job' died: thrown on cue outside any operator/,
    ],
    ['terminate', 'is terminated', /Worker 2 of job 'worker-job' exited unexpectedly \(exit code 1\)/],
  ];
  for (const [mode, how, failure] of deaths) {
    it(`restarts every worker from the latest checkpoint when one ${how}, with exactly-once output`, async () => {
      const run = await runJob(mode, 2, mode);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(existsSync(join(run.out, 'worker-died')), 'the worker died on cue');
      const restart = /failed \((.*)\); restart 1 .* from checkpoint \d+/.exec(run.stderr);
      assert.ok(restart !== null, run.stderr);
      assert.match(restart[1]!, failure);
      assert.doesNotMatch(run.stderr, /restart 2/);
      assert.match(run.stdout, /DONE/);
      const want = await expected();
      for (const output of OUTPUTS) assert.deepEqual(committedLines(run.out, output), want[output], output);
      // Two threads per attempt, and none left.
      assert.deepEqual(threads(run.stdout), { started: 4, running: 0 });
    });
  }

  it('fails a checkpoint naming the subtasks of a hung worker thread, then restarts every worker', async () => {
    const run = await runJob('hang', 2, 'hang');
    assert.equal(run.code, 0, run.stderr);
    const hung = readFileSync(join(run.out, 'worker-died'), 'utf8');
    assert.match(hung, /^subtask [01]$/);
    const index = hung.slice('subtask '.length);
    const failed = /job 'worker-job' failed \((.*)\); restart 1 .* from checkpoint \d+/.exec(run.stderr);
    assert.ok(failed !== null, run.stderr);
    const slot = `'probe' subtask ${index}, 'die-on-cue' subtask ${index}, 'probe-sink' subtask ${index}`;
    const slotAfterSource = `(?:'probe' subtask ${index}, )?'die-on-cue' subtask ${index}, 'probe-sink' subtask ${index}`;
    // Hung while a checkpoint was in flight: it times out naming the subtasks of the hung thread's slot (its source
    // may have acknowledged, if its barrier left before the record the function hangs on). Hung while a completed
    // checkpoint was being committed: the commit is not confirmed in time by that thread, named with its subtasks.
    assert.match(
      failed[1]!,
      new RegExp(
        `^Job 'worker-job': (?:1 consecutive checkpoint failure\\(s\\) exceed the tolerable 0; last: checkpoint \\d+ timed out after 3000 ms waiting for ${slotAfterSource}|checkpoint \\d+ is durable, but its commit was not confirmed within 3000 ms by worker ${Number(index) + 1}, which runs ${slot})$`,
      ),
    );
    assert.match(run.stdout, /DONE/);
    // The hung thread was terminated (a blocked thread ends only so), and its replacements ended with the job.
    assert.deepEqual(threads(run.stdout), { started: 4, running: 0 });
  });

  it('fails a record that cannot cross threads, naming the operator, the edge and the field', async () => {
    const run = await runJob('unserializable', 2, 'unserializable');
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /FAILED A record emitted by 'with-callback' \(subtask \d\/2\) cannot cross threads on edge 'with-callback' → 'after-rebalance' \(rebalance\), subtask \d → \d: record\.details\.recheck is a function/,
    );
  });

  it('fails a record that does not fit its declared type, naming the operator, the edge and the field', async () => {
    const run = await runJob('mistyped', 2, 'mistyped');
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      // Refused where it is written, inside the operator's call: the failure names the record it was processing too.
      /FAILED Operator 'amounts' \(subtask (\d)\/2\) failed while processing record \{"id":\d+,"card":"card-\d+","amount":\d+,"ts":\d+\}: A record emitted by 'amounts' \(subtask \1\/2\) cannot cross threads on edge 'amounts' → 'after-rebalance' \(rebalance\), subtask \d → \d: field 'amount' holds the string "\d+(\.\d+)?" where \{id: number, card: string, amount: number, ts: number\} declares number/,
    );
  });

  it('cancelled, ends every worker thread (the process exits on its own)', async () => {
    const run = await runJob('cancel', 2, 'cancel');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /CANCELLED JobCancelledError/);
    assert.deepEqual(threads(run.stdout), { started: 2, running: 0 });
  });

  it('stopped with a savepoint, ends every worker thread; the savepoint restores to the single-thread output', async () => {
    // The process exits on its own only when no worker thread is left (workers keep a process alive).
    const stop = await runJob('stop', 2, 'stop');
    assert.equal(stop.code, 0, stop.stderr);
    const stopped = /STOPPED (\S+) true/.exec(stop.stdout);
    assert.ok(stopped !== null, stop.stdout + stop.stderr);
    assert.deepEqual(threads(stop.stdout), { started: 2, running: 0 });
    // The job module imports the CLI, so its workers load the CLI too; the savepoint reads back through it.
    assert.match(stop.stdout, /INSPECTED 0 savepoint \d+ of job 'worker-job'.*: p=2, \d+ key groups/);
    // Stopped mid-input: not every window is committed yet.
    const want = await expected();
    const before = committedLines(stop.out, 'windows').length;
    assert.ok(before < want.windows!.length, `${before} of ${want.windows!.length} windows`);
    const resume = await runJob('stop', 2, 'resume', stopped[1]!);
    assert.equal(resume.code, 0, resume.stderr);
    assert.match(resume.stdout, /DONE/);
    for (const output of OUTPUTS) assert.deepEqual(committedLines(resume.out, output), want[output], output);
  });

  it('finishes when its main-thread sink receives its last batches after both workers reported the end', async () => {
    const { job, result, COUNT: count } = await import('./main-thread-sink-job.ts');
    const want = Array.from({ length: count }, (_, i) => i * 2);
    assert.deepEqual(
      [...result].sort((a, b) => a - b),
      want,
    );
    // The time spent starting the workers is reported apart, and is part of the job's run time.
    assert.ok(job.workerStartupMs > 0 && job.workerStartupMs < job.netRuntimeMs, JSON.stringify(job));
  });
  it('runs a main-thread source on the main thread and its downstream operators in the workers', async () => {
    const { result, COUNT: count, KEYS: keys } = await import('./main-thread-source-job.ts');
    assert.equal(result.readers, 2);
    assert.equal(result.received.length, count);
    // Each key's last sum is the sum of its numbers, whatever the order in which the two source subtasks' records met.
    const final = new Map<number, number>();
    for (const r of result.received) final.set(r.key, Math.max(final.get(r.key) ?? 0, r.sum));
    const want = new Map<number, number>();
    for (let i = 0; i < count; i++) want.set(i % keys, (want.get(i % keys) ?? 0) + i);
    assert.deepEqual(final, want);
  });
  it('runs the next job of the process on the threads a job kept (reuseWorkers), with the environment of that moment', async () => {
    const { runReuseJob } = await import('./reuse-job.ts');
    const runs: string[][] = [];
    try {
      for (const run of ['1', '2']) {
        process.env.WEIR_REUSE_TEST_RUN = run;
        runs.push(await runReuseJob());
      }
    } finally {
      delete process.env.WEIR_REUSE_TEST_RUN;
      await terminateIdleWorkers();
    }
    const [first, second] = runs as [string[], string[]];
    const fields = (values: string[]) => values.map((v) => v.split(' '));
    const numbers = Array.from({ length: 1000 }, (_, i) => i);
    for (const [run, values] of [
      ['1', first],
      ['2', second],
    ] as const) {
      assert.deepEqual(
        fields(values).map(([r]) => r),
        Array(1000).fill(run),
      );
      assert.deepEqual(
        fields(values)
          .map(([, n]) => Number(n))
          .sort((a, b) => a - b),
        numbers,
      );
    }
    const threads = (values: string[]) => [...new Set(fields(values).map(([, , t]) => t))].sort();
    assert.equal(threads(first).length, 2);
    assert.deepEqual(threads(second), threads(first));
  });
  it('starts workers with the heap limits asked for (workerResourceLimits) or the default, and keeps them apart from other limits', async () => {
    const { runReuseJob } = await import('./reuse-job.ts');
    const runs: string[][] = [];
    try {
      for (const [run, young] of [
        ['1', '64'],
        ['2', '96'],
        ['3', '64'],
        ['4', undefined],
      ] as const) {
        process.env.WEIR_REUSE_TEST_RUN = run;
        if (young === undefined) delete process.env.WEIR_REUSE_TEST_YOUNG_MB;
        else process.env.WEIR_REUSE_TEST_YOUNG_MB = young;
        runs.push(await runReuseJob());
      }
    } finally {
      delete process.env.WEIR_REUSE_TEST_RUN;
      delete process.env.WEIR_REUSE_TEST_YOUNG_MB;
      await terminateIdleWorkers();
    }
    const column = (values: string[], at: number) =>
      [...new Set(values.map((v) => v.split(' ')[at]!))].sort();
    const [first, second, third, fourth] = runs as [string[], string[], string[], string[]];
    assert.deepEqual(column(first, 3), ['64']);
    assert.deepEqual(column(second, 3), ['96']);
    assert.deepEqual(column(third, 3), ['64']);
    // Without limits of its own a job gets the default young generation (DEFAULT_WORKER_RESOURCE_LIMITS).
    assert.deepEqual(column(fourth, 3), ['192']);
    assert.equal(column(first, 2).length, 2);
    // Run 2's limits differ: it starts its own workers; run 3 takes the ones run 1 kept.
    assert.deepEqual(
      column(second, 2).filter((t) => column(first, 2).includes(t)),
      [],
    );
    assert.deepEqual(column(third, 2), column(first, 2));
  });
  for (const [mode, says] of [
    ['throws', /could not be loaded in a worker: the orders table does not exist/],
    ['no-execute', /finished loading in a worker without calling execute\('unloadable'\)/],
  ] as const) {
    it(`fails at once, without restarts, when its module ${mode === 'throws' ? 'throws while it loads' : 'does not call execute()'} in a worker`, async () => {
      const marker = join(root, `unloadable-${mode}`);
      const module = new URL('./unloadable-job.ts', import.meta.url);
      module.search = new URLSearchParams({ mode, marker }).toString();
      await assert.rejects(import(module.href), (error: Error) => {
        assert.ok(error instanceof JobLoadError, `${error.name}: ${error.message}`);
        assert.match(error.message, says);
        assert.ok(error.message.includes('unloadable-job.ts'), error.message);
        return true;
      });
      // One attempt: the workers loaded the module once each at most (the first failure may end the other worker
      // before it loads); the restart strategy's three restarts, each loading it again, were not taken.
      const loads = readFileSync(marker, 'utf8').split('\n').filter(Boolean).length;
      assert.ok(loads >= 1 && loads <= 2, `the module was loaded ${loads} times in workers`);
    });
  }
});
