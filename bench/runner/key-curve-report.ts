// The key-count curve's results file (bench/weir/key-curve.ts writes it) and what is read from it: per workload and
// key count, each system's elements per CPU second and Weir's fraction of the limit, as medians and ranges.

import { WORKLOAD_TITLES, type WorkloadId } from '../workloads/params.ts';

/** One process's cell: a system's warm-up and timed runs of one workload at one key count. */
export interface KeyCurveCell {
  readonly system: string;
  readonly workload: WorkloadId;
  readonly keys: number;
  /** Which pass over all cells this was (systems and key counts take turns within a pass). */
  readonly repeat: number;
  readonly endedAt: string;
  /** The 1-minute load average before and after the cell. */
  readonly load: readonly [number, number];
  /** Main-thread CPU seconds of each timed run. */
  readonly cpuSeconds: readonly number[];
  readonly wallSeconds: readonly number[];
  readonly count: number;
  readonly checksum: number;
}

export interface KeyCurveResults {
  readonly meta: {
    readonly started: string;
    ended?: string;
    readonly node: string;
    readonly events: number;
    readonly warmup: number;
    readonly runs: number;
    readonly repeats: number;
    readonly keys: readonly number[];
    readonly systems: readonly string[];
    readonly workloads: readonly WorkloadId[];
  };
  readonly cells: KeyCurveCell[];
}

/** A median with the range it was taken from. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** One workload at one key count: the limit's and Weir's rates and Weir's fraction of the limit per repeat. */
export interface KeyCurveRow {
  readonly workload: WorkloadId;
  readonly keys: number;
  /** The Weir measured (`weir`, or `weir@DIR` for another checkout). */
  readonly system: string;
  readonly repeats: number;
  /** Elements per CPU second, a cell's figure being the median of its timed runs. */
  readonly limit: Spread;
  readonly weir: Spread;
  /** Weir × limit, taken per repeat from the two cells that ran next to each other. */
  readonly ratio: Spread;
  /** The median ratio at the workload's first key count over this one's: the target is at most 1.5. */
  readonly fallFromFirst: number;
  /** This system's rate over the first Weir system's in the same repeat (an A/B); absent for the first. */
  readonly againstFirstSystem?: Spread;
  readonly load: { readonly min: number; readonly max: number };
}

/** The median (of an even count, the mean of the middle two) and the range. */
export function spreadOf(xs: readonly number[]): Spread {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** Elements per CPU second of one cell: its timed runs' median. */
export function cellRate(cell: KeyCurveCell, events: number): number {
  return events / spreadOf(cell.cpuSeconds).median;
}

/**
 * The rows of every workload, key count and system other than the limit, in the order measured. Throws when a
 * cell's count or checksum differs from the limit's at the same workload and key count: a curve of wrong answers is
 * void.
 */
export function keyCurveRows(results: KeyCurveResults, limit = 'limit'): KeyCurveRow[] {
  const rows: KeyCurveRow[] = [];
  const { events } = results.meta;
  const others = results.meta.systems.filter((s) => s !== limit);
  for (const workload of results.meta.workloads) {
    const first = new Map<string, number>();
    for (const keys of results.meta.keys) {
      const cells = results.cells.filter((c) => c.workload === workload && c.keys === keys);
      const reference = cells.find((c) => c.system === limit);
      for (const c of cells)
        if (reference !== undefined && (c.count !== reference.count || c.checksum !== reference.checksum))
          throw new Error(
            `${c.system} ${workload} at ${keys} keys, repeat ${c.repeat}: count ${c.count} checksum ${c.checksum}, ` +
              `the limit's ${reference.count} ${reference.checksum}`,
          );
      const limits = cells.filter((c) => c.system === limit);
      const inRepeat = (system: string, repeat: number): KeyCurveCell | undefined =>
        cells.find((c) => c.system === system && c.repeat === repeat);
      for (const system of others) {
        const weirs = cells.filter((c) => c.system === system);
        const ratios: number[] = [];
        const against: number[] = [];
        for (const w of weirs) {
          const l = inRepeat(limit, w.repeat);
          if (l !== undefined) ratios.push(cellRate(w, events) / cellRate(l, events));
          const a = inRepeat(others[0]!, w.repeat);
          if (a !== undefined && system !== others[0])
            against.push(cellRate(w, events) / cellRate(a, events));
        }
        if (ratios.length === 0) continue;
        const ratio = spreadOf(ratios);
        if (!first.has(system)) first.set(system, ratio.median);
        const loads = cells.flatMap((c) => [...c.load]);
        rows.push({
          workload,
          keys,
          system,
          repeats: ratios.length,
          limit: spreadOf(limits.map((c) => cellRate(c, events))),
          weir: spreadOf(weirs.map((c) => cellRate(c, events))),
          ratio,
          fallFromFirst: first.get(system)! / ratio.median,
          ...(against.length === 0 ? {} : { againstFirstSystem: spreadOf(against) }),
          load: { min: Math.min(...loads), max: Math.max(...loads) },
        });
      }
    }
  }
  return rows;
}

const millions = (s: Spread): string =>
  `${(s.median / 1e6).toFixed(2)} (${(s.min / 1e6).toFixed(2)}-${(s.max / 1e6).toFixed(2)})`;
const fraction = (s: Spread): string => `${s.median.toFixed(2)} (${s.min.toFixed(2)}-${s.max.toFixed(2)})`;

/** One Markdown table of every row, as docs/performance.md's "Cost by key count" holds it. */
export function renderKeyCurveMarkdown(results: KeyCurveResults, rows: readonly KeyCurveRow[]): string {
  const { meta } = results;
  const ab = rows.some((r) => r.againstFirstSystem !== undefined);
  const lines = [
    `Node ${meta.node}, ${meta.events.toLocaleString('en-US')} events, ${meta.warmup} warm-up + ${meta.runs} timed runs ` +
      `per process, ${meta.repeats} repeats, ${meta.started.slice(0, 16)}-${(meta.ended ?? '').slice(11, 16)} UTC. ` +
      `M elements per main-thread CPU second, median (range) over the repeats; Weir × limit per repeat; ` +
      `"first ÷ this": the first key count's Weir × limit over this one's (target ≤ 1.5).`,
    '',
    `| workload | keys | load | limit M/s | ${ab ? 'system | ' : ''}Weir M/s | Weir × limit | first ÷ this |${ab ? ' × first system |' : ''}`,
    `| --- | ---: | --- | ---: | ${ab ? '--- | ' : ''}---: | ---: | ---: |${ab ? ' ---: |' : ''}`,
  ];
  for (const r of rows)
    lines.push(
      `| ${WORKLOAD_TITLES[r.workload]} | ${r.keys.toLocaleString('en-US')} | ${r.load.min.toFixed(1)}-${r.load.max.toFixed(1)} | ` +
        `${millions(r.limit)} | ${ab ? `${r.system} | ` : ''}${millions(r.weir)} | ${fraction(r.ratio)} | ${r.fallFromFirst.toFixed(2)} |` +
        (ab ? ` ${r.againstFirstSystem === undefined ? '' : fraction(r.againstFirstSystem)} |` : ''),
    );
  return `${lines.join('\n')}\n`;
}
