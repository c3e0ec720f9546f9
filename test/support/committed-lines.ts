// Reads what a FileSink published: the lines of its finished part files (hidden in-progress and pending skipped).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every non-empty line of the `part-*` files in `dir`, sorted. */
export function committedLines(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith('part-'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.length > 0)
    .sort();
}

/** The `id` of every record in the `part-*` files in `dir`, in ascending order (duplicates kept). */
export function committedIds(dir: string): number[] {
  return committedLines(dir)
    .map((l) => (JSON.parse(l) as { id: number }).id)
    .sort((a, b) => a - b);
}
