// WebServer.hold: one server for every job of the process, open between jobs, closed when released.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../src/connectors/generator-source.ts';
import { WebServer } from '../src/web/web-server.ts';
import { refused } from './support/refused.ts';
import { waitFor } from './support/wait-for.ts';

async function overview(base: string): Promise<[string, string][]> {
  const response = await fetch(new URL('/jobs/overview', base));
  assert.equal(response.status, 200);
  const body = (await response.json()) as { jobs: { name: string; state: string }[] };
  return body.jobs.map((j) => [j.name, j.state]);
}

/** numbers (100) → double → discard. */
function doublingJob(): StreamExecutionEnvironment {
  const env = StreamExecutionEnvironment.create();
  env
    .fromSource(
      GeneratorSource.of(100, (i) => i),
      undefined,
      'numbers',
    )
    .map((n) => n * 2)
    .name('double')
    .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');
  return env;
}

describe('web UI held open for the jobs of a process', () => {
  it('serves jobs run one after another on one port, the finished ones too, until released', async () => {
    const server = await WebServer.hold({ port: 0 });
    const webUi = { port: server.port };
    const first = await doublingJob().executeAsync('first', { webUi });
    assert.equal(first.webUiUrl, server.url);
    await first.result;
    // Held: the server outlives its only job, which it lists as finished.
    assert.deepEqual(await overview(server.url), [['first', 'FINISHED']]);

    const second = await doublingJob().executeAsync('second', { webUi });
    assert.equal(second.webUiUrl, server.url);
    await second.result;
    assert.deepEqual(await overview(server.url), [
      ['first', 'FINISHED'],
      ['second', 'FINISHED'],
    ]);
    await server.release();
    assert.equal(await refused(server.url), true);
  });

  it('closes when released while a job runs only once that job ended', async () => {
    const server = await WebServer.hold({ port: 0 });
    const env = StreamExecutionEnvironment.create();
    env
      .fromSource(
        GeneratorSource.of(Infinity, (i) => i, { ratePerSecond: 1_000, batchSize: 10 }),
        undefined,
        'numbers',
      )
      .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');
    const job = await env.executeAsync('endless', { webUi: { port: server.port } });
    await server.release();
    // Still served while the job runs. executeAsync returns at once: on worker threads the job may still be
    // INITIALIZING (its workers load the job) when the server is released.
    const listed = await waitFor('the job to run', async () => {
      const jobs = await overview(server.url);
      return jobs[0]?.[1] === 'INITIALIZING' ? undefined : jobs;
    });
    assert.deepEqual(listed, [['endless', 'RUNNING']]);
    await job.cancel();
    assert.equal(await refused(server.url), true);
  });

  it('refuses a release without a hold', async () => {
    const server = await WebServer.hold({ port: 0 });
    await server.release();
    assert.throws(() => server.release(), /WebServer\.release\(\) without a hold/);
  });
});
