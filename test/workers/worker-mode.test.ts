// Worker mode end to end: a job on 2 worker threads commits exactly what it commits on one thread, survives a worker
// that dies, names a record that cannot cross threads, and leaves no thread behind when cancelled.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { buildCrashJob, committedLines, OUTPUTS } from '../crash/crash-job.ts';

const COUNT = 12_000;
const job = fileURLToPath(new URL('./worker-job.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'weir-workers-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs the job module as its own process (its workers import it again); resolves with its exit code and output. */
function runJob(
  name: string,
  workers: number,
  mode: string,
  savepoint?: string,
): Promise<{ code: number | null; stdout: string; stderr: string; out: string }> {
  const out = join(root, name, 'out');
  const args = [job, out, join(root, name, 'checkpoints'), String(COUNT), String(workers), mode];
  if (savepoint !== undefined) args.push(savepoint);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => resolve({ code, stdout, stderr, out }));
  });
}

let reference: Record<string, string[]> | undefined;
/** The committed output of the same job on one thread, without checkpoints or failures. */
async function expected(): Promise<Record<string, string[]>> {
  if (reference !== undefined) return reference;
  const dir = join(root, 'reference');
  const env = StreamExecutionEnvironment.create({ parallelism: 2 });
  await buildCrashJob(env, dir, COUNT);
  const result = await env.execute('worker-job reference');
  assert.equal(result.workerStartupMs, 0);
  reference = Object.fromEntries(OUTPUTS.map((o) => [o, committedLines(dir, o)]));
  assert.ok(reference.windows!.length > 100 && reference.big!.length > 10 && reference.fraud!.length > 0);
  return reference;
}

describe('worker mode', { timeout: 300_000 }, () => {
  for (const workers of [1, 2]) {
    it(`commits the single-thread output with ${workers} worker(s): windows, timers, MapState, side outputs, CEP`, async () => {
      const run = await runJob(`plain-${workers}`, workers, 'plain');
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /DONE/);
      const want = await expected();
      for (const output of OUTPUTS) assert.deepEqual(committedLines(run.out, output), want[output], output);
    });
  }

  it('restarts every worker from the latest checkpoint when one exits, with exactly-once output', async () => {
    const run = await runJob('exit', 2, 'exit');
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(join(run.out, 'worker-exited')), 'the worker exited on cue');
    assert.match(
      run.stderr,
      /failed \(Worker \d of job 'worker-job' exited unexpectedly \(exit code 9\)\); restart 1 .* from checkpoint \d+/,
    );
    assert.match(run.stdout, /DONE/);
    const want = await expected();
    for (const output of OUTPUTS) assert.deepEqual(committedLines(run.out, output), want[output], output);
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
  });

  it('stopped with a savepoint, ends every worker thread; the savepoint restores to the single-thread output', async () => {
    // The process exits on its own only when no worker thread is left (workers keep a process alive).
    const stop = await runJob('stop', 2, 'stop');
    assert.equal(stop.code, 0, stop.stderr);
    const stopped = /STOPPED (\S+) true/.exec(stop.stdout);
    assert.ok(stopped !== null, stop.stdout + stop.stderr);
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
});
