// The `weir run` progress line: its text, and that nothing is drawn when the output is not a terminal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { waitFor } from '../../test/support/wait-for.ts';
import { JobProgress, progressLine } from './job-progress.ts';

describe('progress line', () => {
  it('shows status, records, rate and the share of file input read, rounded down to one decimal', () => {
    assert.equal(
      progressLine('orders', 'RUNNING', 1_204_000, 401_000.4, { read: 425, total: 1_000 }),
      'orders: RUNNING, 1,204,000 records read, 401,000/s, 42.5 % of file input read',
    );
    assert.equal(
      progressLine('orders', 'RUNNING', 7, 0, { read: 2, total: 3 }),
      'orders: RUNNING, 7 records read, 0/s, 66.6 % of file input read',
    );
    assert.equal(
      progressLine('orders', 'RUNNING', 0, 0, { read: 0, total: 0 }),
      'orders: RUNNING, 0 records read, 0/s, 100 % of file input read',
    );
    assert.equal(
      progressLine('ticks', 'RESTARTING', 12, 3.6, undefined),
      'ticks: RESTARTING, 12 records read, 4/s',
    );
  });

  it('writes nothing when the output is not a terminal', async () => {
    // One record, then the source waits for good: the job runs until it is cancelled. Nothing the test does on
    // its thread releases the source, which may run on a worker thread reading its own copy of this code.
    const env = StreamExecutionEnvironment.create();
    env
      .fromAsyncIterable(async function* () {
        yield 1;
        await new Promise<never>(() => {});
      })
      .sinkTo({ createWriter: () => ({ write() {} }) });
    const client = await env.executeAsync('piped');
    const piped: string[] = [];
    const terminal: string[] = [];
    const pipedProgress = new JobProgress(client, { write: (text: string) => piped.push(text) }, 1);
    const terminalProgress = new JobProgress(
      client,
      { isTTY: true, write: (text: string) => terminal.push(text) },
      1,
    );
    pipedProgress.start();
    terminalProgress.start();
    // The same job drawn on a terminal: once it shows the record read, the piped one had the same chances.
    const line = await waitFor('the record read on the terminal', () =>
      terminal.find((text) => text.includes(' 1 records read')),
    );
    await client.cancel();
    await assert.rejects(client.result, { name: 'JobCancelledError' });
    pipedProgress.stop();
    terminalProgress.stop();
    assert.deepEqual(piped, []);
    // The rate is over one interval of 1 ms: up to 1,000/s, printed with a thousands separator.
    assert.match(line, /^\rpiped: RUNNING, 1 records read, (\d{1,3}|1,000)\/s *$/);
  });
});
