// BlockIndex: keys to where their entries start in an array, small-integer keys found by open addressing, not a Map.

import type { NormalizedKey } from '../key-hash.ts';

/** The value of a key that has none, and of an empty slot. */
export const NO_BLOCK = -1;

/** Initial slots (pairs) of the table: a power of two. */
const INITIAL_CAPACITY = 64;

/**
 * A map from keys to non-negative small integers: where a key's entries start in an array shared by every key (the
 * first block of its panes in the window operator's `KeyFirstPaneState`, its row in `KeyRows`). Integer keys in the
 * int32 range, what numbered keys normalise to, live in one `Int32Array` of (key, value) pairs by linear probing: a
 * lookup reads one pair, usually one cache line, where a JS `Map` reads its hash bucket and then the entry it points to
 * (two cache misses for a key last touched seconds of event time before; on hot items `FindOrderedHashMapEntry` was
 * 14.5 % of the samples, element and timer paths alike), and calls a builtin to do it. Any other key (strings,
 * fractions, bigints, booleans) goes to a Map. The table holds at most half its slots, so probes stay short; a deletion
 * shifts the pairs after it back (no tombstones), so a table whose keys come and go never fills up with them.
 */
export class BlockIndex {
  /** Pairs of (key, value); a value of {@link NO_BLOCK} marks an empty slot. */
  private slots = emptySlots(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  /** 32 - log2(capacity): the top bits of the multiplicative hash index the table. */
  private shift = 32 - Math.log2(INITIAL_CAPACITY);
  private intKeys = 0;
  private readonly others = new Map<NormalizedKey, number>();

  /** Keys held. */
  get size(): number {
    return this.intKeys + this.others.size;
  }

  /** The key's value, or {@link NO_BLOCK}. */
  get(key: NormalizedKey): number {
    if (typeof key !== 'number' || (key | 0) !== key) return this.others.get(key) ?? NO_BLOCK;
    const slots = this.slots;
    const mask = this.mask;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      const value = slots[2 * i + 1]!;
      if (value === NO_BLOCK || slots[2 * i] === key) return value;
    }
  }

  /** Sets the key's value (a non-negative small integer). */
  set(key: NormalizedKey, value: number): void {
    if (typeof key !== 'number' || (key | 0) !== key) {
      this.others.set(key, value);
      return;
    }
    const slots = this.slots;
    const mask = this.mask;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      if (slots[2 * i + 1] === NO_BLOCK) {
        slots[2 * i] = key;
        slots[2 * i + 1] = value;
        if (++this.intKeys * 2 > mask + 1) this.grow();
        return;
      }
      if (slots[2 * i] === key) {
        slots[2 * i + 1] = value;
        return;
      }
    }
  }

  /** Removes the key; pairs that probed past its slot move back, so every key stays reachable from its home. */
  delete(key: NormalizedKey): void {
    if (typeof key !== 'number' || (key | 0) !== key) {
      this.others.delete(key);
      return;
    }
    const slots = this.slots;
    const mask = this.mask;
    let hole = this.home(key);
    for (; ; hole = (hole + 1) & mask) {
      if (slots[2 * hole + 1] === NO_BLOCK) return;
      if (slots[2 * hole] === key) break;
    }
    this.intKeys--;
    for (let j = (hole + 1) & mask; slots[2 * j + 1] !== NO_BLOCK; j = (j + 1) & mask) {
      // The pair at j may fill the hole unless its home lies cyclically in (hole, j]: then the hole is before it.
      const home = this.home(slots[2 * j]!);
      const stays = hole < j ? home > hole && home <= j : home > hole || home <= j;
      if (stays) continue;
      slots[2 * hole] = slots[2 * j]!;
      slots[2 * hole + 1] = slots[2 * j + 1]!;
      hole = j;
    }
    slots[2 * hole + 1] = NO_BLOCK;
  }

  /** Every (key, value), integer keys first; for snapshots, not the record path. */
  *entries(): IterableIterator<[NormalizedKey, number]> {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 2) if (slots[i + 1] !== NO_BLOCK) yield [slots[i]!, slots[i + 1]!];
    yield* this.others;
  }

  /** Fibonacci hashing: the top bits of key × 2^32/φ, so consecutive keys spread over the table. */
  private home(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  private grow(): void {
    const old = this.slots;
    const capacity = 2 * (this.mask + 1);
    this.slots = emptySlots(capacity);
    this.mask = capacity - 1;
    this.shift--;
    const slots = this.slots;
    const mask = this.mask;
    for (let o = 0; o < old.length; o += 2) {
      if (old[o + 1] === NO_BLOCK) continue;
      const key = old[o]!;
      let i = this.home(key);
      while (slots[2 * i + 1] !== NO_BLOCK) i = (i + 1) & mask;
      slots[2 * i] = key;
      slots[2 * i + 1] = old[o + 1]!;
    }
  }
}

function emptySlots(capacity: number): Int32Array {
  const slots = new Int32Array(2 * capacity);
  for (let i = 1; i < slots.length; i += 2) slots[i] = NO_BLOCK;
  return slots;
}
