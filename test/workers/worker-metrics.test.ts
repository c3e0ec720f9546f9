// Metrics of subtasks on worker threads: mirrored into the main thread's registry, so a Prometheus scrape shows
// every subtask of the job with its built-in and user metrics, wherever it runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubtaskFigures } from '../../src/runtime/subtask-figures.ts';
import { subtasksOf } from '../../src/web/job-views.ts';
import { waitFor } from '../support/wait-for.ts';

describe('metrics in worker mode', () => {
  it('a Prometheus scrape on the main thread shows the subtasks that run on both worker threads', async () => {
    const { client, prometheus, RECORDS, SIZE, kinds } = await import('./worker-metrics-job.ts');
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
      // Each metric reaches the main thread's reporters as its own kind: a counter as a counter (OpenTelemetry
      // makes a monotonic sum of it), a meter with its rate and count, a histogram with its quantiles.
      assert.deepEqual(kinds.get('seen'), new Set(['counter']));
      assert.deepEqual(kinds.get('rate'), new Set(['meter']));
      assert.deepEqual(kinds.get('sizes'), new Set(['histogram']));
      assert.deepEqual(kinds.get('numRecordsIn'), new Set(['counter']));
      assert.deepEqual(series(scrape, 'weir_operator_app_sizes_count'), seen);
      for (const quantile of ['0.5', '0.75', '0.95', '0.98', '0.99', '0.999']) {
        const lines = scrape
          .split('\n')
          .filter((l) => l.startsWith('weir_operator_app_sizes{') && l.includes(`quantile="${quantile}"`));
        assert.equal(lines.length, 2, `one ${quantile} quantile per subtask:\n${lines.join('\n')}`);
        for (const line of lines) assert.equal(Number(line.slice(line.lastIndexOf(' ') + 1)), SIZE, line);
      }
    } finally {
      await client!.cancel();
      await prometheus!.close();
    }
  });

  it("counts a keyed subtask's work on records from the other worker as busy time, not idle", async () => {
    const { client } = await import('./delivery-busy-time-job.ts');
    try {
      const running = client.running;
      const slow = running.graph.nodes.find((n) => n.name === 'slow')!;
      // Subtask 2 of 'slow' runs on worker 2, which has no source: all it does is handle the batches that worker 1
      // sends. Its operator spins on every record and cannot keep up, so it is busy nearly all of each second.
      const figures = await waitFor(
        "subtask 2 of 'slow' busy",
        () => {
          const subtask = subtasksOf(running, slow).find((s) => s.index === 1);
          return subtask !== undefined && subtask.recordsIn > 0 && subtask.busyTimeMsPerSecond > 500
            ? subtask
            : undefined;
        },
        30_000,
      );
      assert.ok(figures.idleTimeMsPerSecond < 500, `idle ${figures.idleTimeMsPerSecond} ms/s`);
      // Subtask 1, on worker 1 beside the source, receives nothing (every key is subtask 2's).
      assert.equal(subtasksOf(running, slow).find((s) => s.index === 0)!.recordsIn, 0);
    } finally {
      await client.cancel();
    }
  });

  it('with metrics off, the main thread lists every subtask once the job runs, and its final counts once it ended', async () => {
    const { client, COUNT } = await import('./metrics-off-job.ts');
    const running = client.running;
    const listed = (): { name: string; subtasks: number[] }[] =>
      running.graph.nodes.map((node) => ({
        name: node.name,
        subtasks: subtasksOf(running, node).map((s) => s.index),
      }));
    // No metrics tick ever sends the workers' figures: their subtasks are known from the moment the job runs.
    await waitFor('the job to run', () => running.status !== 'INITIALIZING');
    assert.deepEqual(listed(), [
      { name: 'numbers', subtasks: [0, 1] },
      { name: 'double', subtasks: [0, 1] },
      { name: 'discard', subtasks: [0, 1] },
    ]);
    await client.result;
    const figures = (name: string) =>
      subtasksOf(
        running,
        running.graph.nodes.find((n) => n.name === name)!,
      );
    const total = (name: string, of: (s: SubtaskFigures) => number): number =>
      figures(name).reduce((sum, s) => sum + of(s), 0);
    // The workers' last figures, sent as they closed: every record counted, every subtask finished.
    assert.equal(
      total('numbers', (s) => s.recordsOut),
      COUNT,
    );
    assert.equal(
      total('double', (s) => s.recordsIn),
      COUNT,
    );
    assert.equal(
      total('discard', (s) => s.recordsIn),
      COUNT,
    );
    for (const name of ['numbers', 'double', 'discard']) {
      assert.deepEqual(
        figures(name).map((s) => s.finished),
        [true, true],
        name,
      );
    }
  });
});
