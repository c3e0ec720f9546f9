// The REST API of a running job: Flink's routes and shapes, savepoint / stop / cancel, tokens, exception records.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigurationError } from '../src/core/errors.ts';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { JobCancelledError } from '../src/execution/job-cancelled-error.ts';
import type { JobClient } from '../src/execution/job-client.ts';
import { RestartStrategies } from '../src/execution/restart-strategies.ts';
import { GeneratorSource } from '../src/connectors/generator-source.ts';
import { WatermarkStrategy } from '../src/time/watermark-strategy.ts';
import type { WebUiOptions } from '../src/web/web-server.ts';
import { waitFor } from './support/wait-for.ts';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-rest-'));
  dirs.push(dir);
  return dir;
}

interface Tick {
  readonly n: number;
  readonly ts: number;
}

/** source (p1) → keyBy → map (p2) → sink (p2), unbounded, 2,000 records/s: runs until stopped. */
async function startJob(webUi: WebUiOptions): Promise<JobClient> {
  const env = StreamExecutionEnvironment.create({ parallelism: 2, metrics: { intervalMs: 100 } });
  env
    .fromSource(
      GeneratorSource.of(Infinity, (i): Tick => ({ n: i, ts: i * 10 }), { ratePerSecond: 2000 }),
      WatermarkStrategy.forMonotonousTimestamps<Tick>().withTimestampAssigner((t) => t.ts),
      'ticks',
    )
    .setParallelism(1)
    .keyBy((t) => t.n % 4)
    .map((t) => t.n * 2)
    .name('double')
    .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');
  return env.executeAsync('ticking', { webUi });
}

async function get(base: string, path: string): Promise<any> {
  const response = await fetch(new URL(path, base));
  assert.equal(response.status, 200, `GET ${path}`);
  return response.json();
}

async function send(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers = {},
): Promise<Response> {
  return fetch(new URL(path, base), {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('REST API', () => {
  it('describes a running job, its vertices, watermarks, back-pressure and metrics; takes a savepoint and stops with one', async () => {
    const client = await startJob({ port: 0 });
    const base = client.webUiUrl!;
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const jid = client.jobId;
    try {
      const job = await waitFor('records to reach the sink', async () => {
        const j = await get(base, `/jobs/${jid}`);
        return j.state === 'RUNNING' && j.vertices[2].metrics['read-records'] > 0 ? j : undefined;
      });
      assert.deepEqual(await get(base, '/jobs'), { jobs: [{ id: jid, status: 'RUNNING' }] });
      const overview = await get(base, '/jobs/overview');
      assert.equal(overview.jobs[0].name, 'ticking');
      assert.equal(overview.jobs[0].tasks.total, 1 + 2 + 2);
      assert.deepEqual(
        job.vertices.map((v: any) => [v.name, v.parallelism]),
        [
          ['ticks', 1],
          ['double', 2],
          ['discard', 2],
        ],
      );
      const names = job.plan.nodes.map((n: any) => n.description);
      assert.ok(names.includes('ticks') && names.includes('double') && names.includes('discard'));
      const double = job.plan.nodes.find((n: any) => n.description === 'double');
      const ticks = job.plan.nodes.find((n: any) => n.description === 'ticks');
      assert.equal(double.parallelism, 2);
      assert.deepEqual(
        double.inputs.map((i: any) => [i.id, i.ship_strategy]),
        [[ticks.id, 'HASH']],
      );
      const vertex = await get(base, `/jobs/${jid}/vertices/${double.id}`);
      assert.deepEqual(
        vertex.subtasks.map((s: any) => [s.subtask, s.status]),
        [
          [0, 'RUNNING'],
          [1, 'RUNNING'],
        ],
      );
      const watermarks = await get(base, `/jobs/${jid}/vertices/${double.id}/watermarks`);
      assert.deepEqual(
        watermarks.map((w: any) => w.id),
        [
          '0.currentInputWatermark',
          '0.currentOutputWatermark',
          '1.currentInputWatermark',
          '1.currentOutputWatermark',
        ],
      );
      const backPressure = await get(base, `/jobs/${jid}/vertices/${double.id}/backpressure`);
      assert.equal(backPressure.status, 'ok');
      assert.equal(backPressure.subtasks.length, 2);
      for (const s of backPressure.subtasks)
        assert.ok(['ok', 'low', 'high'].includes(s['backpressure-level']));
      const available = await get(base, `/jobs/${jid}/vertices/${double.id}/metrics`);
      assert.ok(available.some((m: any) => m.id === '1.numRecordsInPerSecond'));
      const values = await get(
        base,
        `/jobs/${jid}/vertices/${double.id}/metrics?get=0.numRecordsIn,1.numRecordsIn`,
      );
      assert.deepEqual(
        values.map((m: any) => m.id),
        ['0.numRecordsIn', '1.numRecordsIn'],
      );
      const [summed] = await get(
        base,
        `/jobs/${jid}/vertices/${double.id}/subtasks/metrics?get=numRecordsIn`,
      );
      // Read after the per-subtask values, while records flow: the sum can only have grown.
      assert.ok(Number(summed.sum) >= Number(values[0].value) + Number(values[1].value));
      assert.ok(Number(summed.sum) > 0);
      const jobMetrics = await get(base, `/jobs/${jid}/metrics?get=numRestarts`);
      assert.deepEqual(jobMetrics, [{ id: 'numRestarts', value: '0' }]);

      // A savepoint needs a JSON body naming its directory.
      const notJson = await fetch(new URL(`/jobs/${jid}/savepoints`, base), { method: 'POST', body: 'x' });
      assert.equal(notJson.status, 415);
      assert.equal((await send(base, 'POST', `/jobs/${jid}/savepoints`, {})).status, 400);
      const dir = tempDir();
      const trigger = await send(base, 'POST', `/jobs/${jid}/savepoints`, { 'target-directory': dir });
      assert.equal(trigger.status, 202);
      const { 'request-id': requestId } = (await trigger.json()) as { 'request-id': string };
      const done = await waitFor('the savepoint', async () => {
        const s = await get(base, `/jobs/${jid}/savepoints/${requestId}`);
        return s.status.id === 'COMPLETED' ? s : undefined;
      });
      assert.ok(existsSync(join(done.operation.location, '_metadata')), done.operation.location);
      const checkpoints = await get(base, `/jobs/${jid}/checkpoints`);
      assert.equal(checkpoints.counts.completed, 1);
      assert.equal(checkpoints.history[0].status, 'COMPLETED');
      assert.equal(checkpoints.history[0].is_savepoint, true);
      assert.equal(checkpoints.history[0].external_path, done.operation.location);
      assert.equal(checkpoints.latest.savepoint.id, checkpoints.history[0].id);

      // Stop with a savepoint: the job ends as FINISHED and its result resolves.
      const stop = await send(base, 'POST', `/jobs/${jid}/stop`, { targetDirectory: dir });
      assert.equal(stop.status, 202);
      const { 'request-id': stopId } = (await stop.json()) as { 'request-id': string };
      const stopped = await waitFor('stop with savepoint', async () => {
        const s = await get(base, `/jobs/${jid}/savepoints/${stopId}`);
        return s.status.id === 'COMPLETED' ? s : undefined;
      });
      assert.ok(existsSync(join(stopped.operation.location, '_metadata')));
      const result = await client.result;
      assert.equal(result.jobName, 'ticking');
      assert.equal(client.getJobStatus(), 'FINISHED');
    } finally {
      await client.cancel();
    }
  });

  it('refuses to bind beyond loopback without a token, and then demands it for changes', async () => {
    await assert.rejects(startJob({ port: 0, host: '0.0.0.0' }), (e: unknown) => {
      assert.ok(e instanceof ConfigurationError);
      assert.match(e.message, /binds to 0\.0\.0\.0, which is not a loopback address: set webUi\.token/);
      return true;
    });
    const client = await startJob({ port: 0, host: '0.0.0.0', token: 's3cret' });
    const base = client.webUiUrl!.replace('0.0.0.0', '127.0.0.1');
    const jid = client.jobId;
    try {
      assert.equal((await get(base, `/jobs/${jid}`)).jid, jid); // reading needs no token
      assert.equal((await send(base, 'PATCH', `/jobs/${jid}?mode=cancel`)).status, 401);
      const wrong = await send(
        base,
        'POST',
        `/jobs/${jid}/savepoints`,
        { 'target-directory': tempDir() },
        {
          authorization: 'Bearer nope!!',
        },
      );
      assert.equal(wrong.status, 401);
      assert.equal(client.getJobStatus() === 'CANCELED', false);
      const cancel = await send(base, 'PATCH', `/jobs/${jid}?mode=cancel`, undefined, {
        authorization: 'Bearer s3cret',
      });
      assert.equal(cancel.status, 202);
      await assert.rejects(client.result, JobCancelledError);
      assert.equal(client.getJobStatus(), 'CANCELED');
    } finally {
      await client.cancel();
    }
  });

  it('cancels a job on POST /jobs/:jid/cancel and reports the package version in /config and /overview', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const client = await startJob({ port: 0 });
    const base = client.webUiUrl!;
    const jid = client.jobId;
    try {
      await waitFor('the job to run', () => client.getJobStatus() === 'RUNNING');
      assert.deepEqual(await get(base, '/config'), {
        'refresh-interval': 1000,
        'timezone-name': 'UTC',
        'weir-version': version,
      });
      assert.equal((await get(base, '/overview'))['weir-version'], version);
      // A longer path is no cancel route: the job keeps running.
      const longer = await send(base, 'POST', `/jobs/${jid}/cancel/now`);
      assert.equal(longer.status, 404);
      assert.deepEqual(await longer.json(), { errors: [`Not found: POST /jobs/${jid}/cancel/now`] });
      assert.equal(client.getJobStatus(), 'RUNNING');
      const cancel = await send(base, 'POST', `/jobs/${jid}/cancel`);
      assert.equal(cancel.status, 202);
      assert.deepEqual(await cancel.json(), {});
      await assert.rejects(client.result, JobCancelledError);
      assert.equal(client.getJobStatus(), 'CANCELED');
    } finally {
      await client.cancel();
    }
  });

  for (const showRecords of [true, false]) {
    it(`shows the failing record in the exception history ${showRecords ? 'truncated' : 'hidden'}`, async () => {
      const env = StreamExecutionEnvironment.create();
      env.setRestartStrategy(RestartStrategies.fixedDelay(1, 600_000));
      const long = 'x'.repeat(150);
      env
        .fromElements({ id: 1, text: long }, { id: 2, text: long })
        .map((r) => {
          if (r.id === 2) throw new Error('bad record');
          return r;
        })
        .name('validate')
        .sinkTo({ createWriter: () => ({ write() {} }) });
      const client = await env.executeAsync('failing', {
        webUi: { port: 0, exceptionRecords: { showRecords, maxRecordLength: 40 } },
      });
      try {
        const base = client.webUiUrl!;
        await waitFor('the restart', () => client.getJobStatus() === 'RESTARTING');
        const exceptions = await get(base, `/jobs/${client.jobId}/exceptions`);
        const [entry] = exceptions.exceptionHistory.entries;
        assert.equal(entry.exceptionName, 'JobExecutionError');
        assert.equal(entry.taskName, 'validate');
        assert.equal(entry.subtaskIndex, 0);
        assert.equal(entry.attempt, 1);
        const text = JSON.stringify(exceptions);
        assert.equal(text.includes(long), false, 'the whole record never appears');
        if (showRecords) {
          // The record is 168 characters; the first 40 are shown.
          assert.equal(entry.record, `{"id":2,"text":"${'x'.repeat(24)}… (168 characters)`);
          assert.match(
            entry.message,
            /while processing record \{"id":2,"text":"x{24}… \(168 characters\): bad/,
          );
        } else {
          assert.equal(entry.record, null);
          assert.match(entry.message, /while processing record <record hidden>/);
          assert.equal(text.includes('"id":2'), false);
        }
        assert.match(entry.message, /bad record/);
      } finally {
        await client.cancel();
      }
    });
  }
});
