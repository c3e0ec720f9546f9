// How a record's value crosses a repartition topic: bytes out, bytes in; msgpackr unless the job says otherwise.
import { createRequire } from 'node:module';
import type * as Msgpackr from 'msgpackr';

/** Turns a record into message value bytes and back; the two sides of a topic must use the same pair. */
export interface RepartitionCodec<T> {
  /** The record's bytes, written as the message value. */
  encode(value: T): Uint8Array;
  /** The record back from a message value. */
  decode(bytes: Buffer): T;
}

let codec: typeof Msgpackr | undefined;

/** msgpackr, loaded on first use: it loads a native accelerator, which `import 'weir/kafka'` need not. */
function msgpackr(): typeof Msgpackr {
  codec ??= createRequire(import.meta.url)('msgpackr') as typeof Msgpackr;
  return codec;
}

/**
 * The default codec: msgpackr, as records crossing threads are encoded, so a record that can cross threads can
 * cross processes, with the same differences from structured clone (class instances arrive as plain objects,
 * `-0` as `0`). Each message stands alone (no record structures shared between messages), since a consumer may
 * start reading a partition anywhere.
 */
export function msgpackCodec<T>(): RepartitionCodec<T> {
  const { Packr } = msgpackr();
  const packr = new Packr({ useRecords: false, moreTypes: true });
  return {
    encode: (value) => packr.pack(value),
    decode: (bytes) => packr.unpack(bytes) as T,
  };
}

/** JSON text, for topics other tools read. */
export function jsonCodec<T>(): RepartitionCodec<T> {
  return {
    encode: (value) => Buffer.from(JSON.stringify(value)),
    decode: (bytes) => JSON.parse(bytes.toString('utf8')) as T,
  };
}
