// The `weir` command as a process against a real running job: run, list, savepoint, stop, restore, cancel.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { waitFor } from '../support/wait-for.ts';

/**
 * Every wait here is for a process of its own (`weir` starts node and loads the job through tsx), which takes seconds
 * on a busy machine: bounded at a minute, not the default 15 s.
 */
const PROCESS_MS = 60_000;
const waitForProcess = <T>(what: string, probe: () => T | undefined | false): Promise<T> =>
  waitFor(what, probe, PROCESS_MS);

const CLI = fileURLToPath(new URL('../../src/cli/weir-cli.ts', import.meta.url));
const JOB = fileURLToPath(new URL('./counting-job.ts', import.meta.url));
const THREADS_JOB = fileURLToPath(new URL('./threads-job.ts', import.meta.url));
const WAITING_JOB = fileURLToPath(new URL('./waiting-job.ts', import.meta.url));
const TWO_JOBS = fileURLToPath(new URL('./two-jobs.ts', import.meta.url));
const COUNT = 30_000;

const dirs: string[] = [];
const children: ChildProcess[] = [];
/** Background processes started by `weir run --detached`. */
const detachedPids: number[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of detachedPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
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
  return waitForProcess('weir run to announce the job and its REST API', () => {
    const jid = run.stderr.map((l) => /submitted with JobID ([0-9a-f]{32})$/.exec(l)?.[1]).find(Boolean);
    const address = run.stderr.map((l) => /^Dashboard and REST API: (\S+)$/.exec(l)?.[1]).find(Boolean);
    return jid !== undefined && address !== undefined ? { jid, address } : undefined;
  });
}

/** Whether a process exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
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
    await waitForProcess('counts to be printed', () => run.stdout.length > 100);

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

  it('cancels a job whose source awaits forever', { timeout: 180_000 }, async () => {
    const run = weir('run', '--web-ui', '0', WAITING_JOB);
    const { jid, address } = await started(run);
    await waitForProcess('the source to wait', () => run.stdout.includes('waiting'));
    const cancel = await weirDone('cancel', jid, '--address', address);
    assert.equal(cancel.code, 0, cancel.stderr.join('\n'));
    assert.deepEqual(cancel.stdout, [`Cancelled job ${jid}.`]);
    assert.equal(await run.exit, 1);
    assert.equal(run.stderr.at(-1), `Job 'cli-waiting' (${jid}) CANCELED: Job 'cli-waiting' was cancelled`);
    assert.deepEqual(run.stdout, ['waiting']);
  });

  it('keeps the REST API after the job finished with --keep-ui, until interrupted', async () => {
    const run = weir('run', '--web-ui', '0', '--keep-ui', JOB, '300', '0');
    const { jid, address } = await started(run);
    const served = await waitForProcess('the job to finish with its UI kept', () =>
      run.stderr.includes(`Dashboard and REST API still served at ${address} until interrupted (Ctrl-C)`),
    );
    assert.equal(served, true);
    assert.match(run.stderr.at(-2)!, new RegExp(`^Job 'cli-counting' \\(${jid}\\) finished in \\d+ ms$`));
    const overview = (await (await fetch(new URL('/jobs/overview', address))).json()) as {
      jobs: { jid: string; state: string }[];
    };
    assert.deepEqual(
      overview.jobs.map((j) => [j.jid, j.state]),
      [[jid, 'FINISHED']],
    );
    const list = await weirDone('list', '--address', address);
    assert.match(list.stdout[0]!, new RegExp(` : ${jid} : cli-counting \\(FINISHED\\)$`));
    assert.equal(run.child.exitCode, null, 'still serving');
    run.child.kill('SIGINT');
    assert.equal(await run.exit, 0);
    // print() at parallelism 1 has no subtask prefix: one running count per number.
    assert.equal(run.stdout.length, 300);
    assert.deepEqual(run.stdout.slice(-3).sort(), ['0 100', '1 100', '2 100']);
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

  it('runs the subtasks on worker threads with --workers, the launcher parallelism reaching every worker', async () => {
    const run = await weirDone('run', '-p', '2', '--workers', '2', THREADS_JOB, '6');
    assert.equal(run.code, 0, run.stderr.join('\n'));
    assert.match(run.stderr.at(-1)!, /^Job 'cli-threads' \([0-9a-f]{32}\) finished in \d+ ms$/);
    // `<subtask>> <n> thread <threadId>`: rebalance deals 0..5 to both map subtasks, each on its own worker.
    const lines = run.stdout.map((line) => /^([12])> (\d) thread (\d+)$/.exec(line));
    assert.ok(
      lines.every((m) => m !== null),
      run.stdout.join('\n'),
    );
    assert.deepEqual(lines.map((m) => Number(m![2])).sort(), [0, 1, 2, 3, 4, 5]);
    const threadOf = new Map(lines.map((m) => [m![1], Number(m![3])]));
    assert.equal(threadOf.size, 2);
    assert.notEqual(threadOf.get('1'), 0, 'subtask 1 on a worker, not the main thread');
    assert.notEqual(threadOf.get('2'), 0, 'subtask 2 on a worker, not the main thread');
    assert.notEqual(threadOf.get('1'), threadOf.get('2'));
    for (const m of lines) assert.equal(Number(m![3]), threadOf.get(m![1]), 'one thread per subtask');

    // Without --workers every subtask runs on the main thread (threadId 0).
    const single = await weirDone('run', '-p', '2', THREADS_JOB, '4');
    assert.equal(single.code, 0, single.stderr.join('\n'));
    assert.deepEqual(single.stdout.map((l) => l.replace(/^\d> \d /, '')).sort(), [
      'thread 0',
      'thread 0',
      'thread 0',
      'thread 0',
    ]);
    const bad = await weirDone('run', '--workers', 'many', THREADS_JOB, '4');
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr[0], "weir: --workers must be an integer >= 1 or 'auto', got 'many'");
  });

  it('runs a job detached: returns with its id and address, then list, stop and cancel operate it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-cli-'));
    dirs.push(dir);
    const log = join(dir, 'job.log');
    const start = async (): Promise<{ jid: string; address: string; pid: number }> => {
      const launched = await weirDone(
        'run',
        '--detached',
        '--web-ui',
        '0',
        '--log-file',
        log,
        JOB,
        'Infinity',
        '1000',
      );
      assert.equal(launched.code, 0, launched.stderr.join('\n'));
      assert.deepEqual(launched.stderr, []);
      assert.equal(launched.stdout.length, 3, launched.stdout.join('\n'));
      const jid = /^Job 'cli-counting' submitted with JobID ([0-9a-f]{32})$/.exec(launched.stdout[0]!)?.[1];
      const address = /^Dashboard and REST API: (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(
        launched.stdout[1]!,
      )?.[1];
      const pid = new RegExp(
        `^Running in the background as process (\\d+); its output goes to ${log.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
      ).exec(launched.stdout[2]!)?.[1];
      assert.ok(jid !== undefined && address !== undefined && pid !== undefined, launched.stdout.join('\n'));
      detachedPids.push(Number(pid));
      return { jid, address, pid: Number(pid) };
    };
    const logLines = (): string[] => readFileSync(log, 'utf8').split('\n');

    // The launcher has returned; the job runs on in its own process.
    const first = await start();
    const list = await weirDone('list', '--address', first.address);
    assert.equal(list.code, 0, list.stderr.join('\n'));
    assert.match(list.stdout[0]!, new RegExp(` : ${first.jid} : cli-counting \\(RUNNING\\)$`));
    await waitForProcess('counts in the log file', () => logLines().some((l) => /^\d 100$/.test(l)));
    const cancel = await weirDone('cancel', first.jid, '--address', first.address);
    assert.equal(cancel.code, 0, cancel.stderr.join('\n'));
    assert.deepEqual(cancel.stdout, [`Cancelled job ${first.jid}.`]);
    await waitForProcess('the background process to end', () => !alive(first.pid));
    assert.match(
      logLines().at(-2)!,
      new RegExp(`^Job 'cli-counting' \\(${first.jid}\\) CANCELED: Job 'cli-counting' was cancelled$`),
    );

    // A second detached run appends to the same file and stops with a savepoint.
    const second = await start();
    assert.notEqual(second.jid, first.jid);
    const stop = await weirDone('stop', 'cli-counting', '--savepoint', join(dir, 'sp'), '-a', second.address);
    assert.equal(stop.code, 0, stop.stderr.join('\n'));
    const path = /^Savepoint completed\. Path: (\S+)$/.exec(stop.stdout[0]!)?.[1];
    assert.ok(path !== undefined && existsSync(join(path, '_metadata')), stop.stdout.join('\n'));
    await waitForProcess('the background process to end', () => !alive(second.pid));
    assert.equal(logLines().at(-2), `Job 'cli-counting' (${second.jid}) stopped with savepoint ${path}`);
  });

  it('reports a detached job that fails before it starts with its output, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-cli-'));
    dirs.push(dir);
    const log = join(dir, 'failed.log');
    const failed = await weirDone('run', '-d', '--web-ui', '0', '--log-file', log, JOB, 'x', '0');
    assert.equal(failed.code, 1);
    assert.deepEqual(failed.stdout, []);
    assert.deepEqual(failed.stderr, [
      `weir run: ${JOB}: GeneratorSource: count must be a non-negative integer or Infinity, got NaN`,
      `weir run: the background process exited with code 1 before a job started; its output is in ${log}`,
    ]);
    const usage = await weirDone('run', '--log-file', log, JOB, '1', '0');
    assert.equal(usage.code, 2);
    assert.equal(usage.stderr[0], 'weir: --log-file needs --detached');
  });
});

/** `weir list`'s lines as [job id, name, state], in the order listed. */
async function listed(address: string): Promise<[string, string, string][]> {
  const list = await weirDone('list', '--address', address);
  assert.equal(list.code, 0, list.stderr.join('\n'));
  return list.stdout.map((line) => {
    const match = /^\d{4}-\d\d-\d\dT[\d:.]+Z : ([0-9a-f]{32}) : (\S+) \((\w+)\)$/.exec(line);
    assert.ok(match !== null, `a job line: ${line}`);
    return [match[1]!, match[2]!, match[3]!];
  });
}

describe('weir run with a job file that runs two jobs', () => {
  it('detached: announces both jobs on one REST address; savepoint and cancel reach the second', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-cli-'));
    dirs.push(dir);
    const log = join(dir, 'jobs.log');
    const launched = await weirDone('run', '-d', '--web-ui', '0', '--log-file', log, TWO_JOBS, 'together');
    assert.equal(launched.code, 0, launched.stderr.join('\n'));
    assert.deepEqual(launched.stderr, []);
    assert.equal(launched.stdout.length, 4, launched.stdout.join('\n'));
    const first = /^Job 'cli-first' submitted with JobID ([0-9a-f]{32})$/.exec(launched.stdout[0]!)?.[1];
    const address = /^Dashboard and REST API: (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(launched.stdout[1]!)?.[1];
    const second = /^Job 'cli-second' submitted with JobID ([0-9a-f]{32})$/.exec(launched.stdout[2]!)?.[1];
    const pid = /^Running in the background as process (\d+); /.exec(launched.stdout[3]!)?.[1];
    assert.ok(
      first !== undefined && address !== undefined && second !== undefined && pid !== undefined,
      launched.stdout.join('\n'),
    );
    detachedPids.push(Number(pid));
    const logLines = (): string[] => readFileSync(log, 'utf8').split('\n');

    // Both jobs on the one address, the later one too (it did not take a port of its own).
    assert.deepEqual(await listed(address), [
      [first, 'cli-first', 'RUNNING'],
      [second, 'cli-second', 'RUNNING'],
    ]);
    await waitForProcess('both jobs to print counts', () => {
      const lines = logLines();
      return lines.includes('cli-first 0 100') && lines.includes('cli-second 0 100');
    });

    const savepoint = await weirDone('savepoint', 'cli-second', join(dir, 'savepoints'), '-a', address);
    assert.equal(savepoint.code, 0, savepoint.stderr.join('\n'));
    assert.deepEqual(savepoint.stderr, [`Triggering savepoint for job ${second}.`]);
    const taken = /^Savepoint completed\. Path: (\S+)$/.exec(savepoint.stdout[0]!)?.[1];
    assert.ok(taken !== undefined && existsSync(join(taken, '_metadata')), savepoint.stdout.join('\n'));
    const inspected = await weirDone('savepoint', 'inspect', taken);
    assert.equal(inspected.code, 0, inspected.stderr.join('\n'));
    assert.match(inspected.stdout.join('\n'), /counts/, "the savepoint holds the second job's counts");

    const cancel = await weirDone('cancel', 'cli-second', '-a', address);
    assert.equal(cancel.code, 0, cancel.stderr.join('\n'));
    assert.deepEqual(cancel.stdout, [`Cancelled job ${second}.`]);
    await waitForProcess('the second job to end', () =>
      logLines().includes(`Job 'cli-second' (${second}) CANCELED: Job 'cli-second' was cancelled`),
    );
    // The first job runs on; the server still lists the cancelled one.
    assert.deepEqual(await listed(address), [
      [first, 'cli-first', 'RUNNING'],
      [second, 'cli-second', 'CANCELED'],
    ]);
    assert.equal(alive(Number(pid)), true, 'the first job keeps the background process running');

    const stop = await weirDone('stop', first, '--savepoint', join(dir, 'stopped'), '-a', address);
    assert.equal(stop.code, 0, stop.stderr.join('\n'));
    const stopped = /^Savepoint completed\. Path: (\S+)$/.exec(stop.stdout[0]!)?.[1];
    assert.ok(stopped !== undefined && existsSync(join(stopped, '_metadata')), stop.stdout.join('\n'));
    await waitForProcess('the background process to end', () => !alive(Number(pid)));
    assert.ok(logLines().includes(`Job 'cli-first' (${first}) stopped with savepoint ${stopped}`));
  });

  it('a job started after the first ended joins its server, which still lists the first', async () => {
    const run = weir('run', '--web-ui', '0', TWO_JOBS, 'in-turn');
    const { jid: first, address } = await started(run);
    const second = await waitForProcess('the second job to start', () =>
      run.stderr
        .map((l) => /^Job 'cli-second' submitted with JobID ([0-9a-f]{32})$/.exec(l)?.[1])
        .find(Boolean),
    );
    assert.deepEqual(await listed(address), [
      [first, 'cli-first', 'FINISHED'],
      [second, 'cli-second', 'RUNNING'],
    ]);
    const cancel = await weirDone('cancel', second, '-a', address);
    assert.equal(cancel.code, 0, cancel.stderr.join('\n'));
    assert.equal(await run.exit, 1);
    // Each job's end is printed as it ends, the first's before the second started.
    assert.deepEqual(
      run.stderr.map((l) => l.replace(/ finished in \d+ ms$/, ' finished')),
      [
        `Job 'cli-first' submitted with JobID ${first}`,
        `Dashboard and REST API: ${address}`,
        `Job 'cli-first' (${first}) finished`,
        `Job 'cli-second' submitted with JobID ${second}`,
        `Dashboard and REST API: ${address}`,
        `Job 'cli-second' (${second}) CANCELED: Job 'cli-second' was cancelled`,
      ],
    );
    // The first job printed its 300 numbers' counts before the second began.
    assert.deepEqual(
      run.stdout
        .filter((l) => l.startsWith('cli-first '))
        .slice(-3)
        .sort(),
      ['cli-first 0 100', 'cli-first 1 100', 'cli-first 2 100'],
    );
  });
});
