// Tests of the key-group snapshot format: a round trip of columns, and bytes of any other format refused by name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { IllegalStateError } from '../core/errors.ts';
import {
  columnNamespaces,
  decodeKeyGroup,
  encodeKeyGroup,
  StateColumnsBuilder,
  unpacked,
} from './key-group-format.ts';

describe('key-group snapshot format', () => {
  it('reads back the columns it wrote', () => {
    const builder = new StateColumnsBuilder('count', 'value', true, true);
    const ns = {};
    builder.add(ns, 'window-1', 'w1', 'a', 3, -1);
    builder.add(ns, 'window-1', 'w1', 'b', 5, 1_000);
    const [columns] = decodeKeyGroup(7, encodeKeyGroup([builder.build()]));
    assert.equal(columns!.name, 'count');
    assert.equal(columns!.format, 2);
    assert.deepEqual(columns!.namespaces, ['window-1']);
    assert.deepEqual([...columns!.nsOf], [0, 0]);
    assert.deepEqual(columns!.keys, ['a', 'b']);
    assert.deepEqual(columns!.values, [3, 5]);
    assert.deepEqual([...columns!.lastAccess!], [-1, 1_000]);
  });

  it('packs serializer bytes into one buffer with end offsets, one namespace entry per namespace run', () => {
    const builder = new StateColumnsBuilder('sum', 'reducing', false, false);
    const w1 = {};
    const w2 = {};
    builder.add(w1, Uint8Array.of(1), 'w1', 'a', Uint8Array.of(10, 11), -1);
    builder.add(w1, Uint8Array.of(1), 'w1', 'b', Uint8Array.of(), -1);
    builder.add(w2, Uint8Array.of(2, 2), 'w2', 'a', Uint8Array.of(12), 0);
    assert.equal(builder.size, 3);
    const columns = decodeKeyGroup(1, encodeKeyGroup([builder.build()]))[0]!;
    assert.deepEqual(
      {
        name: columns.name,
        kind: columns.kind,
        nsKeys: columns.nsKeys,
        nsOf: [...columns.nsOf],
        keys: columns.keys,
        nsBytes: [...columns.nsBytes!],
        nsEnds: [...columns.nsEnds!],
        valueBytes: [...columns.valueBytes!],
        valueEnds: [...columns.valueEnds!],
        lastAccess: [...columns.lastAccess!],
        raw: [columns.namespaces, columns.values],
      },
      {
        name: 'sum',
        kind: 'reducing',
        nsKeys: ['w1', 'w2'],
        nsOf: [0, 0, 1],
        keys: ['a', 'b', 'a'],
        nsBytes: [1, 2, 2],
        nsEnds: [1, 3],
        valueBytes: [10, 11, 12],
        valueEnds: [2, 2, 3],
        lastAccess: [-1, -1, 0],
        raw: [undefined, undefined],
      },
    );
    assert.deepEqual(
      [0, 1, 2].map((i) => [...unpacked(columns.valueBytes!, columns.valueEnds!, i)]),
      [[10, 11], [], [12]],
    );
    assert.deepEqual(
      columnNamespaces(columns, (b) => b.length),
      [1, 2],
    );
    // One part is stored as it is; raw namespaces are returned as they are.
    const one = new StateColumnsBuilder('v', 'value', true, false);
    one.add(w1, 'ns', 0, 'k', Uint8Array.of(7), -1);
    const single = one.build();
    assert.deepEqual(
      [[...single.valueBytes!], [...single.valueEnds!], single.lastAccess],
      [[7], [1], undefined],
    );
    assert.deepEqual(
      columnNamespaces(single, () => 'no'),
      ['ns'],
    );
  });

  it('starts a new namespace entry at the first add, whatever the token', () => {
    const builder = new StateColumnsBuilder('v', 'value', true, true);
    builder.add(undefined, 'ns', 0, 'k', 1, -1);
    assert.deepEqual(builder.build().namespaces, ['ns']);
    assert.deepEqual([...builder.build().nsOf], [0]);
  });

  it('refuses a state of another format, naming the key group, the state and the format', () => {
    const formatOne = [
      { name: 'count', kind: 'value', entries: [[new Uint8Array(0), 'a', new Uint8Array(0), -1]] },
    ];
    assert.throws(
      () => decodeKeyGroup(12, new Uint8Array(serialize(formatOne))),
      (e: unknown) =>
        e instanceof IllegalStateError &&
        e.message ===
          "Key group 12: state 'count' is in snapshot format undefined; this version reads format 2",
    );
  });

  it('refuses a list holding something that is not a state', () => {
    assert.throws(
      () => decodeKeyGroup(4, new Uint8Array(serialize([null]))),
      /^IllegalStateError: Key group 4: state 'undefined' is in snapshot format undefined; this version reads format 2$/,
    );
  });

  it('refuses bytes that are not a list of states', () => {
    assert.throws(
      () => decodeKeyGroup(3, new Uint8Array(serialize({ keyGroup: 3 }))),
      /Key group 3: the snapshot bytes are not a list of states/,
    );
  });
});
