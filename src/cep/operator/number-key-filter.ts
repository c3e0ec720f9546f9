// NumberKeyFilter: says without a Map lookup that a number key is not among a set of keys (the CEP operator's records).

/** Slots of a new filter (a power of two). */
const INITIAL_SLOTS = 1024;
/** The table doubles when the keys outnumber its slots over this: at most about 1 in 8 absent keys finds a count. */
const SLOTS_PER_KEY = 8;
/** Fibonacci hashing's multiplier, 2^32 / φ: consecutive keys and keys that share their low bits spread alike. */
const GOLDEN = 0x9e3779b1;

/**
 * A count per slot of the keys added and not removed, over the number keys of a set held elsewhere, indexed by a
 * multiplicative hash of the key: a zero count says the key is not in the set, so the caller skips the lookup; a
 * non-zero one says only that it may be. Keys of other types are always "may be" (they are not counted). The set's
 * owner adds and removes each of its keys exactly once while it holds it.
 *
 * The CEP operator looks up every buffered element's key among its records in each watermark round, and only keys
 * with a partial match have one: at 1,000,000 keys nearly every lookup missed, 4.4-4.9 % of the workload's samples in
 * `FindOrderedHashMapEntry`. With at least {@link SLOTS_PER_KEY} slots per key a miss reads one count instead.
 */
export class NumberKeyFilter {
  private counts = new Int32Array(INITIAL_SLOTS);
  /** 32 minus log2 of the slots: the hash's top bits index the table. */
  private shift = 32 - Math.log2(INITIAL_SLOTS);
  /** Number keys counted. */
  private size = 0;

  /** False when `key` is surely not in the set; true when it may be (always, for a key that is not a number). */
  mayHold(key: unknown): boolean {
    return typeof key !== 'number' || this.counts[Math.imul(key, GOLDEN) >>> this.shift] !== 0;
  }

  /**
   * Counts a key the set now holds; `set` is the set itself (this key included), whose keys rebuild a grown table. The
   * set rather than a function that lists it: a function made per operator would be a new call target in every job,
   * and the code V8 compiled for the previous job's would be thrown away at the first table grown.
   */
  add(key: unknown, set: { keys(): Iterable<unknown> }): void {
    if (typeof key !== 'number') return;
    if (++this.size * SLOTS_PER_KEY > this.counts.length) {
      this.grow(set.keys());
      return;
    }
    this.counts[Math.imul(key, GOLDEN) >>> this.shift]!++;
  }

  /** Uncounts a key the set no longer holds. */
  remove(key: unknown): void {
    if (typeof key !== 'number') return;
    this.size--;
    this.counts[Math.imul(key, GOLDEN) >>> this.shift]!--;
  }

  /** Doubles the table and counts every number key of the set again (O(keys), at each doubling). */
  private grow(keys: Iterable<unknown>): void {
    const counts = new Int32Array(this.counts.length * 2);
    const shift = this.shift - 1;
    for (const key of keys) if (typeof key === 'number') counts[Math.imul(key, GOLDEN) >>> shift]!++;
    this.counts = counts;
    this.shift = shift;
  }
}
