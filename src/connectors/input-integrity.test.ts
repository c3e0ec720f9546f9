// Inputs are never silently altered: invalid UTF-8, NaN-yielding CSV parsers, unterminated quotes, very long lines.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MalformedRecordError } from '../core/errors.ts';
import { OutputTag } from '../core/output-tag.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { CollectSink } from './collect-sink.ts';
import { FileSource } from './file-source.ts';
import { INVALID_UTF8 } from './json-lines-format.ts';
import { INVALID_UTF8_RECORD } from './csv-format.ts';
import type { MalformedRecord } from './malformed-record.ts';
import type { Sink } from '../core/sink.ts';
import type { Source } from '../core/source.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-input-integrity-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Runs a source with a malformed side output; returns the good records and the malformed ones. */
async function split<T>(make: (bad: OutputTag<MalformedRecord>) => Source<T>) {
  const bad = new OutputTag<MalformedRecord>('bad');
  const env = StreamExecutionEnvironment.create();
  const good = new CollectSink<T>();
  const rejected = new CollectSink<MalformedRecord>();
  const stream = env.fromSource(make(bad), undefined, 'in');
  stream.sinkTo(good as Sink<T>);
  stream.getSideOutput(bad).sinkTo(rejected as Sink<MalformedRecord>);
  await env.execute();
  return { good: good.values, bad: rejected.values };
}

describe('inputs are never silently altered', () => {
  it('a JSON line with invalid UTF-8 is malformed at file:line, not decoded with U+FFFD', async () => {
    const path = file(
      'bad-utf8.jsonl',
      Buffer.concat([
        Buffer.from('{"a":1}\n{"a":"x'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('"}\n{"a":"\uFFFD is a real character"}\n{"a":3}\n'),
      ]),
    );
    const { good, bad } = await split((tag) => FileSource.jsonLines(path, { malformed: tag }));
    assert.deepEqual(good, [{ a: 1 }, { a: '\uFFFD is a real character' }, { a: 3 }]);
    assert.deepEqual(
      bad.map((r) => [r.file, r.line, r.error]),
      [[path, 2, INVALID_UTF8]],
    );
    await assert.rejects(
      StreamExecutionEnvironment.create()
        .fromSource(FileSource.jsonLines(path), undefined, 'in')
        .executeAndCollect(),
      (error: unknown) => {
        assert.ok(error instanceof MalformedRecordError);
        assert.equal(error.line, 2);
        assert.ok(error.message.startsWith(`Malformed record at ${path}:2: invalid UTF-8`), error.message);
        return true;
      },
    );
  });

  it('a CSV record with invalid UTF-8 is malformed at file:line, also inside a multi-line quoted field', async () => {
    const path = file(
      'bad-utf8.csv',
      Buffer.concat([
        Buffer.from('id,text\n1,plain\n2,x'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('y\n3,"\uFFFD is real"\n4,"two\nlines '),
        Buffer.from([0xc3]),
        Buffer.from('"\n5,é\n'),
      ]),
    );
    const { good, bad } = await split((tag) => FileSource.csv(path, { malformed: tag }));
    assert.deepEqual(good, [
      { id: '1', text: 'plain' },
      { id: '3', text: '\uFFFD is real' },
      { id: '5', text: 'é' },
    ]);
    assert.deepEqual(
      bad.map((r) => [r.file, r.line, r.error]),
      [
        [path, 3, INVALID_UTF8_RECORD],
        [path, 5, INVALID_UTF8_RECORD],
      ],
    );
    await assert.rejects(
      StreamExecutionEnvironment.create()
        .fromSource(FileSource.csv(path), undefined, 'in')
        .executeAndCollect(),
      (error: unknown) => {
        assert.ok(error instanceof MalformedRecordError);
        assert.ok(error.message.startsWith(`Malformed record at ${path}:3: invalid UTF-8`), error.message);
        return true;
      },
    );
  });

  it('finds invalid UTF-8 in a line longer than a chunk, and keeps a character split across chunks intact', async () => {
    const long = 'é'.repeat(70_000); // 140,000 bytes: spans three 64 KiB chunks, with 'é' cut at a boundary
    const path = file(
      'long-utf8.jsonl',
      Buffer.concat([
        Buffer.from(`{"a":"${long}"}\n{"a":"${long}`),
        Buffer.from([0x80]),
        Buffer.from(`"}\n{"a":"${long}"}`),
      ]),
    );
    const { good, bad } = await split((tag) => FileSource.jsonLines<{ a: string }>(path, { malformed: tag }));
    assert.deepEqual(
      good.map((r) => r.a === long),
      [true, true],
    );
    assert.deepEqual(
      bad.map((r) => [r.line, r.error]),
      [[2, INVALID_UTF8]],
    );
  });

  it('a CSV column parser that returns NaN or throws makes the record malformed, naming the column', async () => {
    const path = file('prices.csv', 'sku,price,qty\na,1.5,2\nb,abc,3\nc,2,x\nd,4,5\n');
    const strictInt = (text: string) => {
      if (!/^\d+$/.test(text)) throw new RangeError(`not an integer`);
      return Number(text);
    };
    const { good, bad } = await split((tag) =>
      FileSource.csv(path, { malformed: tag, parsers: { price: Number, qty: strictInt } }),
    );
    assert.deepEqual(good, [
      { sku: 'a', price: 1.5, qty: 2 },
      { sku: 'd', price: 4, qty: 5 },
    ]);
    assert.deepEqual(
      bad.map((r) => [r.line, r.text, r.error]),
      [
        [3, 'b,abc,3', `column 'price': the parser returned NaN for "abc"`],
        [4, 'c,2,x', `column 'qty': the parser failed on "x": not an integer`],
      ],
    );
  });

  it('an unterminated CSV quote is reported at the line its record starts, and no later good line is lost', async () => {
    const path = file('quote.csv', 'a,b\n1,2\n\n3,"open\n4,5\n"6",7\n8,9\n');
    const { good, bad } = await split((tag) => FileSource.csv(path, { malformed: tag }));
    assert.deepEqual(good, [
      { a: '1', b: '2' },
      { a: '4', b: '5' },
      { a: '6', b: '7' },
      { a: '8', b: '9' },
    ]);
    assert.deepEqual(
      bad.map((r) => [r.line, r.text, r.error]),
      [
        [
          4,
          '3,"open',
          'unterminated quoted field: the record starting at line 4 opens a quote that is not closed where its field ends',
        ],
      ],
    );
    await assert.rejects(
      StreamExecutionEnvironment.create()
        .fromSource(FileSource.csv(path), undefined, 'in')
        .executeAndCollect(),
      (error: unknown) => {
        assert.ok(error instanceof MalformedRecordError);
        assert.equal(error.line, 4);
        return true;
      },
    );
  });

  it('recovers from two unterminated quotes in one file', async () => {
    const path = file('quotes.csv', 'a,b\n"x,1\n2,3\n4,"y\n5,6\n');
    const { good, bad } = await split((tag) => FileSource.csv(path, { malformed: tag }));
    assert.deepEqual(good, [
      { a: '2', b: '3' },
      { a: '5', b: '6' },
    ]);
    assert.deepEqual(
      bad.map((r) => r.line),
      [2, 4],
    );
  });

  it('reads a 5 MB line with its neighbours intact', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const path = file('big-line.jsonl', `{"n":1}\n{"s":"${big}"}\n{"n":2}\n`);
    const values = await StreamExecutionEnvironment.create()
      .fromSource(FileSource.jsonLines<{ n?: number; s?: string }>(path), undefined, 'in')
      .executeAndCollect();
    assert.deepEqual(
      values.map((v) => v.n ?? v.s!.length),
      [1, big.length, 2],
    );
  });
});
