// NumberKeyFilter: never says "absent" of a key the set holds, and says it of most keys it does not hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NumberKeyFilter } from './number-key-filter.ts';
import { SeededRandom } from '../../connectors/seeded-random.ts';

/** A set of keys with its filter, kept in step as the CEP operator keeps its records and their filter. */
class FilteredSet {
  readonly keys = new Set<unknown>();
  readonly filter = new NumberKeyFilter();
  add(key: unknown): void {
    this.keys.add(key);
    this.filter.add(key, this.keys);
  }
  remove(key: unknown): void {
    this.keys.delete(key);
    this.filter.remove(key);
  }
}

describe('NumberKeyFilter', () => {
  it('says absent of every number key when empty, and "may hold" of any key that is not a number', () => {
    const filter = new NumberKeyFilter();
    for (const key of [0, 1, -1, 1023, 1024, 2 ** 31 - 1, -(2 ** 31), 0.5, 1e300, Infinity])
      assert.equal(filter.mayHold(key), false, String(key));
    for (const key of ['0', 1n, true, undefined]) assert.equal(filter.mayHold(key), true, String(key));
  });

  it('holds a key from add to remove; keys sharing a slot keep each other held', () => {
    const set = new FilteredSet();
    set.add(7);
    assert.equal(set.filter.mayHold(7), true);
    set.add(7 + 2 ** 32); // the same 32 bits: the same slot
    set.remove(7);
    assert.equal(set.filter.mayHold(7), true, 'the other key of the slot is still held');
    set.remove(7 + 2 ** 32);
    assert.equal(set.filter.mayHold(7), false);
    assert.equal(set.filter.mayHold(7 + 2 ** 32), false);
  });

  it('against a Set on fixed seeds: never absent for a held key, and at most ~1 in 8 absent keys found', () => {
    for (const seed of [1, 42, 2024]) {
      const draws = new SeededRandom(seed);
      const next = () => draws.next();
      const set = new FilteredSet();
      // grows past several doublings, shrinks, grows again; keys of every shape: small, large, negative, fractional
      for (let step = 0; step < 20_000; step++) {
        const r = next();
        const key =
          r < 0.6
            ? Math.floor(next() * 50_000)
            : r < 0.8
              ? Math.floor(next() * 2 ** 40) - 2 ** 39
              : next() * 1e6;
        if (set.keys.has(key) || (step > 10_000 && step < 14_000 && set.keys.size > 0)) {
          const held = set.keys.has(key) ? key : set.keys.values().next().value;
          set.remove(held);
        } else {
          set.add(key);
        }
      }
      for (const key of set.keys)
        assert.equal(set.filter.mayHold(key), true, `seed ${seed}: held key ${key}`);
      let found = 0;
      const probes = 100_000;
      for (let i = 0; i < probes; i++) {
        const key = 100_000 + i * 3; // none of these was ever added
        if (set.filter.mayHold(key)) found++;
      }
      // at least 8 slots per key held: a key absent finds a count in at most 1 slot in 8, with some room for the hash
      assert.ok(set.keys.size > 5_000, `seed ${seed}: the test holds many keys (${set.keys.size})`);
      assert.ok(found <= probes / 8 + probes / 50, `seed ${seed}: ${found} of ${probes} absent keys found`);
    }
  });

  it('spreads keys that share their low bits (multiples of a power of two) over the table', () => {
    const set = new FilteredSet();
    for (let i = 0; i < 100; i++) set.add(i * 65_536);
    let found = 0;
    for (let i = 0; i < 10_000; i++) if (set.filter.mayHold(i * 65_536 + 32_768)) found++;
    // 100 keys in 1,024 slots: about 10 % of absent keys find a count, not all (which the low bits alone would give)
    assert.ok(found < 2_000, `${found} of 10,000 absent keys found`);
  });

  it('counts no key that is not a number, at an add, a removal or a growth', () => {
    const set = new FilteredSet();
    set.add('x');
    set.add(1n);
    // key 0 hashes to slot 0, as ToInt32 of a string or bigint would
    assert.equal(set.filter.mayHold(0), false);
    set.remove('x');
    assert.equal(set.filter.mayHold(0), false);
    set.add('y');
    for (let key = 1; key <= 300; key++) set.add(key); // grows twice, with 'y' and 1n among the set's keys
    for (let key = 1; key <= 300; key++) set.remove(key);
    for (let key = 0; key <= 300; key++) assert.equal(set.filter.mayHold(key), false, String(key));
    assert.equal(set.filter.mayHold('y'), true);
  });

  it('a removal makes room: keys removed and added again do not grow the table', () => {
    const set = new FilteredSet();
    for (let key = 0; key < 128; key++) set.add(key);
    for (let key = 0; key < 64; key++) set.remove(key);
    for (let key = 2_000; key < 2_064; key++) set.add(key); // 128 keys again: 1,024 slots still
    let found = 0;
    for (let key = 1_000_000; key < 1_010_000; key++) if (set.filter.mayHold(key)) found++;
    assert.ok(found > 800 && found < 1_700, `${found} of 10,000 (128 keys in 1,024 slots)`);
  });

  it('grows when the keys outnumber an eighth of its slots, and keeps every held key through the growth', () => {
    const set = new FilteredSet();
    for (let key = 0; key < 128; key++) set.add(key); // 128 keys: 1,024 slots still
    let before = 0;
    for (let key = 1_000_000; key < 1_010_000; key++) if (set.filter.mayHold(key)) before++;
    set.add(128); // 129 keys: 2,048 slots
    for (let key = 0; key <= 128; key++) assert.equal(set.filter.mayHold(key), true, String(key));
    let after = 0;
    for (let key = 1_000_000; key < 1_010_000; key++) if (set.filter.mayHold(key)) after++;
    assert.ok(before > 800 && before < 1_700, `before growing: ${before} of 10,000 (128 of 1,024 slots)`);
    assert.ok(after > 400 && after < 900, `after growing: ${after} of 10,000 (129 of 2,048 slots)`);
  });
});
