// KeyFirstStateTable: entries by key then namespace, the same contents as the namespace-first table on any sequence.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyFirstStateTable } from './key-first-state-table.ts';
import { KeyRows } from './key-rows.ts';
import { StateTable } from './state-table.ts';
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import { structuredCloneSerializer } from '../../core/type-serializer.ts';

interface Win {
  start: number;
  end: number;
}
const w = (start: number, end: number): Win => ({ start, end });
/** Hashed by the start's parity, so windows of one key also share hashes; equal windows are other objects. */
const perKeyWindows: NamespaceSerializer<Win> & { hashing: NamespaceHashing<Win> } = {
  key: (n) => `${n.start}:${n.end}`,
  serializer: structuredCloneSerializer,
  hashing: {
    hash: (n) => n.start % 2,
    equals: (a, b) => a !== undefined && b !== undefined && a.start === b.start && a.end === b.end,
    fewPerKey: true,
  },
};

/** (namespace key, key, value) of every entry, sorted: what a snapshot of either table holds. */
const entriesOf = (table: StateTable<number>): string[] => {
  const out: string[] = [];
  for (const inner of table.namespaces())
    for (const [key, value] of inner)
      out.push(`${perKeyWindows.key(inner.namespace as Win)} ${key} ${value}`);
  return out.sort();
};

describe('KeyFirstStateTable', () => {
  it('keeps a key’s namespaces apart, finds them by identity or equality, and drops the key with its last one', () => {
    const table = new KeyFirstStateTable<number>(perKeyWindows);
    const [a, b, c] = [w(0, 10), w(2, 12), w(4, 14)];
    table.write('k', 0, a, 1);
    table.write('k', 0, b, 2);
    table.write('k', 0, c, 3);
    table.write('j', 0, w(0, 10), 4);
    assert.deepEqual(
      [a, b, c, w(0, 10), w(2, 12), w(4, 14), w(0, 11)].map((n) => table.read('k', 0, n)),
      [1, 2, 3, 1, 2, 3, undefined],
    );
    assert.deepEqual(
      [table.read('j', 0, a), table.read('j', 0, b), table.read('x', 0, a)],
      [4, undefined, undefined],
    );
    table.write('k', 0, w(2, 12), 20);
    table.write('k', 0, w(0, 10), 10);
    assert.deepEqual([table.read('k', 0, b), table.read('k', 0, a), table.size()], [20, 10, 4]);
    // The first namespace goes: the next takes its place; then one from the middle of the rest.
    table.remove(0, 'k', w(0, 10));
    assert.deepEqual(
      [a, b, c].map((n) => table.read('k', 0, n)),
      [undefined, 20, 3],
    );
    table.write('k', 0, a, 5);
    table.remove(0, 'k', w(4, 14));
    assert.deepEqual(
      [a, b, c].map((n) => table.read('k', 0, n)),
      [5, 20, undefined],
    );
    table.remove(0, 'k', w(6, 16));
    table.remove(0, 'missing', a);
    assert.equal(table.size(), 3, 'a namespace or key not there removes nothing');
    table.remove(0, 'k', b);
    table.remove(0, 'k', a);
    assert.deepEqual([table.read('k', 0, a), table.read('k', 0, b), table.size()], [undefined, undefined, 1]);
    table.write('k', 0, c, 7);
    assert.deepEqual(
      [table.read('k', 0, c), table.read('j', 0, a)],
      [7, 4],
      'a key written again after it went',
    );
    table.clear();
    assert.deepEqual([table.size(), table.read('k', 0, c), [...table.namespaces()]], [0, undefined, []]);
  });

  it('groups its entries by namespace as the namespace-first table does, keeping the namespace objects', () => {
    const table = new KeyFirstStateTable<number>(perKeyWindows);
    const [a, b] = [w(0, 10), w(1, 11)];
    table.write('k', 0, a, 1);
    table.write('j', 0, w(0, 10), 2);
    table.write('k', 1, b, 3);
    assert.deepEqual(
      [...table.namespaces()].map((inner) => [inner.namespace, [...inner]]),
      [
        [
          a,
          [
            ['k', 1],
            ['j', 2],
          ],
        ],
        [b, [['k', 3]]],
      ],
    );
    assert.equal([...table.namespaces()][0]!.namespace, a, 'the first object written for that window');
  });

  it('shares one row per key with the other key-first states: each its own column, the row gone with the last entry', () => {
    const rows = new KeyRows();
    const tables = [0, 1, 2].map(() => new KeyFirstStateTable<number>(perKeyWindows, rows));
    const [a, b] = [w(0, 10), w(2, 12)];
    tables[0]!.write('k', 0, a, 1);
    tables[1]!.write('k', 0, a, 2);
    tables[2]!.write('k', 0, b, 3);
    tables[2]!.write('k', 0, a, 4);
    assert.deepEqual(
      tables.map((t) => [t.read('k', 0, a), t.read('k', 0, b)]),
      [
        [1, undefined],
        [2, undefined],
        [4, 3],
      ],
    );
    // A state added once rows exist finds them empty in its column, and writes its own.
    const late = new KeyFirstStateTable<number>(perKeyWindows, rows);
    assert.equal(late.read('k', 0, a), undefined);
    late.write('k', 0, a, 5);
    late.write('j', 0, a, 6);
    assert.deepEqual(
      [late.read('k', 0, a), late.read('j', 0, a), tables[2]!.read('j', 0, a)],
      [5, 6, undefined],
    );
    assert.deepEqual([rows.size, tables.map((t) => t.size()), late.size()], [2, [1, 1, 2], 2]);
    tables[0]!.remove(0, 'k', a);
    tables[2]!.clear();
    assert.deepEqual(
      [
        tables[0]!.read('k', 0, a),
        tables[1]!.read('k', 0, a),
        tables[2]!.read('k', 0, b),
        late.read('k', 0, a),
      ],
      [undefined, 2, undefined, 5],
      'the other columns keep their entries',
    );
    late.clear();
    assert.deepEqual(
      [...rows.rows()].map(([key]) => key),
      ['k'],
      'j held only the cleared column',
    );
    tables[1]!.remove(0, 'k', w(0, 10));
    assert.equal(rows.size, 0, 'the row goes with its last entry');
    assert.equal(tables[1]!.read('k', 0, a), undefined);
    tables[1]!.write('k', 0, b, 7);
    assert.deepEqual(
      [tables[1]!.read('k', 0, b), late.read('k', 0, b)],
      [7, undefined],
      'a new row for the key',
    );
  });

  it('holds what the namespace-first table holds after any sequence of writes, reads and removals (fixed seed)', () => {
    let seed = 0x5e5510;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const windows = [w(0, 10), w(1, 10), w(2, 12), w(3, 13), w(4, 10), w(5, 15)];
    for (let round = 0; round < 20; round++) {
      // Beside another state's column in the same rows, written and cleared on its own (as the merging-window sets).
      const rows = new KeyRows();
      const other = new KeyFirstStateTable<number>(perKeyWindows, rows);
      const keyFirst = new KeyFirstStateTable<number>(perKeyWindows, rows);
      const reference = new StateTable<number>(perKeyWindows);
      for (let op = 0; op < 400; op++) {
        const key = next(6);
        const base = windows[next(windows.length)]!;
        // Half the time an equal window that is another object, as restored or re-assigned windows are.
        const ns = next(2) === 0 ? base : w(base.start, base.end);
        const nsKey = reference.keyOf(ns);
        const what = next(12);
        if (what === 10) other.write(key, 0, windows[0]!, op);
        else if (what === 11) other.remove(0, key, windows[0]!);
        else if (what < 5) {
          keyFirst.write(key, nsKey, ns, op);
          reference.write(key, nsKey, ns, op);
        } else if (what < 8) {
          keyFirst.remove(nsKey, key, ns);
          reference.remove(nsKey, key, ns);
        } else
          assert.equal(
            keyFirst.read(key, nsKey, ns),
            reference.read(key, nsKey, ns),
            `round ${round} op ${op}`,
          );
      }
      assert.deepEqual(entriesOf(keyFirst), entriesOf(reference), `round ${round}`);
      assert.equal(keyFirst.size(), reference.size());
    }
  });
});
