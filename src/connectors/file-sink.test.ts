// Tests of FileSink: single file and part files, block buffering, bigint encoding, a round trip through FileSource.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { ConfigurationError } from '../core/errors.ts';
import { FileSink } from './file-sink.ts';
import { FileSource } from './file-source.ts';
import { GeneratorSource } from './generator-source.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'weir-file-sink-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('FileSink.jsonLines', () => {
  it('writes one JSON line per record to a single file at parallelism 1, bigints as strings', async () => {
    const path = join(dir, 'out', 'single.jsonl');
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements<unknown>({ a: 1 }, 'two', [3], { big: 12345678901234567890n }, undefined)
      .sinkTo(FileSink.jsonLines(path));
    await env.execute();
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n"two"\n[3]\n{"big":"12345678901234567890"}\nnull\n');
    assert.deepEqual(readdirSync(join(dir, 'out')), ['single.jsonl'], 'no in-progress file is left behind');
  });

  it('writes a part file per subtask in a directory at parallelism 3', async () => {
    const path = join(dir, 'parts');
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    env
      .fromSource(
        GeneratorSource.of(10_000, (i) => ({ i })),
        undefined,
        'numbers',
      )
      .sinkTo(FileSink.jsonLines(path, { blockSize: 1_000 }));
    await env.execute();
    assert.deepEqual(readdirSync(path).sort(), ['part-0.jsonl', 'part-1.jsonl', 'part-2.jsonl']);
    const lines = readdirSync(path).flatMap((name) =>
      readFileSync(join(path, name), 'utf8').trimEnd().split('\n'),
    );
    const ids = lines.map((line) => (JSON.parse(line) as { i: number }).i).sort((a, b) => a - b);
    assert.deepEqual(
      ids,
      Array.from({ length: 10_000 }, (_, i) => i),
    );
  });

  it('round-trips through FileSource.jsonLines', async () => {
    const path = join(dir, 'round-trip.jsonl');
    const records = Array.from({ length: 5_000 }, (_, i) => ({
      i,
      s: `text ${i} ✓`,
      nested: { ok: i % 2 === 0 },
    }));
    const env = StreamExecutionEnvironment.create();
    env.fromCollection(records).sinkTo(FileSink.jsonLines(path));
    await env.execute();
    const back = await StreamExecutionEnvironment.create()
      .fromSource(FileSource.jsonLines(path), undefined)
      .executeAndCollect();
    assert.deepEqual(back, records);
  });

  it('rejects invalid options when the job is defined', () => {
    assert.throws(() => FileSink.jsonLines(''), ConfigurationError);
    assert.throws(() => FileSink.jsonLines('x', { blockSize: 0 }), /blockSize/);
    assert.equal(
      FileSink.jsonLines('out', { partPrefix: 'clicks' }).partPath(2, 4),
      join('out', 'clicks-2.jsonl'),
    );
  });
});
