// KeyRows: one row of cells per key, found through the index, freed rows reused and compacted away.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyFirstStateTable } from './key-first-state-table.ts';
import { KeyRows, NO_ROW } from './key-rows.ts';
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import { structuredCloneSerializer } from '../../core/type-serializer.ts';

const byName: NamespaceSerializer<string> & { hashing: NamespaceHashing<string> } = {
  key: (n) => n,
  serializer: structuredCloneSerializer,
  hashing: { hash: () => 0, equals: (a, b) => a === b, fewPerKey: true },
};

/** Every (key, value) a table holds, sorted. */
const entriesOf = (table: KeyFirstStateTable<number>): string[] => {
  const out: string[] = [];
  for (const inner of table.namespaces())
    for (const [key, value] of inner) out.push(`${String(inner.namespace)} ${String(key)} ${value}`);
  return out.sort();
};

describe('KeyRows', () => {
  it('gives a new key the row a departed key freed, holding nothing of it', () => {
    const rows = new KeyRows();
    const panes = new KeyFirstStateTable<number>(byName, rows);
    const sets = new KeyFirstStateTable<number>(byName, rows);
    panes.write(1, 0, 'a', 10);
    sets.write(1, 0, 'v', 11);
    panes.write(2, 0, 'a', 20);
    const row = rows.rowOf(1);
    assert.notEqual(row, NO_ROW);
    panes.remove(0, 1, 'a');
    sets.remove(0, 1, 'v');
    assert.deepEqual([rows.rowOf(1), rows.size], [NO_ROW, 1]);
    panes.write('k', 0, 'b', 30);
    assert.equal(rows.rowOf('k'), row, 'the freed row, not a new one');
    assert.deepEqual(
      [panes.read('k', 0, 'b'), sets.read('k', 0, 'v'), panes.read(1, 0, 'a'), panes.read(2, 0, 'a')],
      [30, undefined, undefined, 20],
    );
    assert.deepEqual(
      [...rows.rows()].map(([key]) => key),
      ['k', 2],
      'in the order of the cells',
    );
  });

  it('compacts its cells once free rows outnumber the held ones, every entry still found', () => {
    const rows = new KeyRows();
    const table = new KeyFirstStateTable<number>(byName, rows);
    const keys = 3000;
    for (let key = 0; key < keys; key++) table.write(key, 0, `w${key % 3}`, key);
    const full = rows.cells.length;
    // Every key but each tenth departs: 2,700 rows free beside 300 held.
    for (let key = 0; key < keys; key++) if (key % 10 !== 0) table.remove(0, key, `w${key % 3}`);
    assert.equal(rows.size, 300);
    assert.ok(
      rows.cells.length < full / 2,
      `cells ${rows.cells.length} of ${full}: compacted, not kept at the most ever held`,
    );
    const expected: string[] = [];
    for (let key = 0; key < keys; key += 10) expected.push(`w${key % 3} ${key} ${key}`);
    assert.deepEqual(entriesOf(table), expected.sort());
    for (let key = 0; key < keys; key++)
      assert.equal(table.read(key, 0, `w${key % 3}`), key % 10 === 0 ? key : undefined, `key ${key}`);
    // New keys after the compaction, and the held ones written again.
    for (let key = keys; key < keys + 100; key++) table.write(key, 0, 'x', key);
    for (let key = 0; key < keys; key += 10) table.write(key, 0, `w${key % 3}`, -key);
    assert.deepEqual(
      [table.read(keys + 99, 0, 'x'), table.read(20, 0, 'w2'), table.size()],
      [keys + 99, -20, 400],
    );
  });

  it('empties a column of every row at once, freeing the rows that held nothing else', () => {
    const rows = new KeyRows();
    const panes = new KeyFirstStateTable<number>(byName, rows);
    const sets = new KeyFirstStateTable<number>(byName, rows);
    for (let key = 0; key < 2000; key++) panes.write(key, 0, 'a', key);
    sets.write(7, 0, 'v', 70);
    panes.clear();
    assert.deepEqual(
      [rows.size, panes.size(), sets.size(), sets.read(7, 0, 'v'), panes.read(7, 0, 'a')],
      [1, 0, 1, 70, undefined],
    );
    assert.ok(rows.cells.length <= 7 * 2, `cells ${rows.cells.length}: compacted after the walk`);
  });
});
