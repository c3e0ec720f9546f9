// The version of the running Weir, read once from its package.json (the single place it is written).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * Weir's version as its package.json states it; the file sits two folders up from both `src/core` and
 * `dist/core`, so the source and the built package read the same file.
 *
 * @example
 * console.log(`weir ${weirVersion()}`);
 */
export function weirVersion(): string {
  if (cached === undefined) {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    cached = manifest.version;
  }
  return cached;
}
