// Tests of FileSource: JSON Lines and CSV decoding, malformed records, parallel splits, gzip, positions, memory.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { MalformedRecordError } from '../core/errors.ts';
import { OutputTag } from '../core/output-tag.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { CollectSink } from './collect-sink.ts';
import { FileSource } from './file-source.ts';
import type { MalformedRecord } from './malformed-record.ts';
import type { Sink } from '../core/sink.ts';
import type { PollResult, ReaderOutput, Source, SourceReader } from '../core/source.ts';
import { openSourceReader } from '../operators/split-assignment.ts';
import type { FileSourceSplit } from './file-source-split.ts';
import { setFlagsFromString } from 'node:v8';
import { MetricGroupImpl } from '../metrics/metric-group.ts';
import { metricValue, type Metric } from '../metrics/metric.ts';
import { runInNewContext } from 'node:vm';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'weir-file-source-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** A ReaderOutput that keeps records and side-output records. */
class ListOutput<T> implements ReaderOutput<T> {
  readonly values: T[] = [];
  readonly side: unknown[] = [];
  collect(value: T): void {
    this.values.push(value);
  }
  collectSide<X>(_tag: OutputTag<X>, value: X): void {
    this.side.push(value);
  }
}

async function drain<T>(
  reader: SourceReader<T>,
  output: ListOutput<T>,
  maxPolls = Infinity,
): Promise<PollResult> {
  let result: PollResult = 'more';
  for (let i = 0; i < maxPolls && result === 'more'; i++) result = await reader.pollNext(output);
  return result;
}

async function readAll<T>(source: Source<T>, parallelism = 1): Promise<T[]> {
  const env = StreamExecutionEnvironment.create({ parallelism });
  return env.fromSource(source, undefined, 'files').executeAndCollect();
}

/**
 * Reads a source in two runs: `polls` polls, a snapshot of the splits (cloned as a checkpoint would be), then a
 * new reader restored from them reads the rest. Returns both parts and the snapshotted splits.
 */
async function readInTwoRuns<T>(source: Source<T>, polls: number, subtaskIndex = 0, parallelism = 1) {
  const context = { subtaskIndex, parallelism, sourceName: 'files' };
  const first = openSourceReader(source, context);
  const before = new ListOutput<T>();
  await drain(first, before, polls);
  const position = structuredClone(first.snapshotState!());
  await first.close?.();
  const restored: unknown[] = new Array(parallelism).fill([]);
  restored[subtaskIndex] = position;
  const second = openSourceReader(source, context, restored);
  const rest = new ListOutput<T>();
  assert.equal(await drain(second, rest), 'end');
  await second.close?.();
  return { before: before.values, rest: rest.values, position };
}

const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const sortNumbers = (values: number[]) => [...values].sort((a, b) => a - b);

describe('FileSource.jsonLines', () => {
  it('reads one value per line, skipping blank lines, with CRLF, a BOM and no final newline', async () => {
    const path = file('basic.jsonl', '\uFEFF{"a":1}\r\n\r\n  \n{"a":2,"s":"é ✓"}\n[3]\n"four"');
    assert.deepEqual(await readAll(FileSource.jsonLines(path)), [{ a: 1 }, { a: 2, s: 'é ✓' }, [3], 'four']);
  });

  it('applies the mapper', async () => {
    const path = file('mapped.jsonl', jsonl([{ n: '1' }, { n: '22' }]));
    const source = FileSource.jsonLines<number>(path, { map: (v: { n: string }) => Number(v.n) });
    assert.deepEqual(await readAll(source), [1, 22]);
  });

  it('fails the job on invalid JSON with a MalformedRecordError naming file:line', async () => {
    const path = file('bad.jsonl', '{"a":1}\n\n{"a":\n{"a":3}\n');
    await assert.rejects(readAll(FileSource.jsonLines(path)), (error: unknown) => {
      assert.ok(error instanceof MalformedRecordError);
      assert.equal(error.file, path);
      assert.equal(error.line, 3);
      assert.equal(error.text, '{"a":');
      assert.match(
        error.message,
        new RegExp(
          `^Malformed record at ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: .*JSON.* — \\{"a":$`,
        ),
      );
      return true;
    });
  });

  it('sends malformed lines (bad JSON, a throwing mapper) to the side output and goes on', async () => {
    const path = file('side.jsonl', '{"n":1}\nnot json\n{"n":-2}\n{"n":3}\n');
    const bad = new OutputTag<MalformedRecord>('bad');
    const env = StreamExecutionEnvironment.create();
    const good = new CollectSink<number>();
    const rejected = new CollectSink<MalformedRecord>();
    const map = (v: { n: number }) => {
      if (v.n < 0) throw new RangeError(`negative: ${v.n}`);
      return v.n;
    };
    const stream = env.fromSource(
      FileSource.jsonLines<number>(path, { malformed: bad, map }),
      undefined,
      'numbers',
    );
    stream.sinkTo(good);
    stream.getSideOutput(bad).sinkTo(rejected as Sink<MalformedRecord>);
    await env.execute();
    assert.deepEqual(good.values, [1, 3]);
    assert.equal(rejected.values.length, 2);
    assert.deepEqual(rejected.values[0]!.file, path);
    assert.equal(rejected.values[0]!.line, 2);
    assert.equal(rejected.values[0]!.text, 'not json');
    assert.match(rejected.values[0]!.error, /JSON/);
    assert.deepEqual(rejected.values[1], { file: path, line: 3, text: '{"n":-2}', error: 'negative: -2' });
  });

  it('splits files across subtasks: parallelism 1 and 3 read the same multiset; directories expand', async () => {
    const sub = join(dir, 'parts');
    mkdirSync(sub);
    const paths: string[] = [];
    for (let f = 0; f < 5; f++) {
      const path = join(sub, `f${f}.jsonl`);
      writeFileSync(path, jsonl(Array.from({ length: 1_500 + f * 7 }, (_, i) => f * 10_000 + i)));
      paths.push(path);
    }
    writeFileSync(join(sub, '.hidden.inprogress'), 'garbage\n');
    const one = sortNumbers(await readAll(FileSource.jsonLines<number>(paths), 1));
    const three = sortNumbers(await readAll(FileSource.jsonLines<number>(paths), 3));
    const fromDirectory = sortNumbers(await readAll(FileSource.jsonLines<number>(sub), 3));
    assert.equal(one.length, 5 * 1_500 + 7 * 10);
    assert.deepEqual(three, one);
    assert.deepEqual(fromDirectory, one);
    const reader = openSourceReader(FileSource.jsonLines<number>(paths), {
      subtaskIndex: 1,
      parallelism: 3,
      sourceName: 's',
    });
    const out = new ListOutput<number>();
    await drain(reader, out);
    assert.deepEqual(
      new Set(out.values.map((v) => Math.floor(v / 10_000))),
      new Set([1, 4]),
      'subtask 1 of 3 reads files 1 and 4',
    );
  });

  it('reads gzip files', async () => {
    const records = Array.from({ length: 3_000 }, (_, i) => ({ i }));
    const path = file('zipped.jsonl.gz', gzipSync(jsonl(records)));
    assert.deepEqual(await readAll(FileSource.jsonLines(path)), records);
  });

  it('restores mid-file and mid-list: the rest comes exactly once (plain, gzip, several files)', async () => {
    const records = Array.from({ length: 2_345 }, (_, i) => ({
      i,
      pad: 'x'.repeat(i % 50),
      s: i % 7 === 0 ? 'ü' : '',
    }));
    const text = jsonl(records).replace(/\n/g, (m, at: number) => (at % 3 === 0 ? '\n\n' : m));
    const plain = file('restore.jsonl', text);
    const zipped = file('restore.jsonl.gz', gzipSync(text));
    for (const path of [plain, zipped]) {
      for (const polls of [1, 2, 3]) {
        const { before, rest, position } = await readInTwoRuns(
          FileSource.jsonLines(path, { batchSize: 700 }),
          polls,
        );
        assert.equal(before.length, Math.min(700 * polls, records.length), `${path} after ${polls} polls`);
        assert.deepEqual([...before, ...rest], records, `${path} after ${polls} polls`);
        const [split, ...others] = position as FileSourceSplit[];
        assert.equal(split!.path, path);
        assert.ok(split!.line > 0, 'a split taken mid-file');
        assert.deepEqual(others, []);
      }
    }
    const many = FileSource.jsonLines([plain, zipped, plain], { batchSize: 1_000 });
    for (const polls of [2, 4, 5, 7]) {
      const { before, rest } = await readInTwoRuns(many, polls);
      assert.deepEqual(
        [...before, ...rest],
        [...records, ...records, ...records],
        `3 files after ${polls} polls`,
      );
    }
  });

  it('a finished reader restores to a finished reader', async () => {
    const path = file('done.jsonl', jsonl([1, 2]));
    const { before, rest } = await readInTwoRuns(FileSource.jsonLines(path), 10);
    assert.deepEqual(before, [1, 2]);
    assert.deepEqual(rest, []);
  });

  it('rejects a split that is not one and reports a missing file by name', async () => {
    const a = file('a.jsonl', '1\n');
    const context = { subtaskIndex: 0, parallelism: 1, sourceName: 's' };
    assert.throws(
      () => openSourceReader(FileSource.jsonLines([a]), context, [[{ file: 1, offset: 0, line: 0 }]]),
      /FileSource 's': not a file split: \{"file":1,"offset":0,"line":0\}/,
    );
    const missing = join(dir, 'missing.jsonl');
    await assert.rejects(readAll(FileSource.jsonLines(missing)), new RegExp(`cannot read '${missing}'`));
    assert.throws(() => FileSource.jsonLines([]), /non-empty array/);
  });

  it('streams a 200k-line file with bounded buffer memory', async () => {
    const path = join(dir, 'large.jsonl');
    const out = createWriteStream(path);
    const pad = 'p'.repeat(150);
    for (let i = 0; i < 200_000; i++) out.write(`{"id":${i},"user":${i % 977},"pad":"${pad}"}\n`);
    await new Promise<void>((resolve, reject) =>
      out.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    collectGarbage();
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = 0;
    let count = 0;
    let sum = 0;
    const counting: Sink<{ id: number }> = {
      createWriter: () => ({
        write(value) {
          count++;
          sum += value.id;
          if ((count & 4095) === 0) {
            // Collect first: what is measured is the Buffers the source still holds, not spent chunks the
            // collector has not reached yet (how many of those linger differs between Node versions).
            collectGarbage();
            peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline);
          }
        },
      }),
    };
    const env = StreamExecutionEnvironment.create();
    env.fromSource(FileSource.jsonLines<{ id: number }>(path), undefined, 'large').sinkTo(counting);
    await env.execute();
    assert.equal(count, 200_000);
    assert.equal(sum, (199_999 * 200_000) / 2);
    // The file is ~36 MB; reading it whole would hold all of it in Buffers. Streaming holds a chunk or two.
    assert.ok(peak < 16 * 1024 * 1024, `peak buffer memory ${peak} bytes`);
  });
});

describe('FileSource.csv', () => {
  it('turns rows into objects named by the header, with quoted fields spanning lines', async () => {
    const path = file(
      'basic.csv',
      'id,name,note\r\n1,ada,"likes ""quotes"""\r\n2,bob,"two\r\nlines"\r\n\r\n3,cy,\r\n',
    );
    assert.deepEqual(await readAll(FileSource.csv(path)), [
      { id: '1', name: 'ada', note: 'likes "quotes"' },
      { id: '2', name: 'bob', note: 'two\r\nlines' },
      { id: '3', name: 'cy', note: '' },
    ]);
  });

  it('converts with cast, per-column parsers and a mapper; honours delimiter, columns and header options', async () => {
    const semi = file('semi.csv', 'a;b;when\n1;x;2024-01-02T00:00:00Z\n2.5;y;2024-01-03T00:00:00Z\n');
    assert.deepEqual(
      await readAll(FileSource.csv(semi, { delimiter: ';', cast: true, parsers: { when: Date.parse } })),
      [
        { a: 1, b: 'x', when: Date.parse('2024-01-02T00:00:00Z') },
        { a: 2.5, b: 'y', when: Date.parse('2024-01-03T00:00:00Z') },
      ],
    );
    const plain = file('noheader.csv', '1,2\n3,4\n');
    assert.deepEqual(await readAll(FileSource.csv(plain, { header: false })), [
      ['1', '2'],
      ['3', '4'],
    ]);
    assert.deepEqual(
      await readAll(FileSource.csv(plain, { header: false, columns: ['x', 'y'], cast: true })),
      [
        { x: 1, y: 2 },
        { x: 3, y: 4 },
      ],
    );
    const renamed = file('renamed.csv', 'A,B\n1,2\n');
    const source = FileSource.csv<number>(renamed, {
      columns: ['x', 'y'],
      parsers: { x: Number, y: Number },
      map: (r: { x: number; y: number }) => r.x + r.y,
    });
    assert.deepEqual(await readAll(source), [3]);
  });

  it('fails on a row with the wrong number of fields, naming file:line', async () => {
    const path = file('short.csv', 'a,b\n1,2\n"multi\nline",2\n3\n4,5\n');
    await assert.rejects(readAll(FileSource.csv(path)), (error: unknown) => {
      assert.ok(error instanceof MalformedRecordError);
      assert.equal(error.line, 5);
      assert.equal(error.text, '3');
      assert.ok(
        error.message.startsWith(`Malformed record at ${path}:5: Invalid Record Length`),
        error.message,
      );
      return true;
    });
  });

  it('sends bad rows (field count, a throwing parser) to the side output with their lines', async () => {
    const path = file('side.csv', 'a,b\n0\n1,2\n3\n"x\ny",z\nbad,4\n5,6,7\n8,9');
    const bad = new OutputTag<MalformedRecord>('bad-rows');
    const env = StreamExecutionEnvironment.create();
    const good = new CollectSink<unknown>();
    const rejected = new CollectSink<MalformedRecord>();
    const number = (text: string) => {
      const n = Number(text);
      if (Number.isNaN(n)) throw new TypeError(`not a number: ${text}`);
      return n;
    };
    const stream = env.fromSource(
      FileSource.csv(path, { malformed: bad, parsers: { a: number } }),
      undefined,
      'rows',
    );
    stream.sinkTo(good);
    stream.getSideOutput(bad).sinkTo(rejected as Sink<MalformedRecord>);
    await env.execute();
    assert.deepEqual(good.values, [
      { a: 1, b: '2' },
      { a: 8, b: '9' },
    ]);
    assert.deepEqual(
      rejected.values.map((r) => [r.line, r.text]),
      [
        [2, '0'],
        [4, '3'],
        [5, '"x\ny",z'],
        [7, 'bad,4'],
        [8, '5,6,7'],
      ],
    );
    assert.match(rejected.values[0]!.error, /Invalid Record Length/);
    assert.equal(rejected.values[2]!.error, `column 'a': the parser failed on "x\\ny": not a number: x\ny`);
  });

  it('numbers lines right with CRLF inside quoted fields, and resumes after an unterminated last row', async () => {
    const path = file('crlf.csv', 'a,b\r\n"x\r\ny",1\r\n\r\n2\r\n3,4');
    const bad = new OutputTag<MalformedRecord>('bad');
    const source = FileSource.csv(path, { malformed: bad, batchSize: 1 });
    const context = { subtaskIndex: 0, parallelism: 1, sourceName: 's' };
    const reader = openSourceReader(source, context);
    const out = new ListOutput<unknown>();
    await drain(reader, out, 3);
    assert.deepEqual(out.values, [
      { a: 'x\r\ny', b: '1' },
      { a: '3', b: '4' },
    ]);
    assert.deepEqual(out.side, [
      { file: path, line: 5, text: '2', error: (out.side[0] as MalformedRecord).error },
    ]);
    const restored = openSourceReader(source, context, [structuredClone(reader.snapshotState!())]);
    const rest = new ListOutput<unknown>();
    assert.equal(await drain(restored, rest), 'end');
    assert.deepEqual(rest.values, []);
  });

  it('restores after the header and inside multi-line records: the rest comes exactly once', async () => {
    let text = 'id,text\n';
    const expected: { id: string; text: string }[] = [];
    for (let i = 0; i < 2_000; i++) {
      const value = i % 5 === 0 ? `line\nbreak ${i}` : `plain ${i}`;
      text += `${i},"${value}"\n`;
      expected.push({ id: String(i), text: value });
    }
    for (const path of [file('restore.csv', text), file('restore.csv.gz', gzipSync(text))]) {
      for (const polls of [1, 2]) {
        const { before, rest } = await readInTwoRuns(FileSource.csv(path, { batchSize: 600 }), polls);
        assert.equal(before.length, 600 * polls);
        assert.deepEqual([...before, ...rest], expected, `${path} after ${polls} polls`);
      }
    }
  });

  it('keeps line numbers right after a restore', async () => {
    const path = file('lines.csv', 'a,b\n1,2\n3,4\n5\n6,7\n');
    const bad = new OutputTag<MalformedRecord>('bad');
    const source = FileSource.csv(path, { malformed: bad, batchSize: 1 });
    const context = { subtaskIndex: 0, parallelism: 1, sourceName: 's' };
    const first = openSourceReader(source, context);
    await drain(first, new ListOutput(), 2);
    const second = openSourceReader(source, context, [structuredClone(first.snapshotState!())]);
    const out = new ListOutput<unknown>();
    await drain(second, out);
    assert.deepEqual(out.values, [{ a: '6', b: '7' }]);
    assert.deepEqual(
      (out.side as MalformedRecord[]).map((r) => r.line),
      [4],
    );
  });

  it('reads a directory of CSV files at parallelism 1 and 3 alike', async () => {
    const sub = join(dir, 'csvs');
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 4; f++) {
      // In worker mode each worker replays this body up to its job while others already read the files: a file
      // written in place would be truncated under a reader (one file read empty: 3,600 of 4,800), so each is
      // written aside under a name of its own (the worker-mode harness gives a replayed mkdtemp the main thread's
      // directory) and renamed in, which a reader sees whole or not at all.
      const aside = join(dir, `p${f}-${randomUUID()}.part`);
      writeFileSync(aside, 'n\n' + Array.from({ length: 1_200 }, (_, i) => f * 10_000 + i).join('\n') + '\n');
      renameSync(aside, join(sub, `p${f}.csv`));
    }
    const read = async (p: number) =>
      sortNumbers(await readAll(FileSource.csv<number>(sub, { map: (r: { n: string }) => Number(r.n) }), p));
    const one = await read(1);
    assert.equal(one.length, 4_800);
    assert.deepEqual(await read(3), one);
  });
});

describe('FileSource progress gauges', () => {
  /** A reader of `source` whose gauges land in a map, read as [fileBytesRead, fileBytesTotal, fileReadPercentage]. */
  function withGauges<T>(source: Source<T>, restored?: unknown[]) {
    const gauges = new Map<string, Metric>();
    const metricGroup = new MetricGroupImpl(
      { register: (_group, name, metric) => gauges.set(name, metric) },
      'operator',
      {},
      [],
    );
    const reader = openSourceReader(
      source,
      { subtaskIndex: 0, parallelism: 1, sourceName: 'files', metricGroup },
      restored,
    );
    const progress = () =>
      ['fileBytesRead', 'fileBytesTotal', 'fileReadPercentage'].map((n) => metricValue(gauges.get(n)!));
    return { reader, progress };
  }

  // 10 bytes a line: {"n":100}\n
  const lines = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `{"n":${from + i}}\n`).join('');

  it('reports bytes read of the files (decompressed for gzip), their total and the percentage, as the reader goes', async () => {
    const plain = file('progress-a.jsonl', lines(100, 4));
    const zipped = file('progress-b.jsonl.gz', gzipSync(lines(200, 6)));
    const { reader, progress } = withGauges(
      FileSource.jsonLines<{ n: number }>([plain, zipped], { batchSize: 3 }),
    );
    const out = new ListOutput<{ n: number }>();
    const seen = [progress()];
    while ((await reader.pollNext(out)) === 'more') seen.push(progress());
    seen.push(progress());
    assert.equal(out.values.length, 10);
    assert.deepEqual(seen, [
      [0, 100, 0],
      [30, 100, 30],
      // The second poll takes the last line of the plain file and goes on into the gzip file in the same batch.
      [70, 100, 70],
      [100, 100, 100],
      [100, 100, 100],
    ]);
  });

  it('counts what lies before a restored position as read', async () => {
    const path = file('progress-c.jsonl', lines(300, 8));
    const source = FileSource.jsonLines<{ n: number }>(path, { batchSize: 3 });
    const first = openSourceReader(source, { subtaskIndex: 0, parallelism: 1, sourceName: 'files' });
    await first.pollNext(new ListOutput());
    const position = structuredClone(first.snapshotState!());
    await first.close?.();
    const { reader, progress } = withGauges(source, [position]);
    assert.deepEqual(progress(), [30, 80, 37.5]);
    await reader.pollNext(new ListOutput());
    assert.deepEqual(progress(), [60, 80, 75]);
  });
});
