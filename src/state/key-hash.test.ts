// Key hashing must never change between releases: snapshots and key-group routing depend on it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { denormalizeKey, hashKey, keyGroupFor, normalizeKey } from './key-hash.ts';
import { KeyGroupRange, subtaskForKeyGroup } from './key-group-range.ts';

describe('key hashing', () => {
  it('is stable: fixed vectors', () => {
    // Changing these values breaks every existing snapshot; they must only ever be extended.
    assert.deepEqual(
      ['user-1', 'a', '', 0, 7, -3, 2.5, 10n].map((k) => keyGroupFor(normalizeKey(k), 128)),
      [11, 117, 40, 102, 40, 11, 34, 44],
    );
    assert.equal(hashKey('user-1'), 416356107);
    assert.equal(hashKey(7), hashKey(7.0));
    assert.equal(normalizeKey(-0), 0);
  });

  it('is stable for every key type and shape: fixed vectors', () => {
    // Strings of each length modulo 4 and beyond ASCII, int32 and float numbers at their limits, bigints,
    // booleans and composites. Changing these values breaks every existing snapshot.
    const keys: unknown[] = [
      '',
      'a',
      'ab',
      'abc',
      'abcd',
      'abcde',
      'käse',
      0,
      1,
      -1,
      7,
      2147483647,
      -2147483648,
      2147483648,
      2 ** 40,
      2.5,
      -0.1,
      1e-300,
      10n,
      -10n,
      true,
      false,
      [1, 'a'],
      { b: 2, a: 1 },
    ];
    assert.deepEqual(
      keys.map((k) => hashKey(normalizeKey(k))),
      [
        -340344280, 298494453, -1489761069, 1981051490, -727458473, 384531191, -1828274645, -52763034,
        1049269526, 1378989024, -327484888, 1014290544, 1077370354, 2121505665, -194916025, 310702498,
        -455853677, 1494389576, -984394068, -358989122, -1630668460, -512955163, 625397557, -33675789,
      ],
    );
    assert.deepEqual(
      keys.map((k) => keyGroupFor(normalizeKey(k), 32768)),
      [
        16936, 10741, 3283, 29282, 23895, 31479, 15915, 26214, 5398, 13280, 31272, 22640, 24050, 7041, 20807,
        29090, 14739, 4936, 22188, 17086, 31060, 27877, 20277, 9715,
      ],
    );
  });

  it('keeps primitive keys as they are and rejects what cannot be a key, naming it', () => {
    for (const key of ['k', 'k\u0000', 3, 10n, true, false]) {
      assert.equal(normalizeKey(key), key);
      assert.equal(denormalizeKey(normalizeKey(key)), key);
    }
    assert.throws(
      () => normalizeKey(null),
      /^ConfigurationError: Unsupported key null \(object\): keys must be/,
    );
    assert.throws(
      () => normalizeKey(Symbol.for('s')),
      /^ConfigurationError: Unsupported key Symbol\(s\) \(symbol\)/,
    );
    assert.throws(() => normalizeKey(Number.NaN), /^ConfigurationError: NaN cannot be a key$/);
    assert.throws(() => normalizeKey([1, Number.NaN]), /^ConfigurationError: NaN cannot be part of a key$/);
    assert.throws(
      () => normalizeKey({ a: undefined }),
      /^ConfigurationError: Unsupported key part undefined \(undefined\)$/,
    );
    assert.throws(
      () => normalizeKey([new Map()]),
      /^ConfigurationError: Composite keys must be arrays or plain objects \(no class instances, Maps or Dates\)$/,
    );
  });

  it('makes an integral number key a small integer, whatever V8 held it as, and keeps other numbers', () => {
    setFlagsFromString('--allow-natives-syntax');
    const isSmallInteger = new Function('x', 'return %IsSmi(x)') as (x: unknown) => boolean;
    // A number read from a Float64Array is a heap number even when integral (records crossing threads are read so).
    const read = new Float64Array([42, -0, 1.5, 2 ** 31, -7]);
    assert.equal(isSmallInteger(read[0]), false);
    assert.equal(isSmallInteger(normalizeKey(read[0])), true);
    assert.equal(isSmallInteger(normalizeKey(read[4])), true);
    assert.equal(Object.is(normalizeKey(read[1]), 0), true);
    assert.equal(normalizeKey(read[2]), 1.5);
    assert.equal(normalizeKey(read[3]), 2 ** 31);
    assert.equal(normalizeKey(read[4]), -7);
  });

  it('normalises -0 to 0 inside composites, and keeps null and prototype-less objects', () => {
    assert.equal(normalizeKey([-0, 1]), normalizeKey([0, 1]));
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { x: null, y: [false, 'z'] });
    assert.deepEqual(denormalizeKey(normalizeKey(bare)), { x: null, y: [false, 'z'] });
    assert.deepEqual(denormalizeKey(normalizeKey([[], {}, [1n]])), [[], {}, [1n]]);
    // A composite is one string starting with NUL, apart from every plain string key.
    assert.equal(normalizeKey(['a']), '\u0000["a"]');
  });

  it('takes the key group as the unsigned hash modulo max parallelism, powers of two or not', () => {
    const keys = [0, 1, -1, 7, 2 ** 31, -(2 ** 31), 1.5, 'a', 'key-42', 12345678901234n, true];
    const unsigned = keys.filter((k) => hashKey(normalizeKey(k)) < 0);
    // Half the hashes are negative as int32: their unsigned value is above 2^31, where the low bits still agree.
    assert.ok(unsigned.length > 0 && unsigned.length < keys.length, String(unsigned));
    for (const maxParallelism of [1, 2, 128, 4096, 32768, 3, 100, 32767]) {
      for (const key of keys) {
        const normalized = normalizeKey(key);
        assert.equal(
          keyGroupFor(normalized, maxParallelism),
          (hashKey(normalized) >>> 0) % maxParallelism,
          `${String(key)} at ${maxParallelism}`,
        );
      }
    }
  });
  it('spreads keys over key groups', () => {
    const counts = new Array(128).fill(0);
    for (let i = 0; i < 128_000; i++) counts[keyGroupFor(normalizeKey(`k${i}`), 128)]++;
    assert.ok(
      Math.min(...counts) > 800 && Math.max(...counts) < 1200,
      `${Math.min(...counts)}..${Math.max(...counts)}`,
    );
  });

  it('normalises composite keys canonically and inverts them', () => {
    const a = normalizeKey({ b: [1, 'x', 2n], a: { z: true, y: 'q' } });
    const b = normalizeKey({ a: { y: 'q', z: true }, b: [1, 'x', 2n] });
    assert.equal(a, b);
    assert.deepEqual(denormalizeKey(a), { a: { y: 'q', z: true }, b: [1, 'x', 2n] });
    assert.throws(() => normalizeKey(new Date()), /plain objects/);
    assert.throws(() => normalizeKey(Number.NaN), /NaN/);
    assert.throws(() => normalizeKey(undefined), /Unsupported key/);
  });

  it('assigns key groups to subtasks consistently with the subtask ranges', () => {
    for (const [maxP, p] of [
      [128, 1],
      [128, 3],
      [128, 7],
      [10, 4],
      [5, 5],
    ] as const) {
      for (let i = 0; i < p; i++) {
        const range = KeyGroupRange.forSubtask(maxP, p, i);
        for (let kg = range.start; kg <= range.end; kg++) assert.equal(subtaskForKeyGroup(kg, maxP, p), i);
      }
    }
  });
});
