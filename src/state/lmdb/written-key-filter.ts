// WrittenKeyFilter: a growable Bloom filter of the entry keys ever written to LMDB, so a key's first read is skipped.

/** Bits per key a layer is sized for: with 6 bits set per key in a 512-bit block, about 1-2 % false positives. */
const BITS_PER_KEY = 10;
/** Bits set per key, all in one 512-bit block (16 words): one cache line or two per layer probed. */
const PROBES = 6;
const BLOCK_WORDS = 16;
/** The first layer's blocks (64 KB: 52,428 keys); each new layer has twice the blocks of the one before. */
const FIRST_LAYER_BLOCKS = 1024;

/** One Bloom filter of fixed size: blocks of 512 bits, a key's bits all in the block its hash picks. */
class Layer {
  readonly words: Int32Array;
  readonly blockMask: number;
  readonly capacity: number;
  /** Keys that set at least one bit here (a key whose bits were all set already adds nothing). */
  count = 0;

  constructor(blocks: number) {
    this.words = new Int32Array(blocks * BLOCK_WORDS);
    this.blockMask = blocks - 1;
    this.capacity = ((blocks * BLOCK_WORDS * 32) / BITS_PER_KEY) | 0;
  }
}

/**
 * RocksDB's Bloom filters, for LMDB: which entry keys may have an entry in the store. A key it has never seen
 * certainly has none, so its first read (a B-tree descent that finds nothing, as costly as one that finds) is
 * skipped. A false positive only costs that read; a false negative would lose state, so every key is added before
 * its entry is put (the write-back, a restore, a rescale's key groups, a kept store's existing entries at open), and
 * nothing is ever removed (a deleted key stays a false positive).
 *
 * Keys are added as they come, so the filter cannot be sized up front: it grows by layers (a scalable Bloom filter),
 * each twice the size of the one before, added when the newest is full; a key is in the filter if any layer has
 * all its bits. Negative answers probe every layer, about log2(keys / 52,000) of them, newest (largest) first.
 * Memory: about 2.5 bytes per key at most (10 bits per key, half-empty newest layer).
 */
export class WrittenKeyFilter {
  private layers: Layer[] = [new Layer(FIRST_LAYER_BLOCKS)];

  /** Whether the key with this hash ({@link hashKeyBytes}) may have been added. */
  mightContain(hash: number): boolean {
    const layers = this.layers;
    for (let i = layers.length - 1; i >= 0; i--) if (has(layers[i]!, hash)) return true;
    return false;
  }

  /** Adds the key with this hash; a key already in the filter (or a false positive) changes nothing. */
  add(hash: number): void {
    if (this.mightContain(hash)) return;
    let layer = this.layers[this.layers.length - 1]!;
    if (layer.count >= layer.capacity) {
      layer = new Layer((layer.blockMask + 1) * 2);
      this.layers.push(layer);
    }
    set(layer, hash);
    layer.count++;
  }

  /** Bytes held by the filter's bit arrays. */
  get bytes(): number {
    let n = 0;
    for (const layer of this.layers) n += layer.words.byteLength;
    return n;
  }
}

/**
 * The block is picked by the hash's low bits; the bits within it by double hashing a second, remixed hash (so the
 * block and the bits are independent); murmur3's fmix32.
 */
function bitHash(hash: number): number {
  let h = hash ^ 0x5bd1e995;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function has(layer: Layer, hash: number): boolean {
  const words = layer.words;
  const base = (hash & layer.blockMask) * BLOCK_WORDS;
  const g = bitHash(hash);
  const step = (g >>> 9) | 1;
  for (let i = 0, bit = g & 511; i < PROBES; i++, bit = (bit + step) & 511)
    if ((words[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
  return true;
}

function set(layer: Layer, hash: number): void {
  const words = layer.words;
  const base = (hash & layer.blockMask) * BLOCK_WORDS;
  const g = bitHash(hash);
  const step = (g >>> 9) | 1;
  for (let i = 0, bit = g & 511; i < PROBES; i++, bit = (bit + step) & 511)
    words[base + (bit >>> 5)]! |= 1 << (bit & 31);
}

/** murmur3 (x86, 32-bit) of the first `length` bytes of `bytes`: the filter's hash of an encoded entry key. */
export function hashKeyBytes(bytes: Uint8Array, length: number): number {
  let h = 0x9747b28c;
  let i = 0;
  for (const end = length & ~3; i < end; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  const rest = length & 3;
  if (rest !== 0) {
    let k = bytes[i]!;
    if (rest > 1) k |= bytes[i + 1]! << 8;
    if (rest > 2) k |= bytes[i + 2]! << 16;
    k = Math.imul(k, 0xcc9e2d51);
    h ^= Math.imul((k << 15) | (k >>> 17), 0x1b873593);
  }
  h ^= length;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
