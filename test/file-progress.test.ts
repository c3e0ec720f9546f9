// A file source's progress (bytes read of its files, and the percentage) in the REST API of a running job.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { JobProgress } from '../src/cli/job-progress.ts';
import { FileSource } from '../src/connectors/file-source.ts';
import { waitFor } from './support/wait-for.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-file-progress-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function get(base: string, path: string): Promise<any> {
  const response = await fetch(new URL(path, base));
  assert.equal(response.status, 200, `GET ${path}`);
  return response.json();
}

describe('file source progress', () => {
  it('reports fileBytesRead, fileBytesTotal and fileReadPercentage per subtask over REST', async () => {
    // Two files of 10-byte lines: 40 and 60 bytes; at parallelism 2 each subtask reads one.
    const line = (n: number) => `{"n":${n}}\n`;
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    writeFileSync(a, [100, 101, 102, 103].map(line).join(''));
    writeFileSync(b, [200, 201, 202, 203, 204, 205].map(line).join(''));
    const env = StreamExecutionEnvironment.create({ metrics: { intervalMs: 50 } });
    env
      .fromSource(FileSource.jsonLines<{ n: number }>([a, b]), undefined, 'files')
      .setParallelism(2)
      .sinkTo({ createWriter: () => ({ write() {} }) }, 'file-sink');
    // A second source that waits for good keeps the job running after the files are read, until the test cancels
    // it (nothing on the test's thread could release a source that may run on a worker thread).
    env
      .fromAsyncIterable(async function* () {
        await new Promise<never>(() => {});
        yield 1;
      }, 'gate')
      .sinkTo({ createWriter: () => ({ write() {} }) }, 'gate-sink');
    const client = await env.executeAsync('reading', { webUi: { port: 0 } });
    const base = client.webUiUrl!;
    try {
      const job = await get(base, `/jobs/${client.jobId}`);
      const files = job.vertices.find((v: any) => v.name === 'files');
      const details = await waitFor('both file subtasks to finish', async () => {
        const d = await get(base, `/jobs/${client.jobId}/vertices/${files.id}`);
        // None listed yet while the job initializes (on worker threads, until its workers loaded the job).
        const finished = d.subtasks.length === 2 && d.subtasks.every((s: any) => s.status === 'FINISHED');
        return finished ? d : undefined;
      });
      assert.deepEqual(
        details.subtasks.map((s: any) => [
          s.metrics.fileBytesRead,
          s.metrics.fileBytesTotal,
          s.metrics.fileReadPercentage,
        ]),
        [
          [40, 40, 100],
          [60, 60, 100],
        ],
      );
      assert.deepEqual(
        await get(
          base,
          `/jobs/${client.jobId}/vertices/${files.id}/metrics?get=0.fileReadPercentage,1.fileBytesTotal`,
        ),
        [
          { id: '0.fileReadPercentage', value: '100' },
          { id: '1.fileBytesTotal', value: '60' },
        ],
      );
      const [summed] = await get(
        base,
        `/jobs/${client.jobId}/vertices/${files.id}/subtasks/metrics?get=fileBytesRead`,
      );
      assert.equal(summed.sum, '100');
      // Operators other than file sources report no file progress.
      const gateVertex = job.vertices.find((v: any) => v.name === 'gate');
      const gateDetails = await get(base, `/jobs/${client.jobId}/vertices/${gateVertex.id}`);
      assert.equal(gateDetails.subtasks[0].metrics.fileBytesTotal, undefined);

      // `weir run`'s progress line on a terminal shows the share of file input read.
      const written: string[] = [];
      const progress = new JobProgress(
        client,
        { isTTY: true, write: (text: string) => written.push(text) },
        20,
      );
      progress.start();
      const line = await waitFor('a progress line', () => written.find((w) => w.includes('file input')));
      progress.stop();
      assert.match(line, /^\rreading: RUNNING, 10 records read, \d+\/s, 100 % of file input read$/);
      await client.cancel();
      await assert.rejects(client.result, { name: 'JobCancelledError' });
    } finally {
      await client.cancel();
    }
  });
});
