// The `_metadata` format: a checksummed header over the payload; every kind of damage is named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CorruptCheckpointError,
  decodeMetadata,
  encodeMetadata,
  sha256,
  type CheckpointMetadata,
} from './checkpoint-metadata.ts';

const metadata: CheckpointMetadata = {
  checkpointId: 3,
  kind: 'checkpoint',
  timestamp: 1_700_000_000_000,
  jobName: 'job',
  operators: {
    sum: {
      parallelism: 1,
      keyedState: [{ keyGroup: 2, file: '../shared/data-3.bin', offset: 0, length: 4 }],
      timers: [],
      operatorState: [{ next: 9 }],
      finished: [false],
    },
  },
  dataFiles: { '../shared/data-3.bin': { sha256: 'ab', size: 4 } },
};

/** Asserts decoding `bytes` fails naming `path: reason`. */
function corrupt(bytes: Buffer, reason: string): void {
  assert.throws(
    () => decodeMetadata(bytes, '/chk/chk-3/_metadata'),
    (e: unknown) =>
      e instanceof CorruptCheckpointError &&
      e.name === 'CorruptCheckpointError' &&
      e.path === '/chk/chk-3/_metadata' &&
      e.message === `/chk/chk-3/_metadata: ${reason}`,
  );
}

describe('checkpoint metadata', () => {
  it('round-trips, behind a 52-byte header: magic, version 1, payload length, payload SHA-256', () => {
    const bytes = encodeMetadata(metadata);
    assert.deepEqual(decodeMetadata(bytes, 'x'), metadata);
    assert.equal(bytes.subarray(0, 8).toString('latin1'), 'WEIRCKPT');
    assert.equal(bytes.readUInt32BE(8), 1);
    assert.equal(bytes.readDoubleBE(12), bytes.length - 52);
    assert.deepEqual(bytes.subarray(20, 52), sha256(bytes.subarray(52)));
  });

  it('names a bad magic, a truncated header, another version, a truncated payload and a checksum mismatch', () => {
    const bytes = encodeMetadata(metadata);
    const magic = Buffer.from(bytes);
    magic[0] = 0x58;
    corrupt(magic, 'not a Weir checkpoint metadata file (bad magic or truncated header)');
    corrupt(bytes.subarray(0, 51), 'not a Weir checkpoint metadata file (bad magic or truncated header)');
    const version = Buffer.from(bytes);
    version.writeUInt32BE(2, 8);
    corrupt(version, 'unsupported metadata version 2');
    const payload = bytes.length - 52;
    corrupt(
      bytes.subarray(0, bytes.length - 1),
      `truncated: payload is ${payload - 1} bytes, header says ${payload}`,
    );
    corrupt(
      Buffer.concat([bytes, Buffer.from([0])]),
      `truncated: payload is ${payload + 1} bytes, header says ${payload}`,
    );
    const flipped = Buffer.from(bytes);
    flipped[bytes.length - 1] = flipped[bytes.length - 1]! ^ 0x01;
    corrupt(flipped, 'checksum mismatch');
    const header = Buffer.from(bytes);
    header[30] = header[30]! ^ 0x01;
    corrupt(header, 'checksum mismatch');
  });

  it('SHA-256 of known input', () => {
    assert.equal(
      sha256(Buffer.from('abc')).toString('hex'),
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
