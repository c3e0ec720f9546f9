// Tests of the key-group snapshot format: a round trip of columns, and bytes of any other format refused by name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { IllegalStateError } from '../core/errors.ts';
import { decodeKeyGroup, encodeKeyGroup, StateColumnsBuilder } from './key-group-format.ts';

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

  it('refuses bytes that are not a list of states', () => {
    assert.throws(
      () => decodeKeyGroup(3, new Uint8Array(serialize({ keyGroup: 3 }))),
      /Key group 3: the snapshot bytes are not a list of states/,
    );
  });
});
