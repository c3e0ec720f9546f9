// The key-count panel of the benchmark chart: per workload, Weir × limit at each key count relative to its value at
// the first key count, against the target (within 1.5×: at least 1 / 1.5 of it), from a key-curve results file.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKLOAD_TITLES } from '../workloads/params.ts';
import { keyCurveRows, type KeyCurveResults } from './key-curve-report.ts';

/** The key-count target: Weir × limit at any key count within this factor of its first key count's value. */
export const KEY_COUNT_TARGET = 1.5;

/** The results directory's key-curve file (`key-curve.json`, bench/weir/key-curve.ts's default), if there is one. */
export function readKeyCurve(dir: string): KeyCurveResults | undefined {
  const file = join(dir, 'key-curve.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KeyCurveResults) : undefined;
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#b07aa1', '#edc948', '#9c755f'];

const keysLabel = (k: number): string => (k >= 1e6 ? `${k / 1e6}M` : k >= 1e3 ? `${k / 1e3}k` : String(k));

/**
 * A `<g>` of `width` × `height` at the origin: one line per workload over the key counts (log scale), y the median
 * Weir × limit over its value at the first key count (log scale), whiskers the range over the repeats on the same
 * scale, a dashed line at 1 / {@link KEY_COUNT_TARGET}. The first Weir system of the file is drawn.
 */
export function renderKeyCurvePanel(results: KeyCurveResults, width: number, height: number): string {
  const system = results.meta.systems.find((s) => s !== 'limit');
  const rows = keyCurveRows(results).filter((r) => r.system === system);
  const workloads = results.meta.workloads.filter((w) => rows.some((r) => r.workload === w));
  const keys = results.meta.keys.filter((k) => rows.some((r) => r.keys === k));
  const left = 70;
  const right = 20;
  const top = 34 + Math.ceil(workloads.length / 3) * 15;
  const bottom = 40;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  // relative values: a row's ratio (and its range) over the same workload's first row's median ratio
  const relative = rows.map((r) => {
    const first = rows.find((f) => f.workload === r.workload)!.ratio.median;
    return { row: r, median: r.ratio.median / first, min: r.ratio.min / first, max: r.ratio.max / first };
  });
  const values = relative.flatMap((v) => [v.min, v.max]).concat([1 / KEY_COUNT_TARGET, 1]);
  const lo = Math.min(0.25, ...values) * 0.9;
  const hi = Math.max(4, ...values) * 1.1;
  const kLo = Math.log10(Math.min(...keys));
  const kHi = Math.log10(Math.max(...keys));
  // the first and last key counts inset from the edges, so their labels fit
  const inset = 40;
  const x = (k: number): number =>
    left +
    inset +
    (kHi === kLo ? plotW / 2 - inset : ((Math.log10(k) - kLo) / (kHi - kLo)) * (plotW - 2 * inset));
  const y = (v: number): number =>
    top + plotH - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotH;
  const parts: string[] = [];
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  const meta = results.meta;
  parts.push(
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">Weir × limit by key count, over its value at ${keysLabel(keys[0] ?? 0)} keys (main-thread CPU, median of ${meta.repeats}; whiskers: range; ${meta.started.slice(0, 10)}, Node ${meta.node})</text>`,
  );
  for (const tick of [0.25, 0.5, 1, 2, 4].filter((t) => t >= lo && t <= hi)) {
    const yy = y(tick).toFixed(1);
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${yy}" y2="${yy}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${left - 6}" y="${yy}" text-anchor="end" dominant-baseline="middle">${tick}×</text>`,
    );
  }
  const target = y(1 / KEY_COUNT_TARGET).toFixed(1);
  parts.push(
    `<line x1="${left}" x2="${width - right}" y1="${target}" y2="${target}" stroke="#c00" stroke-dasharray="6 4"/>`,
  );
  parts.push(
    `<text x="${width - right}" y="${(Number(target) - 4).toFixed(1)}" text-anchor="end" fill="#c00">target: at least 1/${KEY_COUNT_TARGET}</text>`,
  );
  for (const k of keys) {
    const xx = x(k).toFixed(1);
    parts.push(`<line x1="${xx}" x2="${xx}" y1="${top}" y2="${top + plotH}" stroke="#eee"/>`);
    parts.push(`<text x="${xx}" y="${top + plotH + 16}" text-anchor="middle">${keysLabel(k)} keys</text>`);
  }
  workloads.forEach((workload, w) => {
    const color = COLORS[w % COLORS.length]!;
    const points = relative.filter((v) => v.row.workload === workload);
    // a small offset per workload, so whiskers at one key count do not cover each other
    const dx = (w - (workloads.length - 1) / 2) * 4;
    parts.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map((v) => `${(x(v.row.keys) + dx).toFixed(1)},${y(v.median).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const v of points) {
      const cx = (x(v.row.keys) + dx).toFixed(1);
      parts.push(
        `<line x1="${cx}" x2="${cx}" y1="${y(v.max).toFixed(1)}" y2="${y(v.min).toFixed(1)}" stroke="${color}"/>`,
      );
      parts.push(
        `<circle cx="${cx}" cy="${y(v.median).toFixed(1)}" r="3" fill="${color}"><title>${workload} at ${v.row.keys} keys: Weir × limit ${v.row.ratio.median.toFixed(2)} (${v.median.toFixed(2)}× its first value)</title></circle>`,
      );
    }
    const lx = left + (w % 3) * 300;
    const ly = 26 + Math.floor(w / 3) * 15;
    parts.push(`<rect x="${lx}" y="${ly}" width="12" height="12" fill="${color}"/>`);
    parts.push(
      `<text x="${lx + 16}" y="${ly + 10}">${WORKLOAD_TITLES[workload]} (${points[0]!.row.ratio.median.toFixed(2)} at ${keysLabel(keys[0] ?? 0)})</text>`,
    );
  });
  return `<g>\n${parts.join('\n')}\n</g>`;
}
