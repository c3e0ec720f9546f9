// The byte layout of keyed state in LMDB: keys ordered by key group, values carrying TTL and namespace bytes.
import type { NormalizedKey } from '../key-hash.ts';

/**
 * A state entry's LMDB key: `[key group u16][state id u16][namespace key][user key]`. Key groups come first so one
 * key group is one contiguous range (a snapshot of a key group is a single range scan, a rescale a range read).
 * The namespace is stored by its lookup key (what `NamespaceSerializer.key` returns), which is all a state handle
 * knows when it reads; the namespace's own bytes travel in the value, for snapshots.
 */
const NS_NUMBER = 1;
const NS_STRING = 2;
const KEY_STRING = 1;
const KEY_NUMBER = 2;
const KEY_BIGINT = 3;
const KEY_BOOLEAN = 4;

/** Encodes one entry's key. Cost: one allocation and the UTF-8 encoding of string parts. */
export function encodeEntryKey(
  keyGroup: number,
  stateId: number,
  nsKey: string | number,
  key: NormalizedKey,
): Buffer {
  const buf = Buffer.allocUnsafe(entryKeyLength(nsKey, key));
  writeEntryKey(buf, keyGroup, stateId, nsKey, key);
  return buf;
}

/** The length in bytes of an entry key (what {@link writeEntryKey} writes). */
export function entryKeyLength(nsKey: string | number, key: NormalizedKey): number {
  const nsLen = typeof nsKey === 'number' ? 9 : 3 + Buffer.byteLength(nsKey);
  switch (typeof key) {
    case 'string':
      return 4 + nsLen + 1 + Buffer.byteLength(key);
    case 'number':
      return 4 + nsLen + 9;
    case 'bigint':
      return 4 + nsLen + 1 + key.toString().length;
    default:
      return 4 + nsLen + 2;
  }
}

/**
 * Writes an entry key at the start of `buf` (at least {@link entryKeyLength} bytes) and returns its length: the
 * miss path and the write-back encode into one reused buffer instead of allocating a key per access.
 */
export function writeEntryKey(
  buf: Buffer,
  keyGroup: number,
  stateId: number,
  nsKey: string | number,
  key: NormalizedKey,
): number {
  buf.writeUInt16BE(keyGroup, 0);
  buf.writeUInt16BE(stateId, 2);
  let at = 4;
  if (typeof nsKey === 'number') {
    buf[at] = NS_NUMBER;
    buf.writeDoubleBE(nsKey, at + 1);
    at += 9;
  } else {
    buf[at] = NS_STRING;
    const n = buf.write(nsKey, at + 3); // UTF-8, Buffer's default, as every string here
    buf.writeUInt16BE(n, at + 1);
    at += 3 + n;
  }
  switch (typeof key) {
    case 'string':
      buf[at] = KEY_STRING;
      return at + 1 + buf.write(key, at + 1);
    case 'number':
      buf[at] = KEY_NUMBER;
      buf.writeDoubleBE(key, at + 1);
      return at + 9;
    case 'bigint':
      buf[at] = KEY_BIGINT;
      return at + 1 + buf.write(key.toString(), at + 1); // ASCII digits
    default:
      buf[at] = KEY_BOOLEAN;
      buf[at + 1] = key ? 1 : 0;
      return at + 2;
  }
}

/** The parts of an entry key. */
export interface DecodedEntryKey {
  keyGroup: number;
  stateId: number;
  nsKey: string | number;
  key: NormalizedKey;
}

export function decodeEntryKey(buf: Uint8Array): DecodedEntryKey {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const keyGroup = b.readUInt16BE(0);
  const stateId = b.readUInt16BE(2);
  let at = 4;
  let nsKey: string | number;
  if (b[at] === NS_NUMBER) {
    nsKey = b.readDoubleBE(at + 1);
    at += 9;
  } else {
    const n = b.readUInt16BE(at + 1);
    nsKey = b.toString('utf8', at + 3, at + 3 + n);
    at += 3 + n;
  }
  let key: NormalizedKey;
  switch (b[at]) {
    case KEY_STRING:
      key = b.toString('utf8', at + 1);
      break;
    case KEY_NUMBER:
      key = b.readDoubleBE(at + 1);
      break;
    case KEY_BIGINT:
      key = BigInt(b.toString('utf8', at + 1));
      break;
    default:
      key = b[at + 1] === 1;
  }
  return { keyGroup, stateId, nsKey, key };
}

/** The first key of a key group's range (and, for `keyGroup + 1`, the end of the previous one). */
export function keyGroupPrefix(keyGroup: number): Buffer {
  const buf = Buffer.allocUnsafe(2);
  buf.writeUInt16BE(keyGroup, 0);
  return buf;
}

/** How an entry's value bytes are encoded: by the descriptor's serializer, or (default serializer) directly. */
export const VALUE_SERIALIZED = 0;
export const VALUE_STRING = 1;
export const VALUE_NUMBER = 2;

/**
 * An entry's value: `[last access f64 (-1 without TTL)][namespace length u32][namespace bytes][format u8][value]`.
 * Strings and numbers under the default (structured clone) serializer skip v8.serialize, the dominant cost of a
 * flush; savepoints re-encode them with the serializer, so their format does not change.
 */
export function encodeEntryValue(
  lastAccess: number,
  nsBytes: Uint8Array,
  format: number,
  valueBytes: Uint8Array | string | number,
): Buffer {
  const buf = Buffer.allocUnsafe(entryValueLength(nsBytes, format, valueBytes));
  writeEntryValue(buf, lastAccess, nsBytes, format, valueBytes);
  return buf;
}

/** The length in bytes of an entry value (what {@link writeEntryValue} writes). */
export function entryValueLength(
  nsBytes: Uint8Array,
  format: number,
  valueBytes: Uint8Array | string | number,
): number {
  const valueLen =
    format === VALUE_STRING
      ? Buffer.byteLength(valueBytes as string)
      : format === VALUE_NUMBER
        ? 8
        : (valueBytes as Uint8Array).byteLength;
  return 13 + nsBytes.byteLength + valueLen;
}

/** Writes an entry value at the start of `buf` (at least {@link entryValueLength} bytes); returns its length. */
export function writeEntryValue(
  buf: Buffer,
  lastAccess: number,
  nsBytes: Uint8Array,
  format: number,
  valueBytes: Uint8Array | string | number,
): number {
  buf.writeDoubleBE(lastAccess, 0);
  buf.writeUInt32BE(nsBytes.byteLength, 8);
  buf.set(nsBytes, 12);
  const at = 12 + nsBytes.byteLength;
  buf[at] = format;
  if (format === VALUE_STRING) return at + 1 + buf.write(valueBytes as string, at + 1);
  if (format === VALUE_NUMBER) {
    buf.writeDoubleBE(valueBytes as number, at + 1);
    return at + 9;
  }
  buf.set(valueBytes as Uint8Array, at + 1);
  return at + 1 + (valueBytes as Uint8Array).byteLength;
}

export interface DecodedEntryValue {
  lastAccess: number;
  nsBytes: Uint8Array;
  format: number;
  valueBytes: Uint8Array;
}

/**
 * Decodes an entry value; the parts are views into `buf`. The value ends at `buf.length`, which need not be the end
 * of the memory: lmdb-js's reused read buffer (`getBinaryFast`) sets its `length` property to the size read. The end
 * is passed to `subarray` explicitly: Node 22's Buffer `subarray` bounded a view by that property, Node 24's (the
 * typed array's own) by the memory's end, so an open-ended view carried the bytes of earlier, longer reads.
 */
export function decodeEntryValue(buf: Uint8Array): DecodedEntryValue {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const nsLen = b.readUInt32BE(8);
  return {
    lastAccess: b.readDoubleBE(0),
    nsBytes: b.subarray(12, 12 + nsLen),
    format: b[12 + nsLen]!,
    valueBytes: b.subarray(13 + nsLen, b.length),
  };
}

/** The value of decoded entry bytes, given the descriptor's serializer for the serialized format. */
export function entryValue(
  format: number,
  bytes: Uint8Array,
  deserialize: (bytes: Uint8Array) => unknown,
): unknown {
  if (format === VALUE_STRING)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (format === VALUE_NUMBER)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readDoubleBE(0);
  return deserialize(bytes);
}
