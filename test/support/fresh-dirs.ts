// freshDirs: a temporary root for one test file, removed after its tests, handing out new directory paths.
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/**
 * Creates `<tmpdir>/<prefix>XXXXXX`, deletes it when the file's tests end, and returns a function giving a new
 * path under it on every call (`name-XXXXXX`; not created), so no two runs share a directory.
 */
export function freshDirs(prefix: string): (name: string) => string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(root, { recursive: true, force: true }));
  return (name) => {
    // Named by mkdtempSync rather than a counter of the module's calls: npm run test:workers hands a worker that
    // replays one test the directories the main thread's run of that test got (test/support/worker-mode.ts).
    // Removed again unless something is in it already (the worker's case), so the caller gets a path to create.
    const path = mkdtempSync(join(root, `${name}-`));
    try {
      rmdirSync(path);
    } catch {
      // not empty: the main thread's body wrote into it before its job
    }
    return path;
  };
}
