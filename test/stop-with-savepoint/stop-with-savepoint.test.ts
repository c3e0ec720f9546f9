// Stop-with-savepoint in process, through the JobClient: the job stops right after the savepoint and resumes exactly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { CollectSink } from '../../src/connectors/collect-sink.ts';
import {
  buildCountingJob,
  expectedCounts,
  lastCounts,
  readPosition,
  resume,
  type Count,
} from './counting-job.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'weir-stop-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

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
});
