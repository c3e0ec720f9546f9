// The checkpoint format of an LMDB key group: its raw LMDB entries, copied without decoding, plus state names.

const MAGIC = 0x574b4732; // "WKG2"

/** Whether bytes are in this format (otherwise they are the heap backend's v8-serialized form). */
export function isRawKeyGroup(bytes: Uint8Array): boolean {
  // Bytes past the end read as 0s, so shorter input never matches the magic.
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0 === MAGIC;
}

/** One raw entry: the LMDB key (state id in bytes 2–3) and value, as stored. */
export interface RawEntry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/**
 * Encodes a key group as `[magic][name count][names…][entry count][key length, key, value length, value]…`.
 * Checkpoints copy LMDB's bytes as they are (no per-entry decode or v8 call, which made snapshots several times
 * slower); state ids are local to one database, so the names travel along and are re-mapped on restore.
 */
export function encodeRawKeyGroup(names: readonly string[], entries: readonly RawEntry[]): Uint8Array {
  let size = 12;
  for (const n of names) size += 4 + Buffer.byteLength(n);
  for (const e of entries) size += 8 + e.key.byteLength + e.value.byteLength;
  const buf = Buffer.allocUnsafe(size);
  let at = buf.writeUInt32BE(MAGIC, 0);
  at = buf.writeUInt32BE(names.length, at);
  for (const n of names) {
    const len = buf.write(n, at + 4); // UTF-8, Buffer's default
    buf.writeUInt32BE(len, at);
    at += 4 + len;
  }
  at = buf.writeUInt32BE(entries.length, at);
  for (const { key, value } of entries) {
    at = buf.writeUInt32BE(key.byteLength, at);
    buf.set(key, at);
    at += key.byteLength;
    at = buf.writeUInt32BE(value.byteLength, at);
    buf.set(value, at);
    at += value.byteLength;
  }
  return buf.subarray(0, at);
}

/** Decodes {@link encodeRawKeyGroup}; entries are views into `input`. */
export function decodeRawKeyGroup(input: Uint8Array): { names: string[]; entries: RawEntry[] } {
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let at = 4;
  const nameCount = buf.readUInt32BE(at);
  at += 4;
  const names: string[] = [];
  for (let i = 0; i < nameCount; i++) {
    const len = buf.readUInt32BE(at);
    names.push(buf.toString('utf8', at + 4, at + 4 + len));
    at += 4 + len;
  }
  const count = buf.readUInt32BE(at);
  at += 4;
  // Stryker disable next-line ArrayDeclaration: the length only presizes the array
  const entries: RawEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const keyLen = buf.readUInt32BE(at);
    const key = buf.subarray(at + 4, at + 4 + keyLen);
    at += 4 + keyLen;
    const valueLen = buf.readUInt32BE(at);
    const value = buf.subarray(at + 4, at + 4 + valueLen);
    at += 4 + valueLen;
    entries[i] = { key, value };
  }
  return { names, entries };
}
