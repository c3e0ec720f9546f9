// StateTable: entries by namespace then key, with the namespace touched last cached and empty namespaces dropped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StateTable } from './state-table.ts';

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

  it('clear empties the table and its cache', () => {
    const table = new StateTable<number>();
    table.entriesForWrite('a', {}).set('k', 1);
    table.entriesForWrite('b', {}).set('k', 2);
    table.clear();
    assert.deepEqual(contents(table), { entries: [], namespaces: [] });
    assert.equal(table.entriesOf('b'), undefined);
    assert.equal(table.size(), 0);
  });
});
