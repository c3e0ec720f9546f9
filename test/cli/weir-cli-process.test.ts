// The `weir` command as a process against a real running job: run, list, savepoint, stop, restore, cancel.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { waitFor } from '../support/wait-for.ts';

const CLI = fileURLToPath(new URL('../../src/cli/weir-cli.ts', import.meta.url));
const JOB = fileURLToPath(new URL('./counting-job.ts', import.meta.url));
const COUNT = 30_000;

const dirs: string[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A `weir` process whose output is collected as it arrives. */
interface Weir {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  /** Resolves with the exit code. */
  readonly exit: Promise<number>;
}

function weir(...args: string[]): Weir {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: 'pipe' });
  children.push(child);
  const collect = (stream: NodeJS.ReadableStream, into: string[]): void => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      into.push(...lines);
    });
  };
  const stdout: string[] = [];
  const stderr: string[] = [];
  collect(child.stdout!, stdout);
  collect(child.stderr!, stderr);
  const exit = once(child, 'close').then(([code]) => code as number);
  return { child, stdout, stderr, exit };
}

/** Runs a `weir` command to its end. */
async function weirDone(...args: string[]): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const w = weir(...args);
  const code = await w.exit;
  return { code, stdout: w.stdout, stderr: w.stderr };
}

/** The printed counts (`<subtask>> <residue> <count>`) as [residue, count] pairs. */
function counts(lines: readonly string[]): [number, number][] {
  return lines.map((line) => {
    const match = /^\d+> (\d) (\d+)$/.exec(line);
    assert.ok(match !== null, `a count line: ${line}`);
    return [Number(match[1]), Number(match[2])];
  });
}

/** The job's id and dashboard address, once `weir run` announced them. */
async function started(run: Weir): Promise<{ jid: string; address: string }> {
  return waitFor('weir run to announce the job and its REST API', () => {
    const jid = run.stderr.map((l) => /submitted with JobID ([0-9a-f]{32})$/.exec(l)?.[1]).find(Boolean);
    const address = run.stderr.map((l) => /^Dashboard and REST API: (\S+)$/.exec(l)?.[1]).find(Boolean);
    return jid !== undefined && address !== undefined ? { jid, address } : undefined;
  });
}

describe('weir command line against a running job', () => {
  it('runs a job file, lists it, takes a savepoint, stops it with one, and resumes from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-cli-'));
    dirs.push(dir);
    const checkpoints = join(dir, 'checkpoints');
    // 30,000 numbers at 300 per second: running for 100 s unless stopped (each weir command below starts a
    // process, which takes seconds on a busy machine).
    const run = weir(
      'run',
      '--parallelism',
      '2',
      '--checkpoint-dir',
      checkpoints,
      '--checkpoint-interval',
      '100',
      '--web-ui',
      '0',
      JOB,
      String(COUNT),
      '300',
    );
    const { jid, address } = await started(run);
    assert.match(address, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    await waitFor('counts to be printed', () => run.stdout.length > 100);

    const list = await weirDone('list', '--address', address);
    assert.equal(list.code, 0, list.stderr.join('\n'));
    assert.equal(list.stdout.length, 1);
    assert.match(
      list.stdout[0]!,
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z : ${jid} : cli-counting \\(RUNNING\\)$`),
    );

    const savepoint = await weirDone('savepoint', 'cli-counting', join(dir, 'savepoints'), '-a', address);
    assert.equal(savepoint.code, 0, savepoint.stderr.join('\n'));
    const taken = /^Savepoint completed\. Path: (\S+)$/.exec(savepoint.stdout[0]!)?.[1];
    assert.ok(taken !== undefined && existsSync(join(taken, '_metadata')), savepoint.stdout.join('\n'));
    assert.equal(run.child.exitCode, null, 'a savepoint leaves the job running');

    const stop = await weirDone('stop', jid, '--savepoint', join(dir, 'stopped'), '--address', address);
    assert.equal(stop.code, 0, stop.stderr.join('\n'));
    const stopped = /^Savepoint completed\. Path: (\S+)$/.exec(stop.stdout[0]!)?.[1];
    assert.ok(stopped !== undefined && existsSync(join(stopped, '_metadata')), stop.stdout.join('\n'));
    assert.equal(await run.exit, 0, run.stderr.join('\n'));
    assert.equal(run.stderr.at(-1), `Job 'cli-counting' (${jid}) stopped with savepoint ${stopped}`);
    assert.ok(
      readdirSync(checkpoints).some((f) => /^chk-\d+$/.test(f)),
      '--checkpoint-dir took checkpoints',
    );

    // Every number before the stop was counted once; the rest are counted after resuming, from the saved counts.
    const before = counts(run.stdout);
    assert.ok(before.length > 0 && before.length < COUNT, `stopped part-way: ${before.length}`);
    const resumed = await weirDone('run', '-p', '2', '--from-savepoint', stopped, JOB, String(COUNT), '0');
    assert.equal(resumed.code, 0, resumed.stderr.join('\n'));
    assert.match(resumed.stderr.at(-1)!, /^Job 'cli-counting' \([0-9a-f]{32}\) finished in \d+ ms$/);
    const after = counts(resumed.stdout);
    assert.equal(before.length + after.length, COUNT);
    const last = new Map<number, number>();
    const first = new Map<number, number>();
    for (const [residue, count] of [...before, ...after]) last.set(residue, count);
    for (const [residue, count] of after) if (!first.has(residue)) first.set(residue, count);
    assert.deepEqual(
      [0, 1, 2].map((r) => last.get(r)),
      [10_000, 10_000, 10_000],
    );
    const lastBefore = new Map(before);
    for (const [residue, count] of first) assert.equal(count, lastBefore.get(residue)! + 1, 'counts resume');
  });

  it('cancels a running job: weir run then exits 1 naming the cancellation', async () => {
    const run = weir('run', '--web-ui', '0', JOB, 'Infinity', '1000');
    const { jid, address } = await started(run);
    const cancel = await weirDone('cancel', jid, '--address', address);
    assert.equal(cancel.code, 0, cancel.stderr.join('\n'));
    assert.deepEqual(cancel.stdout, [`Cancelled job ${jid}.`]);
    assert.equal(await run.exit, 1);
    assert.match(run.stderr.at(-1)!, new RegExp(`^Job 'cli-counting' \\(${jid}\\) CANCELED: `));
  });

  it('exits 1 naming the job file when it cannot be loaded, and 1 when the job fails', async () => {
    const missing = await weirDone('run', join(tmpdir(), 'no-such-weir-job.ts'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr[0]!, /^weir run: .*no-such-weir-job\.ts: Cannot find module/);
    // 'x' is no count: the generator refuses it when the job is built.
    const bad = await weirDone('run', JOB, 'x', '0');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr.at(-1)!, /GeneratorSource/);
  });
});
