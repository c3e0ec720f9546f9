// The single test entry: imports every *.test.ts under src/, test/ and examples/ so the suite runs in one process.
// test/kafka/ needs a Kafka broker and runs apart, with `npm run test:kafka`; test/browser/ needs chromium and runs
// with `npm run test:browser`.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
for (const file of files) await import(pathToFileURL(file).href);
