// webUi.keepAlive: the REST API outlives its finished or failed job, showing the final state until it is closed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../src/connectors/generator-source.ts';
import { JobExecutionError } from '../src/core/errors.ts';
import { RestartStrategies } from '../src/execution/restart-strategies.ts';
import type { JobClient } from '../src/execution/job-client.ts';
import { refused } from './support/refused.ts';

const dirs: string[] = [];
const clients: JobClient[] = [];
after(async () => {
  for (const client of clients) await client.closeWebUi();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function get(base: string, path: string): Promise<any> {
  const response = await fetch(new URL(path, base));
  assert.equal(response.status, 200, `GET ${path}`);
  return response.json();
}

/** numbers (1,000) → double → discard, checkpointed (its only checkpoint is the final one). */
async function finishingJob(name: string, port: number): Promise<JobClient> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-keep-ui-'));
  dirs.push(dir);
  const env = StreamExecutionEnvironment.create({
    checkpointing: { intervalMs: 3_600_000, storage: dir },
  });
  env
    .fromSource(
      GeneratorSource.of(1_000, (i) => i),
      undefined,
      'numbers',
    )
    .map((n) => n * 2)
    .name('double')
    .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');
  const client = await env.executeAsync(name, { webUi: { port, keepAlive: true } });
  clients.push(client);
  return client;
}

describe('web UI kept alive after the job', () => {
  it('serves a finished job: status FINISHED, final metrics and the checkpoint history, until closed', async () => {
    const client = await finishingJob('kept', 0);
    const base = client.webUiUrl!;
    const result = await client.result;
    assert.equal(result.metrics.find((m) => m.name === 'double')?.recordsIn, 1_000);

    const overview = await get(base, '/jobs/overview');
    assert.deepEqual(
      overview.jobs.map((j: any) => [j.jid, j.name, j.state]),
      [[client.jobId, 'kept', 'FINISHED']],
    );
    assert.equal(overview.jobs[0]['end-time'] >= overview.jobs[0]['start-time'], true);
    const job = await get(base, `/jobs/${client.jobId}`);
    assert.equal(job.state, 'FINISHED');
    assert.deepEqual(
      job.vertices.map((v: any) => [v.name, v.status]),
      [
        ['numbers', 'FINISHED'],
        ['double', 'FINISHED'],
        ['discard', 'FINISHED'],
      ],
    );
    const double = job.vertices.find((v: any) => v.name === 'double');
    assert.deepEqual(
      await get(
        base,
        `/jobs/${client.jobId}/vertices/${double.id}/metrics?get=0.numRecordsIn,0.numRecordsOut`,
      ),
      [
        { id: '0.numRecordsIn', value: '1000' },
        { id: '0.numRecordsOut', value: '1000' },
      ],
    );
    const checkpoints = await get(base, `/jobs/${client.jobId}/checkpoints`);
    assert.deepEqual(checkpoints.counts, {
      restored: 0,
      total: 1,
      in_progress: 0,
      completed: 1,
      failed: 0,
    });
    assert.deepEqual(
      checkpoints.history.map((h: any) => [h.id, h.status, h.is_savepoint]),
      [[1, 'COMPLETED', false]],
    );
    // A finished job cannot be cancelled.
    const cancel = await fetch(new URL(`/jobs/${client.jobId}/cancel`, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(cancel.status, 409);

    await client.closeWebUi();
    assert.equal(await refused(base), true);
  });

  it('serves a failed job: status FAILED and its exception history', async () => {
    const env = StreamExecutionEnvironment.create();
    env.setRestartStrategy(RestartStrategies.noRestart());
    env
      .fromElements(1, 2, 3)
      .map((n) => {
        if (n === 2) throw new Error('two is not allowed');
        return n;
      })
      .name('validate')
      .sinkTo({ createWriter: () => ({ write() {} }) });
    const client = await env.executeAsync('failing', { webUi: { port: 0, keepAlive: true } });
    clients.push(client);
    await assert.rejects(client.result, JobExecutionError);
    const base = client.webUiUrl!;
    assert.equal((await get(base, `/jobs/${client.jobId}`)).state, 'FAILED');
    const exceptions = await get(base, `/jobs/${client.jobId}/exceptions`);
    assert.match(exceptions['root-exception'], /two is not allowed/);
    const entries = exceptions.exceptionHistory.entries;
    assert.deepEqual(
      entries.map((e: any) => [e.exceptionName, e.taskName, e.subtaskIndex, e.attempt, e.record]),
      [['JobExecutionError', 'validate', 0, 1, '2']],
    );
    await client.closeWebUi();
    assert.equal(await refused(base), true);
  });

  it('lets a later job of the process on the same port join the kept server', async () => {
    const first = await finishingJob('first', 0);
    await first.result;
    const port = Number(new URL(first.webUiUrl!).port);
    const second = await finishingJob('second', port);
    assert.equal(second.webUiUrl, first.webUiUrl);
    await second.result;
    const overview = await get(first.webUiUrl!, '/jobs/overview');
    assert.deepEqual(overview.jobs.map((j: any) => [j.name, j.state]).sort(), [
      ['first', 'FINISHED'],
      ['second', 'FINISHED'],
    ]);
    await second.closeWebUi();
    assert.equal(await refused(first.webUiUrl!), true);
  });
});
