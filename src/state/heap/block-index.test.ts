// BlockIndex against a Map on random sets, reads and deletions of keys of every kind, fixed seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertProperty } from '../../../test/support/property.ts';
import type { NormalizedKey } from '../key-hash.ts';
import { BlockIndex, NO_BLOCK } from './block-index.ts';

/**
 * Small integers that crowd a few home slots of the first table and spread as it grows, the int32 extremes, and keys
 * the Map holds: fractions, integers past int32, strings (one of them numeric), booleans, bigints.
 */
const key: fc.Arbitrary<NormalizedKey> = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 300 }) },
  { weight: 2, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<NormalizedKey>(-(2 ** 31), 2 ** 31 - 1, 2 ** 31, 0.5, -1.5, 2 ** 40, 'a', '7'),
  },
  { weight: 1, arbitrary: fc.constantFrom<NormalizedKey>(true, false, 7n) },
);

type Op = { kind: 'set'; key: NormalizedKey; value: number } | { kind: 'delete'; key: NormalizedKey };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      key,
      value: fc.integer({ min: 0, max: 2 ** 30 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
);

describe('BlockIndex', () => {
  it('answers as a Map does after every set and delete, through growth (property, fixed seed)', () => {
    assertProperty(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const index = new BlockIndex();
        const reference = new Map<NormalizedKey, number>();
        const seen = new Set<NormalizedKey>();
        for (const o of ops) {
          seen.add(o.key);
          if (o.kind === 'set') {
            index.set(o.key, o.value);
            reference.set(o.key, o.value);
          } else {
            index.delete(o.key);
            reference.delete(o.key);
          }
          assert.equal(index.get(o.key), reference.get(o.key) ?? NO_BLOCK);
          assert.equal(index.size, reference.size);
        }
        for (const k of seen) assert.equal(index.get(k), reference.get(k) ?? NO_BLOCK, `key ${String(k)}`);
        const entries = [...index.entries()].map(([k, v]) => `${typeof k}:${String(k)}=${v}`).sort();
        const expected = [...reference].map(([k, v]) => `${typeof k}:${String(k)}=${v}`).sort();
        assert.deepEqual(entries, expected);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a cluster that wraps past the end of the table reachable when a key in it leaves', () => {
    // Keys whose home is the last of the first table's 64 slots (its top 6 bits of key × 2^32/φ): the second and
    // third probe on to slots 0 and 1.
    const lastHome: number[] = [];
    for (let k = 0; lastHome.length < 3; k++) if (Math.imul(k, 0x9e3779b1) >>> 26 === 63) lastHome.push(k);
    for (const leaving of [0, 1, 2]) {
      const index = new BlockIndex();
      lastHome.forEach((k, i) => index.set(k, i));
      index.delete(lastHome[leaving]!);
      lastHome.forEach((k, i) => assert.equal(index.get(k), i === leaving ? NO_BLOCK : i, `key ${i}`));
    }
  });

  it('keeps every key reachable when keys come and go many times over the table size', () => {
    const index = new BlockIndex();
    // Keys 0..49 live; each round deletes the oldest and adds a new one, as window keys come and go.
    for (let k = 0; k < 50; k++) index.set(k, k);
    for (let k = 50; k < 20_000; k++) {
      index.delete(k - 50);
      index.set(k, k % 1000);
      assert.equal(index.get(k - 50), NO_BLOCK);
    }
    assert.equal(index.size, 50);
    for (let k = 19_950; k < 20_000; k++) assert.equal(index.get(k), k % 1000);
  });
});
