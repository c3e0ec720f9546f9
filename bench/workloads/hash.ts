// Integer hashing shared by the generator and the result checksums, written so Java's int arithmetic can
// reproduce it bit for bit (bench/flink/src/main/java/dev/weir/bench/Hashing.java is the port).
//
// Every operation is 32-bit: Math.imul for multiplication, `| 0` after additions, `>>>` for unsigned shifts.
// Java's `int` wraps the same way, so the two sides agree without BigInt or long arithmetic.

/** murmur3's 32-bit finaliser: a bijection on int32 with full avalanche. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/**
 * The pseudo-random draw number `salt` for event `index` under `seed`. `index` must be below 2^31, which
 * keeps `Math.imul(index, …)` identical to Java's `int` multiplication.
 */
export function draw(seed: number, index: number, salt: number): number {
  return fmix32(seed ^ Math.imul(index, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b));
}

/**
 * A uniform integer in [0, bound) from a 32-bit draw (Java: Integer.remainderUnsigned); bound < 2^31.
 * The trailing `| 0` keeps the result a small integer for V8: without it the uint32 from `>>>` makes
 * object fields holding it doubles, and Map lookups on boxed doubles cost about 3x more.
 */
export function below(h: number, bound: number): number {
  return ((h >>> 0) % bound) | 0;
}

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Starting value of a record hash (murmur3's seed slot). */
export const RECORD_HASH_SEED = 0x2f1b3c4d;

/** One murmur3 body step: mixes the int `k` into the running hash `h`. */
export function mixInt(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/**
 * Mixes a non-negative integer below 2^53 (a millisecond timestamp) as two ints, low word first:
 * Java's `(int) v` and `(int) (v >>> 32)`.
 */
export function mixLong(h: number, v: number): number {
  return mixInt(mixInt(h, v | 0), Math.floor(v / 4294967296) | 0);
}

/** murmur3's closing step over `words` mixed ints. */
export function finish(h: number, words: number): number {
  return fmix32(h ^ (words << 2));
}
