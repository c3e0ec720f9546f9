// freshDirs: a temporary root for one test file, removed after its tests, handing out new directory paths.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/**
 * Creates `<tmpdir>/<prefix>XXXXXX`, deletes it when the file's tests end, and returns a function giving a new
 * path under it on every call (`name-0`, `name-1`, ...; not created), so no two runs share a directory.
 */
export function freshDirs(prefix: string): (name: string) => string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(root, { recursive: true, force: true }));
  let dirs = 0;
  return (name) => join(root, `${name}-${dirs++}`);
}
