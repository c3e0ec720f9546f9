// Renders a grouped bar chart (events/s per workload, one bar per system, log scale) as hand-written SVG,
// so the report needs no charting dependency; below it, given a key-curve results file, the key-count panel.

import { WORKLOAD_IDS, WORKLOAD_TITLES } from '../workloads/params.ts';
import type { KeyCurveResults } from './key-curve-report.ts';
import type { Measurement } from './measurement.ts';
import { renderKeyCurvePanel } from './report-key-curve-svg.ts';

/** The key-count panel's height, under the bar chart. */
const KEY_CURVE_PANEL_HEIGHT = 380;

const COLORS = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#b07aa1',
  '#edc948',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
  '#1f77b4',
  '#8c564b',
  '#17becf',
  '#bcbd22',
];

export function renderSvg(measurements: readonly Measurement[], keyCurve?: KeyCurveResults): string {
  const systems = [...new Set(measurements.map((m) => m.system))];
  const ok = measurements.filter((m) => m.status === 'ok' && m.eventsPerSecond !== undefined);
  const rates = ok.map((m) => m.eventsPerSecond?.median ?? 1);
  const lo = 10 ** Math.floor(Math.log10(Math.max(1, Math.min(...rates, 1e4))));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...rates, 1e5)));
  const width = 1000;
  const height = 500;
  const left = 70;
  const right = 20;
  // Legend under the title, in rows of as many entries as fit the width; the plot starts below it.
  const entryW = 150;
  const perRow = Math.max(1, Math.floor((width - left - right) / entryW));
  const top = 34 + Math.ceil(systems.length / perRow) * 15;
  const bottom = 150;
  const plotH = height - top - bottom;
  const groupW = (width - left - right) / WORKLOAD_IDS.length;
  const barW = Math.max(4, (groupW - 16) / Math.max(1, systems.length));
  const y = (v: number): number =>
    top + plotH - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotH;
  const parts: string[] = [];
  const total = height + (keyCurve === undefined ? 0 : KEY_CURVE_PANEL_HEIGHT);
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${total}" font-family="sans-serif" font-size="11">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">Events per second, median (log scale; whiskers: min–max)</text>`,
  );
  for (let decade = lo; decade <= hi; decade *= 10) {
    const yy = y(decade).toFixed(1);
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${yy}" y2="${yy}" stroke="#ddd"/>`);
    const label = decade >= 1e6 ? `${decade / 1e6}M` : decade >= 1e3 ? `${decade / 1e3}k` : String(decade);
    parts.push(
      `<text x="${left - 6}" y="${yy}" text-anchor="end" dominant-baseline="middle">${label}</text>`,
    );
  }
  WORKLOAD_IDS.forEach((workload, g) => {
    const x0 = left + g * groupW + 8;
    systems.forEach((system, s) => {
      const m = ok.find((c) => c.workload === workload && c.system === system);
      const x = x0 + s * barW;
      if (m?.eventsPerSecond === undefined) {
        // No bar: say why at the baseline (not implemented, unavailable, failed).
        const status =
          measurements.find((c) => c.workload === workload && c.system === system)?.status ?? 'not run';
        const label = status === 'not-implemented' ? 'n/a' : status;
        parts.push(
          `<text x="${(x + (barW - 2) / 2).toFixed(1)}" y="${top + plotH - 4}" text-anchor="middle" font-size="8" fill="#999">${label}</text>`,
        );
        return;
      }
      const { median, min, max } = m.eventsPerSecond;
      const color = COLORS[s % COLORS.length] ?? '#999';
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(median).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(top + plotH - y(median)).toFixed(1)}" fill="${color}"><title>${system} ${workload}: ${Math.round(median)} events/s</title></rect>`,
      );
      const cx = (x + (barW - 2) / 2).toFixed(1);
      parts.push(
        `<line x1="${cx}" x2="${cx}" y1="${y(max).toFixed(1)}" y2="${y(min).toFixed(1)}" stroke="#333"/>`,
      );
    });
    const label = WORKLOAD_TITLES[workload];
    const lx = left + g * groupW + groupW / 2;
    parts.push(
      `<text x="${lx.toFixed(1)}" y="${top + plotH + 14}" text-anchor="end" transform="rotate(-30 ${lx.toFixed(1)} ${top + plotH + 14})">${escapeXml(label)}</text>`,
    );
  });
  // Legend under the title, clear of the rotated workload labels.
  systems.forEach((system, s) => {
    const x = left + (s % perRow) * entryW;
    const yy = 26 + Math.floor(s / perRow) * 15;
    parts.push(
      `<rect x="${x}" y="${yy}" width="12" height="12" fill="${COLORS[s % COLORS.length] ?? '#999'}"/>`,
    );
    parts.push(`<text x="${x + 16}" y="${yy + 10}">${escapeXml(system)}</text>`);
  });
  if (keyCurve !== undefined) {
    parts.push(`<g transform="translate(0 ${height})">`);
    parts.push(renderKeyCurvePanel(keyCurve, width, KEY_CURVE_PANEL_HEIGHT));
    parts.push('</g>');
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
