// StateTable: entries by namespace then key, with the namespace touched last cached and empty namespaces dropped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StateTable } from './state-table.ts';

/** Every namespace's entries, and the namespace objects kept for snapshots. */
const contents = (table: StateTable<number>) => ({
  entries: [...table.byNamespace].map(([ns, inner]) => [ns, [...inner]]),
  namespaces: [...table.namespaces],
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
