// The on-disk format of a checkpoint's `_metadata` file: a checksummed header, the data file list, the payload.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';

/** Where a blob (one key group's state or timers) lives: a data file relative to the metadata's directory. */
export interface BlobRef {
  readonly keyGroup: number;
  readonly file: string;
  readonly offset: number;
  readonly length: number;
}

/** One operator in a checkpoint. */
export interface OperatorMetadata {
  readonly parallelism: number;
  readonly keyedState: BlobRef[];
  readonly timers: BlobRef[];
  readonly operatorState: unknown[];
  readonly finished: boolean[];
}

/** The payload of `_metadata`. Data files are listed with their SHA-256, so a restore can verify every byte. */
export interface CheckpointMetadata {
  readonly checkpointId: number;
  readonly kind: 'checkpoint' | 'savepoint';
  readonly timestamp: number;
  readonly jobName: string;
  readonly operators: Record<string, OperatorMetadata>;
  readonly dataFiles: Record<string, { sha256: string; size: number }>;
}

const MAGIC = Buffer.from('WEIRCKPT', 'latin1');
/**
 * Version 2 keeps the data file list apart from the payload, with a checksum of its own, so retention reads a
 * checkpoint's files without decoding its operator state (a sink's buffered records can make that megabytes).
 * Version 1 (until December 2026) had the list inside the payload; it is still read.
 */
const VERSION = 2;
/** Version 1: magic (8) + version (4) + payload length (8) + sha256 of payload (32). */
const HEADER_V1 = 52;
/** magic (8) + version (4) + list length (4) + sha256 of list (32) + payload length (8) + sha256 of payload (32). */
const HEADER = 88;
const LIST_LENGTH_AT = 12;
const LIST_SHA_AT = 16;
const PAYLOAD_LENGTH_AT = 48;
const PAYLOAD_SHA_AT = 56;

type DataFiles = CheckpointMetadata['dataFiles'];

/** Why a checkpoint cannot be used; restore logs it and falls back to an earlier one. */
export class CorruptCheckpointError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'CorruptCheckpointError';
  }
}

export function encodeMetadata(metadata: CheckpointMetadata): Buffer {
  const { dataFiles, ...rest } = metadata;
  const list = Buffer.from(JSON.stringify(dataFiles));
  const payload = serialize(rest);
  const header = Buffer.alloc(HEADER);
  MAGIC.copy(header, 0);
  header.writeUInt32BE(VERSION, 8);
  header.writeUInt32BE(list.length, LIST_LENGTH_AT);
  sha256(list).copy(header, LIST_SHA_AT);
  header.writeDoubleBE(payload.length, PAYLOAD_LENGTH_AT);
  sha256(payload).copy(header, PAYLOAD_SHA_AT);
  return Buffer.concat([header, list, payload]);
}

export function decodeMetadata(bytes: Buffer, path: string): CheckpointMetadata {
  if (readVersion(bytes, path) === 1) return decodeVersion1(bytes, path);
  const dataFiles = decodeDataFiles(bytes, path);
  const length = bytes.readDoubleBE(PAYLOAD_LENGTH_AT);
  const payload = bytes.subarray(HEADER + bytes.readUInt32BE(LIST_LENGTH_AT));
  if (payload.length !== length) {
    throw new CorruptCheckpointError(
      path,
      `truncated: payload is ${payload.length} bytes, header says ${length}`,
    );
  }
  if (!sha256(payload).equals(bytes.subarray(PAYLOAD_SHA_AT, HEADER)))
    throw new CorruptCheckpointError(path, 'checksum mismatch');
  return { ...(deserialize(payload) as Omit<CheckpointMetadata, 'dataFiles'>), dataFiles };
}

/**
 * The data files the `_metadata` file at `path` lists, verified against their checksum, read without its payload
 * (a version 1 file, whose list is inside the payload, is decoded whole). Throws CorruptCheckpointError.
 */
export async function readMetadataDataFiles(path: string): Promise<DataFiles> {
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(HEADER);
    const { bytesRead } = await file.read(header, 0, HEADER, 0);
    if (readVersion(header.subarray(0, bytesRead), path) === 1)
      return decodeVersion1(await file.readFile(), path).dataFiles;
    const prefix = Buffer.alloc(HEADER + header.readUInt32BE(LIST_LENGTH_AT));
    header.copy(prefix);
    const list = await file.read(prefix, HEADER, prefix.length - HEADER, HEADER);
    return decodeDataFiles(prefix.subarray(0, HEADER + list.bytesRead), path);
  } finally {
    await file.close();
  }
}

/** Checks the magic and returns the version (1 or 2), naming anything else. */
function readVersion(bytes: Buffer, path: string): 1 | 2 {
  if (bytes.length < HEADER_V1 || !bytes.subarray(0, 8).equals(MAGIC)) {
    throw new CorruptCheckpointError(
      path,
      'not a Weir checkpoint metadata file (bad magic or truncated header)',
    );
  }
  const version = bytes.readUInt32BE(8);
  if (version === 1) return 1;
  if (version !== VERSION) throw new CorruptCheckpointError(path, `unsupported metadata version ${version}`);
  if (bytes.length < HEADER)
    throw new CorruptCheckpointError(
      path,
      'not a Weir checkpoint metadata file (bad magic or truncated header)',
    );
  return VERSION;
}

/** The list of a version 2 file from its header and the bytes after (the payload need not be there). */
function decodeDataFiles(bytes: Buffer, path: string): DataFiles {
  const length = bytes.readUInt32BE(LIST_LENGTH_AT);
  const list = bytes.subarray(HEADER, HEADER + length);
  if (list.length !== length)
    throw new CorruptCheckpointError(
      path,
      `truncated: data file list is ${list.length} bytes, header says ${length}`,
    );
  if (!sha256(list).equals(bytes.subarray(LIST_SHA_AT, LIST_SHA_AT + 32)))
    throw new CorruptCheckpointError(path, 'checksum mismatch');
  return JSON.parse(list.toString('utf8')) as DataFiles;
}

function decodeVersion1(bytes: Buffer, path: string): CheckpointMetadata {
  const length = bytes.readDoubleBE(12);
  const payload = bytes.subarray(HEADER_V1);
  if (payload.length !== length) {
    throw new CorruptCheckpointError(
      path,
      `truncated: payload is ${payload.length} bytes, header says ${length}`,
    );
  }
  if (!sha256(payload).equals(bytes.subarray(20, HEADER_V1)))
    throw new CorruptCheckpointError(path, 'checksum mismatch');
  return deserialize(payload) as CheckpointMetadata;
}

export function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}
