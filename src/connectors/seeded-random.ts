// SeededRandom: a small, fast, deterministic PRNG (mulberry32) for generator sources and tests.

const TWO_POW_32 = 4_294_967_296;

/**
 * A 32-bit pseudo-random generator with one word of state: Tommy Ettinger's mulberry32 (public domain). Each
 * draw adds a Weyl constant to the state and hashes it, so draws cost a handful of integer operations and no
 * allocation. Period 2^32 per seed: plenty for generating test data, not for cryptography or long simulations.
 *
 * {@link GeneratorSource} reseeds one instance before every record from `(seed, index)`, so the random values a
 * record sees depend only on its index, never on which subtask generated it or what came before.
 *
 * @example
 * const random = new SeededRandom(42);
 * random.nextUint32(); // the same number on every run
 * random.nextInt(6) + 1; // a die roll
 */
export class SeededRandom {
  private state: number;

  constructor(seed = 0) {
    this.state = seed | 0;
  }

  /** Resets the state: the following draws are those of `new SeededRandom(seed)`. */
  setSeed(seed: number): void {
    this.state = seed | 0;
  }

  /** An integer uniformly distributed in [0, 2^32). */
  nextUint32(): number {
    let z = (this.state = (this.state + 0x6d2b79f5) | 0);
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  }

  /** A float uniformly distributed in [0, 1) (32 bits of randomness), like `Math.random()`. */
  next(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  /** An integer in [0, bound) for a positive `bound` up to 2^32 (bias below 2^-32 · bound, negligible here). */
  nextInt(bound: number): number {
    return Math.floor(this.next() * bound);
  }

  /** An integer in [min, max], both inclusive. */
  nextIntBetween(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** true or false with equal probability (or true with probability `p`). */
  nextBoolean(p = 0.5): boolean {
    return this.next() < p;
  }

  /** A normally distributed number (Box–Muller; uses two draws). */
  nextGaussian(mean = 0, standardDeviation = 1): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + standardDeviation * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /**
   * The seed for record `index` of a generator seeded with `seed`: a bijection of the index's low 32 bits (odd
   * multiplier, then murmur3's fmix32 finaliser), so neighbouring indices get unrelated streams.
   */
  static seedFor(seed: number, index: number): number {
    const low = index >>> 0;
    const high = Math.floor(index / TWO_POW_32) >>> 0;
    let h = (seed + Math.imul(low, 0x9e3779b9) + Math.imul(high, 0x7feb352d)) | 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) | 0;
  }
}
