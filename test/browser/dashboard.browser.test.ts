// The dashboard in a real browser (Debian's chromium through playwright-core): graph, live metrics, back-pressure,
// a savepoint from the page, CEP partial matches per key. Run with `npm run test:browser`, which installs the browser first.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import type { JobClient } from '../../src/execution/job-client.ts';
import { vertexId } from '../../src/web/job-views.ts';
import { waitFor } from '../support/wait-for.ts';
import { startPartialMatchJob } from '../cep/cep-partial-match-job.ts';

const CHROMIUM = process.env.WEIR_CHROMIUM ?? '/usr/bin/chromium';
/** Where to keep the screenshot (docs/images/dashboard.png when refreshing the docs); a temporary file otherwise. */
const SCREENSHOT = process.env.WEIR_DASHBOARD_SCREENSHOT;
/** The same for the CEP job's page with its partial matches (docs/images/dashboard-cep.png). */
const CEP_SCREENSHOT = process.env.WEIR_DASHBOARD_CEP_SCREENSHOT;

let dir: string;
let browser: Browser;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weir-dashboard-'));
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run scripts/browser/install-chromium.sh`);
  // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits `ms` of busy CPU: the slow operator's cost per record. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * numbers (unbounded, as fast as it can) → cheap → slow (1 ms per record, parallelism 2, after a rebalance) →
 * discard: the slow map is the bottleneck, so the cheap map in front of it is back-pressured.
 */
async function startJob(): Promise<JobClient> {
  const env = StreamExecutionEnvironment.create({ metrics: { intervalMs: 200 } });
  env
    .fromSource(
      GeneratorSource.of(Infinity, (i) => i, { batchSize: 4 }),
      undefined,
      'numbers',
    )
    .uid('numbers')
    .map((n) => n + 1)
    .name('cheap')
    .uid('cheap')
    .rebalance()
    .map((n) => {
      spin(1);
      return n;
    })
    .name('slow')
    .uid('slow')
    .setParallelism(2)
    .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');
  return env.executeAsync('dashboard-demo', { webUi: { port: 0 } });
}

describe('dashboard in a browser', () => {
  it('draws the job graph, updates operator metrics, shows back-pressure and triggers a savepoint', async () => {
    const client = await startJob();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const failedRequests: string[] = [];
    page.on('requestfailed', (r) => failedRequests.push(r.url()));
    try {
      await page.goto(client.webUiUrl!);
      const graph = client.running.graph;
      const id = (name: string): string => vertexId(graph.nodes.find((n) => n.name === name)!);

      // The graph: one box per operator with its parallelism, edges labelled with their partitioner.
      await page.waitForSelector('#graph g.node >> nth=3');
      const nodes = await page.$$eval('#graph g.node', (gs) =>
        gs.map((g) => [...g.querySelectorAll('text')].map((t) => t.textContent).slice(0, 2)),
      );
      assert.deepEqual(nodes, [
        ['numbers', 'parallelism 1'],
        ['cheap', 'parallelism 1'],
        ['slow', 'parallelism 2'],
        ['discard', 'parallelism 1'],
      ]);
      const edges = await page.$$eval('#graph text.edge-label', (ts) => ts.map((t) => t.textContent));
      assert.deepEqual(edges, ['FORWARD', 'REBALANCE', 'REBALANCE']);
      assert.equal(
        await page.isHidden('#partial-matches-section'),
        true,
        'no CEP operator, no partial matches',
      );

      // Per-operator metrics move: the slow map's records-in cell grows between two refreshes of the page.
      const recordsIn = (): Promise<number> =>
        page.$eval(`#operators tr[data-vertex="${id('slow')}"] td:nth-child(3)`, (td) =>
          Number(td.textContent!.replaceAll(',', '')),
        );
      const first = await waitFor('records to reach the slow map', async () => {
        const n = await recordsIn();
        return n > 0 ? n : undefined;
      });
      await waitFor('the records-in cell to grow', async () => (await recordsIn()) > first);
      assert.ok((await recordsIn()) > first);

      // Back-pressure: the cheap map waits on the slow one; the graph marks it, the table shows its ms/s.
      await page.waitForSelector(`#graph g.node.backpressured[data-vertex="${id('cheap')}"]`, {
        timeout: 15_000,
      });
      const cheapBackPressured = await page.$eval(
        `#operators tr[data-vertex="${id('cheap')}"] td:nth-child(8)`,
        (td) => Number.parseInt(td.textContent!, 10),
      );
      assert.ok(cheapBackPressured > 100, `cheap map back-pressured ${cheapBackPressured} ms/s`);
      // Colour by busy time: the bottleneck is drawn redder (a lower hue) than the operators waiting on it.
      const hue = async (name: string): Promise<number> => {
        const fill = await page.$eval(`#graph g.node[data-vertex="${id(name)}"] rect`, (r) =>
          r.getAttribute('fill'),
        );
        return Number(/^hsl\(([\d.]+)/.exec(fill!)![1]);
      };
      await waitFor('the slow map to be drawn busier than the cheap map and the source', async () => {
        const slow = await hue('slow');
        return slow < (await hue('cheap')) && slow < (await hue('numbers'));
      });
      // Busy and back-pressured time are estimates from sampled batches (a pause inside the sink's call during a
      // sample counts as the slow map waiting on it), so the mark is read on five successive refreshes of the
      // page: the bottleneck is not marked back-pressured on at least four of them.
      const slowMarked: boolean[] = [];
      for (let i = 0; i < 5; i++) {
        const before = await recordsIn();
        await waitFor('the page to refresh', async () => (await recordsIn()) !== before);
        slowMarked.push(!!(await page.$(`#graph g.node.backpressured[data-vertex="${id('slow')}"]`)));
      }
      assert.ok(
        slowMarked.filter((marked) => marked).length <= 1,
        `the bottleneck itself is marked back-pressured on these refreshes: ${slowMarked.join(', ')}`,
      );

      // A savepoint triggered from the page.
      const savepoints = join(dir, 'savepoints');
      await page.fill('#savepoint-dir', savepoints);
      await page.click('#savepoint-button');
      await waitFor('the savepoint to complete', async () =>
        (await page.textContent('#message'))!.startsWith('Savepoint completed: '),
      );
      const location = (await page.textContent('#message'))!.replace('Savepoint completed: ', '');
      assert.ok(location.startsWith(savepoints) && existsSync(join(location, '_metadata')), location);
      await page.waitForSelector('#checkpoints td:text("savepoint")');

      const screenshot = SCREENSHOT !== undefined ? resolve(SCREENSHOT) : join(dir, 'dashboard.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      assert.deepEqual([...readFileSync(screenshot).subarray(1, 4)], [...Buffer.from('PNG')]);
      assert.deepEqual(failedRequests, [], 'the page loads nothing it cannot get from the job');
    } finally {
      await page.close();
      await client.cancel();
    }
  });

  it('shows the live partial matches per key of a CEP operator', async () => {
    const client = await startPartialMatchJob({ port: 0 });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      await page.goto(client.webUiUrl!);
      const rows = (): Promise<string[][]> =>
        page.$$eval('#partial-matches tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!)),
        );
      // c's start queued and d's event gone: every earlier event went through the NFA (see the job's EVENTS).
      const shown = await waitFor('the partial matches on the page', async () => {
        const r = await rows();
        return r.some((row) => row[2] === '"c"') && !r.some((row) => row[2] === '"d"') ? r : undefined;
      });
      assert.deepEqual(shown, [
        [
          'sequences',
          '0',
          '"a"',
          'end',
          '1000',
          'start@1000 {"key":"a","name":"start","ts":1000} → middle@2000 {"key":"a","name":"middle","ts":2000}',
          '0',
        ],
        ['sequences', '0', '"b"', 'middle', '1500', 'start@1500 {"key":"b","name":"start","ts":1500}', '0'],
        ['sequences', '0', '"b"', 'middle', '2500', 'start@2500 {"key":"b","name":"start","ts":2500}', '0'],
        ['sequences', '0', '"c"', '–', '–', '', '1'],
      ]);
      assert.equal(await page.isVisible('#partial-matches-section'), true);

      const screenshot =
        CEP_SCREENSHOT !== undefined ? resolve(CEP_SCREENSHOT) : join(dir, 'dashboard-cep.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      assert.deepEqual([...readFileSync(screenshot).subarray(1, 4)], [...Buffer.from('PNG')]);
    } finally {
      await page.close();
      await client.cancel();
    }
  });
});
