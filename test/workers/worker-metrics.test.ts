// Metrics of subtasks on worker threads: mirrored into the main thread's registry, so a Prometheus scrape shows
// every subtask of the job with its built-in and user metrics, wherever it runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../support/wait-for.ts';

describe('metrics in worker mode', () => {
  it('a Prometheus scrape on the main thread shows the subtasks that run on both worker threads', async () => {
    const { client, prometheus, RECORDS } = await import('./worker-metrics-job.ts');
    try {
      /** `<subtask index> → value` of the metric's lines for the 'count' operator. */
      const series = (scrape: string, metric: string): Map<string, number> => {
        const found = new Map<string, number>();
        for (const line of scrape.split('\n')) {
          if (!line.startsWith(`${metric}{`) || !line.includes('operator_name="count"')) continue;
          const index = /subtask_index="(\d+)"/.exec(line)![1]!;
          found.set(index, Number(line.slice(line.lastIndexOf(' ') + 1)));
        }
        return found;
      };
      const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
      // Waits for a tick after the last record, on both workers: every record counted, once.
      const scrape = await waitFor(
        'both workers metrics in the scrape',
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${prometheus!.port}/metrics`)).text();
          return sum(series(text, 'weir_operator_app_parity_seen')) === RECORDS ? text : undefined;
        },
        60_000,
      );
      const seen = series(scrape, 'weir_operator_app_parity_seen');
      const recordsIn = series(scrape, 'weir_operator_numRecordsIn');
      // The ten keys spread over both subtasks (each on its own worker thread), and each subtask's user counter
      // agrees with its built-in numRecordsIn.
      assert.deepEqual([...seen.keys()].sort(), ['0', '1']);
      assert.ok(seen.get('0')! > 0 && seen.get('1')! > 0, `per subtask: ${[...seen]}`);
      assert.deepEqual(recordsIn, seen);
      // The key-value group's variable is kept, as on the thread where the metric lives.
      assert.match(scrape, /weir_operator_app_parity_seen\{[^}]*parity="any"/);
    } finally {
      await client!.cancel();
      await prometheus!.close();
    }
  });
});
