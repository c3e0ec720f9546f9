// The single test entry: imports every *.test.ts under src/, test/ and examples/ so the suite runs in one process.
// test/kafka/ needs a Kafka broker and runs apart, with `npm run test:kafka`; test/browser/ needs chromium and runs
// with `npm run test:browser`.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SAME_IN_BOTH_MODES, WORKER_MODE_SUITE } from './support/same-in-both-modes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);
const apart = new Set([join(root, 'test', 'kafka'), join(root, 'test', 'browser')]);

function collect(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !apart.has(path)) collect(path, out);
    } else if (entry.name.endsWith('.test.ts') && path !== self) {
      out.push(path);
    }
  }
}

const files: string[] = [];
for (const dir of ['src', 'test', 'examples']) collect(join(root, dir), files);
files.sort((a, b) => relative(root, a).localeCompare(relative(root, b)));
// In worker mode (npm run test:workers) the files whose jobs never take the suite's default thread mode would only
// repeat what npm test runs: they are left out (test/support/same-in-both-modes.ts says why for each).
const workerMode = (globalThis as Record<symbol, unknown>)[WORKER_MODE_SUITE] === true;
for (const file of files) {
  if (workerMode && SAME_IN_BOTH_MODES.has(relative(root, file))) continue;
  await import(pathToFileURL(file).href);
}
