// Stable key hashing and normalisation: the same key lands in the same key group in every run and process.
import { ConfigurationError } from '../core/errors.ts';

/**
 * A key as the backends store it: strings, numbers and bigints as they are (JS Maps compare them by value);
 * composite keys (arrays, plain objects) as a canonical string, so two equal composites are one Map key.
 */
export type NormalizedKey = string | number | bigint | boolean;

/** Marks a canonical composite key; no user string key is expected to start with this character. */
const COMPOSITE_MARK = '\u0000';

/**
 * Normalises a key for use in Maps. Composite keys become a canonical, invertible JSON form (object keys sorted,
 * bigints tagged) so `{a: 1, b: 2}` and `{b: 2, a: 1}` are the same key. -0 becomes 0.
 */
export function normalizeKey(key: unknown): NormalizedKey {
  switch (typeof key) {
    case 'number':
      if (Number.isNaN(key)) throw new ConfigurationError('NaN cannot be a key');
      // An integral key becomes a small integer even when it arrived as a heap number (read from a Float64Array, as
      // records crossing threads are): the state Maps then store and find it by V8's small-integer path, and -0
      // becomes 0 on the way.
      return (key | 0) === key ? key | 0 : key;
    case 'string':
    case 'bigint':
    case 'boolean':
      return key;
    case 'object':
      if (key !== null) return COMPOSITE_MARK + JSON.stringify(toCanonical(key));
  }
  throw new ConfigurationError(
    `Unsupported key ${String(key)} (${typeof key}): keys must be strings, numbers, bigints, booleans, or arrays / plain objects of those`,
  );
}

/** Inverts {@link normalizeKey}: the user-visible key. */
export function denormalizeKey(key: NormalizedKey): unknown {
  if (typeof key === 'string' && key.charCodeAt(0) === 0) return fromCanonical(JSON.parse(key.slice(1)));
  return key;
}

function toCanonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCanonical);
  switch (typeof value) {
    case 'bigint':
      return { $bigint: value.toString() };
    case 'number':
      if (Number.isNaN(value)) throw new ConfigurationError('NaN cannot be part of a key');
      return value; // JSON writes -0 as 0
    case 'string':
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new ConfigurationError(
          'Composite keys must be arrays or plain objects (no class instances, Maps or Dates)',
        );
      }
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value).sort()) out[k] = toCanonical((value as Record<string, unknown>)[k]);
      return { $object: out };
    }
  }
  throw new ConfigurationError(`Unsupported key part ${String(value)} (${typeof value})`);
}

function fromCanonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromCanonical);
  if (value !== null && typeof value === 'object') {
    if ('$bigint' in value) return BigInt((value as { $bigint: string }).$bigint);
    const obj = (value as { $object: Record<string, unknown> }).$object;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(obj)) out[k] = fromCanonical(obj[k]);
    return out;
  }
  return value;
}

const float64 = new Float64Array(1);
const int32 = new Int32Array(float64.buffer);

/**
 * A 32-bit hash of a normalised key, stable across runs, processes and machines (murmur3 mixing over the UTF-16
 * code units of strings, the IEEE-754 bits of numbers). Integers hash by value, so 7 and 7.0 agree.
 */
export function hashKey(key: NormalizedKey): number {
  switch (typeof key) {
    case 'string': {
      let h = 0x9747b28c;
      for (let i = 0; i < key.length; i++) h = mixH(h, mixK(key.charCodeAt(i)));
      return fmix(h ^ key.length);
    }
    case 'number': {
      if ((key | 0) === key) return fmix(mixH(0x2f1a3c5d, mixK(key)) ^ 4);
      float64[0] = key;
      return fmix(mixH(mixH(0x2f1a3c5d, mixK(int32[0]!)), mixK(int32[1]!)) ^ 8);
    }
    case 'bigint':
      return hashKey('\u0001' + key.toString());
    case 'boolean':
      return fmix(key ? 0x1234567 : 0x7654321);
  }
}

/**
 * The key group of a normalised key: murmur-mixed hash modulo max parallelism, as Flink's KeyGroupRangeAssignment.
 * The hash as an unsigned 32-bit number is a double in V8 when above 2^31, and the modulo of a double is a call to
 * C's fmod (tens of ns, the largest cost of the hash exchange): for a power of two (the default 128) the low bits
 * give the same group with one integer `&`.
 */
export function keyGroupFor(key: NormalizedKey, maxParallelism: number): number {
  const hash = hashKey(key);
  if ((maxParallelism & (maxParallelism - 1)) === 0) return hash & (maxParallelism - 1);
  return (hash >>> 0) % maxParallelism;
}

function mixK(k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, 0x1b873593);
}

function mixH(h: number, k: number): number {
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
