// The key-count curve: the bid stream's keys scale hot items and sessions with every system agreeing, and a results
// file reads as the curve (rates, Weir × limit per repeat, the fall from the first key count, an A/B column, the
// chart's panel), refusing a cell whose output differs from the limit's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limitSystem } from '../../bench/limit/index.ts';
import {
  keyCurveRows,
  renderKeyCurveMarkdown,
  type KeyCurveCell,
  type KeyCurveResults,
} from '../../bench/runner/key-curve-report.ts';
import { renderKeyCurvePanel } from '../../bench/runner/report-key-curve-svg.ts';
import { renderSvg } from '../../bench/runner/report-svg.ts';
import { weirSystem } from '../../bench/weir/index.ts';
import { defaultParams } from '../../bench/workloads/params.ts';

/** A cell whose timed runs took `cpu` seconds each (so its rate is events / cpu). */
function cell(system: string, keys: number, repeat: number, cpu: number, checksum = 7): KeyCurveCell {
  return {
    system,
    workload: 'cep',
    keys,
    repeat,
    endedAt: '2026-12-03T20:00:00.000Z',
    load: [2, 3 + repeat],
    cpuSeconds: [cpu * 2, cpu, cpu],
    wallSeconds: [cpu, cpu, cpu],
    count: 5,
    checksum,
  };
}

function results(cells: KeyCurveCell[], systems = ['limit', 'weir']): KeyCurveResults {
  return {
    meta: {
      started: '2026-12-03T19:50:00.000Z',
      ended: '2026-12-03T20:10:00.000Z',
      node: '24.21.0',
      events: 1_000_000,
      warmup: 1,
      runs: 3,
      repeats: 2,
      keys: [10_000, 1_000_000],
      systems,
      workloads: ['cep'],
    },
    cells,
  };
}

describe('key-count curve', () => {
  it('bidKeys sets the auctions and bidders, and the limit and Weir agree on hot items and sessions with them', async () => {
    const params = defaultParams(20_000, 42, 1, 10_000, 3_000);
    assert.equal(params.bids.auctions, 3_000);
    assert.equal(params.bids.bidders, 3_000);
    assert.equal(defaultParams(10).bids.auctions, 10_000);
    assert.equal(defaultParams(10).bids.bidders, 100_000);
    assert.throws(() => defaultParams(10, 42, 1, 10_000, 999), RangeError);
    for (const workload of ['hot-items', 'session-window'] as const) {
      const limit = await limitSystem.workloads[workload]!(params);
      const weir = await weirSystem.workloads[workload]!(params);
      assert.deepEqual(weir, {
        ...limit,
        ...(weir.startupMs === undefined ? {} : { startupMs: weir.startupMs }),
      });
      const other = await limitSystem.workloads[workload]!(defaultParams(20_000));
      assert.notEqual(other.checksum, limit.checksum, `${workload}: the key count changes the output`);
    }
  });

  it('reads each key count as rates, Weir × limit per repeat, and the fall from the first key count', () => {
    const rows = keyCurveRows(
      results([
        cell('limit', 10_000, 0, 0.1), // 10 M/s
        cell('weir', 10_000, 0, 0.2), // 5 M/s: 0.5
        cell('limit', 10_000, 1, 0.125), // 8 M/s
        cell('weir', 10_000, 1, 0.2), // 5 M/s: 0.625
        cell('limit', 1_000_000, 0, 0.5), // 2 M/s
        cell('weir', 1_000_000, 0, 1), // 1 M/s: 0.5
        cell('weir', 1_000_000, 1, 2), // 0.5 M/s
        cell('limit', 1_000_000, 1, 1), // 1 M/s: 0.5
      ]),
    );
    assert.deepEqual(
      rows.map((r) => [r.keys, r.system, r.limit, r.weir, r.ratio, r.fallFromFirst, r.load, r.repeats]),
      [
        [
          10_000,
          'weir',
          { median: 9e6, min: 8e6, max: 10e6 },
          { median: 5e6, min: 5e6, max: 5e6 },
          { median: 0.5625, min: 0.5, max: 0.625 },
          1,
          { min: 2, max: 4 },
          2,
        ],
        [
          1_000_000,
          'weir',
          { median: 1.5e6, min: 1e6, max: 2e6 },
          { median: 0.75e6, min: 0.5e6, max: 1e6 },
          { median: 0.5, min: 0.5, max: 0.5 },
          1.125,
          { min: 2, max: 4 },
          2,
        ],
      ],
    );
    assert.equal(rows[0]!.againstFirstSystem, undefined);
    const markdown = renderKeyCurveMarkdown(results([]), rows).split('\n');
    assert.equal(
      markdown[2],
      '| workload | keys | load | limit M/s | Weir M/s | Weir × limit | first ÷ this |',
    );
    assert.equal(
      markdown[5],
      '| 6 CEP followedBy ×3 within 2 s | 1,000,000 | 2.0-4.0 | 1.50 (1.00-2.00) | 0.75 (0.50-1.00) | 0.50 (0.50-0.50) | 1.13 |',
    );
  });

  it('sets a second Weir against the first in the same repeat (an A/B), each against the limit', () => {
    const rows = keyCurveRows(
      results(
        [
          cell('limit', 10_000, 0, 0.1),
          cell('weir@/base', 10_000, 0, 0.2),
          cell('weir', 10_000, 0, 0.16),
          cell('limit', 10_000, 1, 0.1),
          cell('weir', 10_000, 1, 0.25),
          cell('weir@/base', 10_000, 1, 0.2),
        ],
        ['limit', 'weir@/base', 'weir'],
      ),
    );
    assert.deepEqual(
      rows.map((r) => [r.system, r.ratio.median, r.againstFirstSystem]),
      [
        ['weir@/base', 0.5, undefined],
        ['weir', 0.5125, { median: 1.025, min: 0.8, max: 1.25 }],
      ],
    );
    const markdown = renderKeyCurveMarkdown(results([], ['limit', 'weir@/base', 'weir']), rows).split('\n');
    assert.match(
      markdown[5]!,
      /\| weir \| 5\.13 \(4\.00-6\.25\) \| 0\.51 \(0\.40-0\.63\) \| 1\.00 \| 1\.02 \(0\.80-1\.25\) \|$/,
    );
  });

  it('refuses a cell whose output differs from the limit', () => {
    assert.throws(
      () => keyCurveRows(results([cell('limit', 10_000, 0, 0.1), cell('weir', 10_000, 0, 0.2, 8)])),
      /weir cep at 10000 keys, repeat 0: count 5 checksum 8, the limit's 5 7/,
    );
  });

  it('draws the panel under the bar chart: a line per workload, the target, the key counts', () => {
    const curve = results([
      cell('limit', 10_000, 0, 0.1),
      cell('weir', 10_000, 0, 0.2),
      cell('limit', 1_000_000, 0, 0.5),
      cell('weir', 1_000_000, 0, 2),
    ]);
    const panel = renderKeyCurvePanel(curve, 1000, 380);
    assert.equal(panel.match(/<polyline /g)?.length, 1);
    assert.match(panel, />target: at least 1\/1\.5</);
    assert.match(panel, />10k keys</);
    assert.match(panel, />1M keys</);
    assert.match(panel, /cep at 1000000 keys: Weir × limit 0\.25 \(0\.50× its first value\)/);
    assert.doesNotMatch(panel, /NaN/);
    const chart = renderSvg([], curve);
    assert.match(chart, /height="880"/);
    assert.match(chart, /<g transform="translate\(0 500\)">/);
    assert.match(renderSvg([]), /height="500"/);
  });
});
