// Micro-benchmark: reading one very long JSON line through FileSource. Isolates line assembly across 64 KiB
// chunks: its cost must grow linearly with the line's length (a line is gathered piece by piece, joined once).
// Run: node --import tsx bench/micro/long-lines.ts [--mb 50] [--runs 5]

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSource } from '../../src/connectors/file-source.ts';
import type { ReaderOutput } from '../../src/core/source.ts';
import { openSourceReader } from '../../src/operators/split-assignment.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const mb = arg('mb', 50);
const runs = arg('runs', 5);

const dir = mkdtempSync(join(tmpdir(), 'weir-long-lines-'));
try {
  for (const size of [mb / 4, mb / 2, mb]) {
    const path = join(dir, `line-${size}.jsonl`);
    writeFileSync(path, `{"n":1}\n{"s":"${'x'.repeat(Math.round(size * 1024 * 1024))}"}\n{"n":2}\n`);
    const times: number[] = [];
    for (let r = 0; r < runs; r++) {
      let records = 0;
      const output: ReaderOutput<unknown> = { collect: () => void records++, collectSide: () => {} };
      const reader = openSourceReader(FileSource.jsonLines(path), {
        subtaskIndex: 0,
        parallelism: 1,
        sourceName: 'bench',
      });
      const started = performance.now();
      while ((await reader.pollNext(output)) === 'more');
      times.push(performance.now() - started);
      if (records !== 3) throw new Error(`read ${records} records, expected 3`);
      await reader.close?.();
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    process.stdout.write(
      `${size} MB line: median ${median.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)}) over ${runs} runs\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
