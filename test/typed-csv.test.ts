// FileSource.csv infers its record type from column parsers, column names and a row mapper, and checks parsers
// against a declared record type at compile time.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { ConfigurationError } from '../src/core/errors.ts';
import { FileSource } from '../src/connectors/file-source.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-typed-csv-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const trades = join(dir, 'trades.csv');
writeFileSync(trades, 'symbol,price,ts\nACME,12.5,2024-01-02T00:00:00Z\nINIT,3,2024-01-03T00:00:00Z\n');

async function readAll<T>(source: FileSource<T>): Promise<T[]> {
  const env = StreamExecutionEnvironment.create();
  return env.fromSource(source, undefined, 'csv').executeAndCollect();
}

/** Compiles only when A and B are the same type. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(_proof: Equal<A, B>): void => {};
type RecordOf<S> = S extends FileSource<infer T> ? T : never;

interface Trade {
  symbol: string;
  price: number;
  ts: number;
}

describe('FileSource.csv record types', () => {
  it('parsers type their columns; the other named columns are strings', async () => {
    const source = FileSource.csv(trades, {
      columns: ['symbol', 'price', 'ts'],
      parsers: { price: Number, ts: Date.parse },
    });
    same<RecordOf<typeof source>, { price: number; ts: number; symbol: string }>(true);
    // With a header (the default), `columns` names the header's columns.
    const rows = await readAll(source);
    assert.deepEqual(rows, [
      { symbol: 'ACME', price: 12.5, ts: Date.parse('2024-01-02T00:00:00Z') },
      { symbol: 'INIT', price: 3, ts: Date.parse('2024-01-03T00:00:00Z') },
    ]);
    const total: number = rows.reduce((sum, r) => sum + r.price, 0);
    assert.equal(total, 15.5);
  });

  it('without column names, parsed columns are typed and the rest are unknown', async () => {
    const source = FileSource.csv(trades, { parsers: { price: Number } });
    const rows = await readAll(source);
    const price: number = rows[0]!.price;
    const symbol: unknown = rows[0]!.symbol;
    assert.equal(price, 12.5);
    assert.equal(symbol, 'ACME');
  });

  it('a row mapper gets the typed row and decides the record type', async () => {
    const source = FileSource.csv(trades, {
      columns: ['symbol', 'price', 'ts'],
      parsers: { price: Number },
      map: (row) => ({ symbol: row.symbol.toLowerCase(), cents: Math.round(row.price * 100) }),
    });
    same<RecordOf<typeof source>, { symbol: string; cents: number }>(true);
    assert.deepEqual(await readAll(source), [
      { symbol: 'acme', cents: 1250 },
      { symbol: 'init', cents: 300 },
    ]);
  });

  it('no options: rows of strings', async () => {
    const source = FileSource.csv(trades);
    same<RecordOf<typeof source>, Record<string, string>>(true);
    assert.deepEqual((await readAll(source))[0], {
      symbol: 'ACME',
      price: '12.5',
      ts: '2024-01-02T00:00:00Z',
    });
  });

  it('a declared record type checks parser names and return types', async () => {
    const source = FileSource.csv<Trade>(trades, { parsers: { price: Number, ts: Date.parse } });
    assert.deepEqual((await readAll(source))[1], {
      symbol: 'INIT',
      price: 3,
      ts: Date.parse('2024-01-03T00:00:00Z'),
    });
    // @ts-expect-error a typo in a parser key does not compile
    FileSource.csv<Trade>(trades, { parsers: { prise: Number } });
    // @ts-expect-error a parser returning the wrong type does not compile
    FileSource.csv<Trade>(trades, { parsers: { price: (text: string) => text.trim() } });
  });

  it('with column names, a parser for another column does not compile, and fails when the job is defined', () => {
    assert.throws(
      () =>
        // @ts-expect-error 'ts' is not among the columns
        FileSource.csv(trades, {
          columns: ['symbol', 'price'],
          parsers: { ts: Date.parse },
        }),
      (e: unknown) =>
        e instanceof ConfigurationError &&
        e.message ===
          'FileSource.csv: parsers for columns that are not among the columns [symbol, price]: ts',
    );
  });
});
