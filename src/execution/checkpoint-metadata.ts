// The on-disk format of a checkpoint's `_metadata` file: a checksummed header over a v8-serialized payload.
import { createHash } from 'node:crypto';
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
const VERSION = 1;
/** magic (8) + version (4) + payload length (8) + sha256 of payload (32). */
const HEADER = 52;

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
  const payload = serialize(metadata);
  const header = Buffer.alloc(HEADER);
  MAGIC.copy(header, 0);
  header.writeUInt32BE(VERSION, 8);
  header.writeDoubleBE(payload.length, 12);
  sha256(payload).copy(header, 20);
  return Buffer.concat([header, payload]);
}

export function decodeMetadata(bytes: Buffer, path: string): CheckpointMetadata {
  if (bytes.length < HEADER || !bytes.subarray(0, 8).equals(MAGIC)) {
    throw new CorruptCheckpointError(
      path,
      'not a Weir checkpoint metadata file (bad magic or truncated header)',
    );
  }
  const version = bytes.readUInt32BE(8);
  if (version !== VERSION) throw new CorruptCheckpointError(path, `unsupported metadata version ${version}`);
  const length = bytes.readDoubleBE(12);
  const payload = bytes.subarray(HEADER);
  if (payload.length !== length) {
    throw new CorruptCheckpointError(
      path,
      `truncated: payload is ${payload.length} bytes, header says ${length}`,
    );
  }
  if (!sha256(payload).equals(bytes.subarray(20, HEADER)))
    throw new CorruptCheckpointError(path, 'checksum mismatch');
  return deserialize(payload) as CheckpointMetadata;
}

export function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}
