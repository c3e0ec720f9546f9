// The filter of written LMDB keys: never a false negative as it grows, few false positives, murmur3's hash.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashKeyBytes, WrittenKeyFilter } from './written-key-filter.ts';
import { SeededRandom } from '../../connectors/seeded-random.ts';

/** An entry-key-like byte string: a 4-byte prefix and 9 to 30 random bytes, so every tail length occurs. */
function key(next: () => number): Buffer {
  const bytes = Buffer.alloc(13 + (next() % 22));
  for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
  return bytes;
}

describe('hashKeyBytes', () => {
  it("is murmur3's x86 32-bit hash with seed 0x9747b28c (the published test values)", () => {
    const hash = (text: string) => hashKeyBytes(Buffer.from(text), Buffer.byteLength(text)) >>> 0;
    assert.equal(hash('aaaa'), 0x5a97808a);
    assert.equal(hash('abc'), 0xc84a62dd);
    assert.equal(hash('Hello, world!'), 0x24884cba);
    assert.equal(hash('The quick brown fox jumps over the lazy dog'), 0x2fa826cd);
  });

  it('hashes only the first `length` bytes (keys are views of a longer reused buffer)', () => {
    const bytes = Buffer.from('abc-and-the-rest');
    assert.equal(hashKeyBytes(bytes, 3), hashKeyBytes(Buffer.from('abc'), 3));
    assert.notEqual(hashKeyBytes(bytes, 4), hashKeyBytes(bytes, 3));
  });
});

describe('WrittenKeyFilter', () => {
  for (const seed of [1, 2, 3]) {
    it(`holds every key added as it grows past several layers, and few others (seed ${seed})`, () => {
      const draws = new SeededRandom(seed * 0x9e3779b1);
      const next = () => draws.nextUint32();
      const filter = new WrittenKeyFilter();
      const empty = filter.bytes;
      const added = new Set<string>();
      const hashes: number[] = [];
      for (let i = 0; i < 300_000; i++) {
        const k = key(next);
        const hash = hashKeyBytes(k, k.length);
        filter.add(hash);
        added.add(k.toString('hex'));
        hashes.push(hash);
        // A key just added is found at once, whichever layer took it.
        if (!filter.mightContain(hash)) assert.fail(`key ${i} not found right after it was added`);
      }
      for (let i = 0; i < hashes.length; i++)
        if (!filter.mightContain(hashes[i]!)) assert.fail(`key ${i} lost after later keys were added`);
      // 300,000 keys fill the first layer (52,428 keys) and the second (104,857), and take part of the third:
      // three layers of 1, 2 and 4 times the first's size, about 1.5 bytes per key.
      assert.equal(filter.bytes, 7 * empty);
      let positives = 0;
      let tried = 0;
      while (tried < 100_000) {
        const k = key(next);
        if (added.has(k.toString('hex'))) continue;
        tried++;
        if (filter.mightContain(hashKeyBytes(k, k.length))) positives++;
      }
      // Sized for about 1-2 % (10 bits per key, 6 bits in a 512-bit block), summed over the layers.
      assert.ok(positives < 5_000, `${positives} false positives in 100,000 keys never added`);
    });
  }

  it('finds nothing before anything is added', () => {
    const filter = new WrittenKeyFilter();
    const draws = new SeededRandom(99);
    const next = () => draws.nextUint32();
    for (let i = 0; i < 10_000; i++) assert.equal(filter.mightContain(next() | 0), false);
  });
});
