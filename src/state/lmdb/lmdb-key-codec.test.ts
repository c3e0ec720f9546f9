// The LMDB entry layout: keys that round-trip every key and namespace type and sort by key group, values with TTL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NormalizedKey } from '../key-hash.ts';
import {
  decodeEntryKey,
  decodeEntryValue,
  encodeEntryKey,
  encodeEntryValue,
  entryKeyLength,
  entryValue,
  entryValueLength,
  keyGroupPrefix,
  VALUE_NUMBER,
  VALUE_SERIALIZED,
  VALUE_STRING,
  writeEntryKey,
  writeEntryValue,
} from './lmdb-key-codec.ts';
import { decodeRawKeyGroup, encodeRawKeyGroup, isRawKeyGroup } from './lmdb-key-group-format.ts';

describe('LMDB entries written into a reused buffer', () => {
  it('a key or value written past its end returns its own length, with the bytes of its own encoding', () => {
    const buf = Buffer.alloc(64, 0xee);
    const keys: [string | number, NormalizedKey][] = [
      ['ns', 'wörter'],
      [1, 'k'],
      ['ns', 12345678901234567890n],
      [2, 3.5],
      ['', true],
    ];
    for (const [nsKey, key] of keys) {
      const n = writeEntryKey(buf, 3, 4, nsKey, key);
      assert.equal(n, entryKeyLength(nsKey, key));
      assert.deepEqual([...buf.subarray(0, n)], [...encodeEntryKey(3, 4, nsKey, key)]);
    }
    const values: [number, Uint8Array | string | number][] = [
      [VALUE_STRING, 'wörter'],
      [VALUE_NUMBER, 2.5],
      [VALUE_SERIALIZED, Uint8Array.of(1, 2, 3)],
    ];
    for (const [format, value] of values) {
      const n = writeEntryValue(buf, 7, Uint8Array.of(9, 9), format, value);
      assert.equal(n, entryValueLength(Uint8Array.of(9, 9), format, value));
      assert.deepEqual([...buf.subarray(0, n)], [...encodeEntryValue(7, Uint8Array.of(9, 9), format, value)]);
    }
  });
});

describe('LMDB entry keys', () => {
  it('round-trip every key type under number and string namespaces', () => {
    const keys: NormalizedKey[] = [
      '',
      'käse',
      -2.5,
      0,
      2 ** 40,
      123456789012345678901234567890n,
      -7n,
      true,
      false,
    ];
    const namespaces: (string | number)[] = [0, -1.5, 1e12, '', '0:10', 'fenêtre'];
    for (const nsKey of namespaces) {
      for (const key of keys) {
        const bytes = encodeEntryKey(513, 65_535, nsKey, key);
        assert.deepEqual(decodeEntryKey(bytes), { keyGroup: 513, stateId: 65_535, nsKey, key });
        // A plain Uint8Array view (LMDB may hand one out) decodes the same.
        const view = new Uint8Array(bytes.length + 3).subarray(3);
        view.set(bytes);
        assert.deepEqual(decodeEntryKey(view), { keyGroup: 513, stateId: 65_535, nsKey, key });
      }
    }
  });

  it('lays out key group, state id, namespace and key in that order', () => {
    assert.deepEqual(
      [...encodeEntryKey(0x0102, 0x0304, 'ab', 'c')],
      [1, 2, 3, 4, 2, 0, 2, 0x61, 0x62, 1, 0x63],
    );
    assert.deepEqual(
      [...encodeEntryKey(1, 2, 1, 2)],
      [0, 1, 0, 2, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 2, 0x40, 0, 0, 0, 0, 0, 0, 0],
    );
    assert.deepEqual([...encodeEntryKey(1, 2, 'x', 12n)], [0, 1, 0, 2, 2, 0, 1, 0x78, 3, 0x31, 0x32]);
    assert.deepEqual([...encodeEntryKey(1, 2, 'x', true)], [0, 1, 0, 2, 2, 0, 1, 0x78, 4, 1]);
    assert.deepEqual([...encodeEntryKey(1, 2, 'x', false)], [0, 1, 0, 2, 2, 0, 1, 0x78, 4, 0]);
    assert.deepEqual([...keyGroupPrefix(0x0203)], [2, 3]);
    // Every key of a group sorts between its prefix and the next group's.
    const key = encodeEntryKey(7, 9, 'w', 'k');
    assert.ok(Buffer.compare(keyGroupPrefix(7), key) < 0 && Buffer.compare(key, keyGroupPrefix(8)) < 0);
  });
});

describe('LMDB entry values', () => {
  it('carry the last access time, the namespace bytes and the value in its format', () => {
    const ns = Uint8Array.of(9, 8, 7);
    const cases: [number, number, Uint8Array | string | number, unknown][] = [
      [-1, VALUE_STRING, 'héllo', 'héllo'],
      [1_000, VALUE_NUMBER, -0.25, -0.25],
      [0, VALUE_SERIALIZED, Uint8Array.of(1, 2), [1, 2]],
    ];
    for (const [lastAccess, format, value, expected] of cases) {
      const decoded = decodeEntryValue(encodeEntryValue(lastAccess, ns, format, value));
      assert.equal(decoded.lastAccess, lastAccess);
      assert.deepEqual([...decoded.nsBytes], [9, 8, 7]);
      assert.equal(decoded.format, format);
      assert.deepEqual(
        entryValue(decoded.format, decoded.valueBytes, (b) => [...b]),
        expected,
      );
    }
    assert.deepEqual(
      [...encodeEntryValue(1, Uint8Array.of(5), VALUE_STRING, 'a')],
      [0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 5, 1, 0x61],
    );
    // A view into a larger buffer decodes the same.
    const bytes = encodeEntryValue(2, Uint8Array.of(), VALUE_NUMBER, 3);
    const view = new Uint8Array(bytes.length + 5).subarray(5);
    view.set(bytes);
    const decoded = decodeEntryValue(view);
    assert.deepEqual(
      [
        decoded.lastAccess,
        decoded.nsBytes.length,
        entryValue(decoded.format, decoded.valueBytes, () => 'no'),
      ],
      [2, 0, 3],
    );
  });
});

describe('LMDB raw key-group format', () => {
  it('round-trips state names and raw entries, and is told apart from the heap format', () => {
    const entries = [
      { key: Uint8Array.of(0, 1, 0, 0, 5), value: Uint8Array.of(6, 7) },
      { key: Uint8Array.of(0, 1, 0, 1), value: Uint8Array.of() },
    ];
    const bytes = encodeRawKeyGroup(['count', 'wörter'], entries);
    assert.equal(isRawKeyGroup(bytes), true);
    const decoded = decodeRawKeyGroup(bytes);
    assert.deepEqual(decoded.names, ['count', 'wörter']);
    assert.deepEqual(
      decoded.entries.map((e) => [[...e.key], [...e.value]]),
      entries.map((e) => [[...e.key], [...e.value]]),
    );
    assert.equal(bytes.byteLength, 12 + (4 + 5) + (4 + 7) + (8 + 5 + 2) + (8 + 4 + 0));
    assert.deepEqual([...bytes.subarray(0, 4)], [0x57, 0x4b, 0x47, 0x32]);
    const copy = new Uint8Array(bytes.byteLength + 1).subarray(1);
    copy.set(bytes);
    assert.deepEqual(decodeRawKeyGroup(copy).names, ['count', 'wörter']);
    assert.equal(isRawKeyGroup(Uint8Array.of(0x57, 0x4b, 0x47)), false);
    assert.equal(isRawKeyGroup(Uint8Array.of(0x57, 0x4b, 0x47, 0x33)), false);
    assert.equal(isRawKeyGroup(Uint8Array.of(0xff, 0x0d, 0x41, 0x02)), false);
  });
});
