// StateTable: entries by namespace then key, with the namespace touched last cached and empty namespaces dropped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StateTable } from './state-table.ts';
import type { NamespaceSerializer } from '../namespace.ts';
import { structuredCloneSerializer } from '../../core/type-serializer.ts';

/** Windows hashed by their start's parity: most share a hash with another, so chains form. */
interface Win {
  start: number;
  end: number;
}
const keysAsked: Win[] = [];
const hashedWindows: NamespaceSerializer<Win> = {
  key: (w) => {
    keysAsked.push(w);
    return `${w.start}:${w.end}`;
  },
  serializer: structuredCloneSerializer,
  hashing: {
    hash: (w) => w.start % 2,
    equals: (a, b) => a.start === b.start && a.end === b.end,
  },
};
const w = (start: number, end: number): Win => ({ start, end });

/** Every namespace's entries, and the namespace objects kept for snapshots. */
const contents = (table: StateTable<number>) => ({
  entries: [...table.byNamespace].map(([ns, inner]) => [ns, [...inner]]),
  namespaces: [...table.byNamespace].map(([ns, inner]) => [ns, inner.namespace]),
});

describe('StateTable', () => {
  it('removes from the namespace named, not the one cached', () => {
    const table = new StateTable<number>();
    table.entriesForWrite('a', { w: 'a' }).set('k', 1);
    table.entriesForWrite('b', { w: 'b' }).set('k', 2);
    table.entriesOf('a');
    table.remove('b', 'k');
    assert.deepEqual(contents(table), { entries: [['a', [['k', 1]]]], namespaces: [['a', { w: 'a' }]] });
    assert.equal(table.entriesOf('b'), undefined);
  });

  it('drops a namespace with its last entry, and writes to it again land in a new one', () => {
    const table = new StateTable<number>();
    table.entriesForWrite('a', { w: 'a' }).set('k', 1);
    table.remove('a', 'k');
    assert.deepEqual(contents(table), { entries: [], namespaces: [] });
    assert.equal(table.entriesOf('a'), undefined);
    table.entriesForWrite('a', { w: 'a2' }).set('j', 2);
    assert.deepEqual(contents(table), { entries: [['a', [['j', 2]]]], namespaces: [['a', { w: 'a2' }]] });
    assert.equal(table.size(), 1);
    table.remove('missing', 'k');
    assert.equal(table.size(), 1);
  });

  it('a namespace keeps one key or many alike: reads, overwrites, deletes and insertion order', () => {
    const table = new StateTable<number>();
    const inner = table.entriesForWrite('w', { w: 1 });
    inner.set('k', 1).set('k', 2);
    assert.deepEqual([inner.size, inner.get('k'), inner.get('j'), [...inner]], [1, 2, undefined, [['k', 2]]]);
    assert.equal(inner.delete('j'), false, 'another key is not the one held');
    inner.set('j', 3).set(7, 4);
    assert.deepEqual(
      [inner.size, inner.get('k'), inner.get('j'), inner.get(7), inner.get('7')],
      [3, 2, 3, 4, undefined],
    );
    assert.deepEqual([...inner.keys()], ['k', 'j', 7]);
    assert.equal(inner.delete('k'), true);
    assert.deepEqual(
      [...inner],
      [
        ['j', 3],
        [7, 4],
      ],
    );
    table.remove('w', 'j');
    table.remove('w', 7);
    assert.equal(table.entriesOf('w'), undefined, 'dropped with its last key');
    const single = table.entriesForWrite('v', {});
    single.set(0, 1);
    assert.equal(single.get(0), 1);
    assert.equal(single.delete(0), true);
    assert.deepEqual([single.size, single.get(0), [...single]], [0, undefined, []]);
  });

  it('a namespace holds up to eight keys in its flat array, then a Map, in insertion order through every form', () => {
    const table = new StateTable<unknown>();
    const inner = table.entriesForWrite('w', {});
    const list = [1, 2];
    inner.set(0, 'a').set(1, list);
    assert.deepEqual([inner.size, inner.get(1), inner.get(2)], [2, list, undefined]);
    assert.equal(inner.get(1), list, 'an array value stays one value');
    for (let k = 2; k < 8; k++) inner.set(k, k);
    inner.set(3, 'three');
    assert.deepEqual([...inner.keys()], [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual([inner.size, inner.get(3), inner.get(7), inner.get(8)], [8, 'three', 7, undefined]);
    assert.equal(inner.delete(8), false, 'a key not held');
    assert.equal(inner.delete(0), true);
    assert.deepEqual([...inner.keys()], [1, 2, 3, 4, 5, 6, 7]);
    inner.set(8, 8).set(9, 9);
    assert.deepEqual(
      [inner.size, [...inner.keys()]],
      [9, [1, 2, 3, 4, 5, 6, 7, 8, 9]],
      'the ninth key: a Map',
    );
    assert.deepEqual([inner.get(1), inner.get(3), inner.get(9), inner.get(0)], [list, 'three', 9, undefined]);
    for (let k = 1; k < 9; k++) inner.delete(k);
    assert.deepEqual([...inner], [[9, 9]]);
    const two = table.entriesForWrite('v', {});
    two.set('x', 1).set('y', 2);
    assert.equal(two.delete('x'), true);
    assert.deepEqual([two.size, [...two], two.get('y'), two.get('x')], [1, [['y', 2]], 2, undefined]);
    two.set('z', 3);
    assert.equal(two.delete('z'), true, 'the last of two goes');
    assert.deepEqual([...two], [['y', 2]]);
    assert.equal(two.delete('y'), true);
    assert.equal(two.size, 0);
  });

  it('clear empties the table and its cache', () => {
    const table = new StateTable<number>();
    table.entriesForWrite('a', {}).set('k', 1);
    table.entriesForWrite('b', {}).set('k', 2);
    table.clear();
    assert.deepEqual(contents(table), { entries: [], namespaces: [] });
    assert.equal(table.entriesOf('b'), undefined);
    assert.equal(table.size(), 0);
  });

  it('indexes by hash when the namespaces have one: namespaces of one hash stay apart, found by equality', () => {
    keysAsked.length = 0;
    const table = new StateTable<number>(hashedWindows);
    const [a, b, c] = [w(0, 10), w(2, 10), w(4, 10)];
    assert.deepEqual([table.keyOf(a), table.keyOf(w(1, 10))], [0, 1]);
    for (const [ns, v] of [
      [a, 1],
      [b, 2],
      [c, 3],
    ] as const)
      table.entriesForWrite(table.keyOf(ns), ns).set('k', v);
    assert.deepEqual([...table.byNamespace.keys()], [0], 'one lookup key for the three');
    assert.equal(table.size(), 3);
    // Equal windows that are other objects find the entries; the cache never answers for another window.
    for (const [ns, v] of [
      [w(0, 10), 1],
      [w(2, 10), 2],
      [w(4, 10), 3],
      [w(4, 10), 3],
      [w(0, 10), 1],
    ] as const)
      assert.equal(table.entriesOf(0, ns)?.get('k'), v);
    assert.equal(table.entriesOf(0, w(0, 11)), undefined, 'same hash, other window');
    assert.equal(table.entriesOf(0, w(6, 10)), undefined);
    assert.equal(table.entriesForWrite(0, w(2, 10)), table.entriesOf(0, b), 'written to the one there');
    assert.deepEqual(
      [...table.namespaces()].map((inner) => [inner.namespace, [...inner]]),
      [
        [c, [['k', 3]]],
        [b, [['k', 2]]],
        [a, [['k', 1]]],
      ],
    );
    assert.deepEqual(keysAsked, [], 'no key built');
  });

  it('removes a namespace from the head, the middle or the end of its hash chain, keeping the others', () => {
    for (const [gone, left] of [
      [4, [2, 0]],
      [2, [4, 0]],
      [0, [4, 2]],
    ] as const) {
      const table = new StateTable<number>(hashedWindows);
      for (const start of [0, 2, 4]) table.entriesForWrite(0, w(start, 10)).set('k', start);
      table.entriesOf(0, w(gone, 10));
      table.remove(0, 'j', w(gone, 10));
      assert.equal(table.size(), 3, 'another key of the namespace: nothing removed');
      table.remove(0, 'k', w(gone, 10));
      assert.equal(table.entriesOf(0, w(gone, 10)), undefined, `${gone} gone, and not cached`);
      assert.deepEqual(
        [...table.namespaces()].map((inner) => [...inner][0]![1]),
        left,
      );
      for (const start of left) assert.equal(table.entriesOf(0, w(start, 10))?.get('k'), start);
      table.remove(0, 'k', w(6, 10));
      assert.equal(table.size(), 2, 'a window not there removes nothing');
      for (const start of left) table.remove(0, 'k', w(start, 10));
      assert.deepEqual([table.size(), table.byNamespace.size], [0, 0]);
    }
  });

  it('a namespace of many keys in a chain keeps the others when one key goes', () => {
    const table = new StateTable<number>(hashedWindows);
    table.entriesForWrite(0, w(0, 10)).set('k', 1).set('j', 2);
    table.entriesForWrite(0, w(2, 10)).set('k', 3);
    table.remove(0, 'k', w(0, 10));
    assert.deepEqual(
      [...table.namespaces()].map((inner) => [inner.namespace, [...inner]]),
      [
        [w(2, 10), [['k', 3]]],
        [w(0, 10), [['j', 2]]],
      ],
    );
  });

  it('without hashing, the lookup key is the serializer key and the namespace object is not compared', () => {
    const plain = new StateTable<number>({ key: (n: Win) => n.start, serializer: structuredCloneSerializer });
    assert.equal(plain.keyOf(w(7, 9)), 7);
    plain.entriesForWrite(7, w(7, 9)).set('k', 1);
    assert.equal(plain.entriesOf(7, w(7, 100))?.get('k'), 1, 'one key, one namespace');
    plain.remove(7, 'k', w(7, 100));
    assert.equal(plain.size(), 0);
    assert.equal(new StateTable<number>().keyOf('w'), 'w', 'by default the namespace is its own key');
  });
});
