// Stop-with-savepoint: in process through the JobClient, and on SIGTERM in a child process; both resume exactly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { loadSavepoint } from '../../src/execution/checkpoint-storage.ts';
import { CollectSink } from '../../src/connectors/collect-sink.ts';
import { buildCountingJob, expectedCounts, lastCounts, type Count } from './counting-job.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'weir-stop-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The generator's next index in a savepoint (its one split's): how many numbers the job had read. */
function readPosition(path: string): number {
  return (loadSavepoint(path).operators['numbers']!.operatorState[0] as { next: number }[])[0]!.next;
}

/** Restores the counting job from `path` over `total` numbers and returns its final counts. */
async function resume(path: string, total: number): Promise<Count[]> {
  const env = StreamExecutionEnvironment.create();
  const sink = new CollectSink<Count>();
  buildCountingJob(env, total, sink);
  await env.execute('resumed', { savepointPath: path });
  return lastCounts(sink.values);
}

describe('stop-with-savepoint', () => {
  it('stops a running job right after its savepoint; a restore from it counts every number once', async () => {
    const env = StreamExecutionEnvironment.create();
    const sink = new CollectSink<Count>();
    buildCountingJob(env, Number.POSITIVE_INFINITY, sink);
    const client = await env.executeAsync('counting');
    while (sink.values.length < 1_000) await new Promise((resolve) => setImmediate(resolve));
    const path = await client.stopWithSavepoint(join(dir, 'in-process'));
    const result = await client.result;
    assert.equal(result.stoppedWithSavepoint, path);
    const position = readPosition(path);
    // Nothing after the savepoint's barrier was read: the counts reported equal the position exactly.
    assert.deepEqual(lastCounts(sink.values), expectedCounts(position));
    assert.deepEqual(await resume(path, position + 1_000), expectedCounts(position + 1_000));
  });

  it('stops bounded parallel sources, driven in turn, once every subtask has put in its barrier', async () => {
    // Regression: the first source subtask to see the stop waited for the savepoint before the others had their
    // turn to inject its barrier, so the savepoint could only time out.
    const total = 300_000;
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const sink = new CollectSink<Count>();
    buildCountingJob(env, total, sink);
    const client = await env.executeAsync('counting');
    while (sink.values.length < 1_000) await new Promise((resolve) => setImmediate(resolve));
    const path = await client.stopWithSavepoint(join(dir, 'parallel'));
    assert.equal((await client.result).stoppedWithSavepoint, path);
    const before = sink.values.length;
    assert.ok(before < total, `stopped part-way: ${before}`);
    const resumed = StreamExecutionEnvironment.create({ parallelism: 2 });
    const rest = new CollectSink<Count>();
    buildCountingJob(resumed, total, rest);
    await resumed.execute('resumed', { savepointPath: path });
    assert.equal(before + rest.values.length, total);
    assert.deepEqual(lastCounts(rest.values), expectedCounts(total));
  });

  it('on SIGTERM, a job run with savepointOnSigterm stops with a savepoint and the process exits normally', async () => {
    const child = fileURLToPath(new URL('./sigterm-child.ts', import.meta.url));
    const proc = spawn(process.execPath, ['--import', 'tsx', child, join(dir, 'sigterm')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      proc.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('RUNNING\n')) resolve();
      }),
    );
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    const path = /STOPPED (\S+)\n/.exec(stdout)?.[1];
    assert.ok(path !== undefined, stdout);
    assert.match(stderr, /weir: SIGTERM: stopping job 'counting' with a savepoint under /);
    assert.match(stderr, new RegExp(`weir: job 'counting' stopped with savepoint ${path}`));
    const position = readPosition(path);
    assert.ok(position >= 1_000, `position ${position}`);
    assert.deepEqual(await resume(path, position + 500), expectedCounts(position + 500));
  });
});
