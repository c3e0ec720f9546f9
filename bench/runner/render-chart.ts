// Draws the benchmark chart again from a results directory without measuring anything: latest.json's bars, and
// the key-count panel when the directory holds a key-curve.json (bench/weir/key-curve.ts writes one there).
// Run: node --import tsx bench/runner/render-chart.ts [DIR, default bench/results]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Measurement } from './measurement.ts';
import { readKeyCurve } from './report-key-curve-svg.ts';
import { renderSvg } from './report-svg.ts';

const dir = process.argv[2] ?? fileURLToPath(new URL('../results', import.meta.url));
const { measurements } = JSON.parse(readFileSync(join(dir, 'latest.json'), 'utf8')) as {
  measurements: Measurement[];
};
writeFileSync(join(dir, 'latest.svg'), renderSvg(measurements, readKeyCurve(dir)));
process.stdout.write(`wrote ${join(dir, 'latest.svg')}\n`);
