// The `_metadata` format: a checksummed header, the data file list, the payload; every kind of damage is named.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import {
  CorruptCheckpointError,
  decodeMetadata,
  encodeMetadata,
  readMetadataDataFiles,
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

/** A version 1 file, as written until December 2026: magic, version, payload length, payload SHA-256, payload. */
function version1(metadata: CheckpointMetadata): Buffer {
  const payload = serialize(metadata);
  const header = Buffer.alloc(52);
  header.write('WEIRCKPT', 0, 'latin1');
  header.writeUInt32BE(1, 8);
  header.writeDoubleBE(payload.length, 12);
  sha256(payload).copy(header, 20);
  return Buffer.concat([header, payload]);
}

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
  it('round-trips, behind an 88-byte header: magic, version 2, list length and SHA-256, payload length and SHA-256', () => {
    const bytes = encodeMetadata(metadata);
    assert.deepEqual(decodeMetadata(bytes, 'x'), metadata);
    assert.equal(bytes.subarray(0, 8).toString('latin1'), 'WEIRCKPT');
    assert.equal(bytes.readUInt32BE(8), 2);
    const list = bytes.subarray(88, 88 + bytes.readUInt32BE(12));
    assert.deepEqual(JSON.parse(list.toString('utf8')), metadata.dataFiles);
    assert.deepEqual(bytes.subarray(16, 48), sha256(list));
    const payload = bytes.subarray(88 + list.length);
    assert.equal(bytes.readDoubleBE(48), payload.length);
    assert.deepEqual(bytes.subarray(56, 88), sha256(payload));
    // The payload holds the rest: the list is not written twice.
    const { dataFiles: _, ...rest } = metadata;
    assert.deepEqual(deserialize(payload), rest);
  });

  it('reads version 1 files, whose payload holds the data file list', async () => {
    const bytes = version1(metadata);
    assert.deepEqual(decodeMetadata(bytes, 'x'), metadata);
    const path = join(mkdtempSync(join(tmpdir(), 'weir-metadata-')), '_metadata');
    writeFileSync(path, bytes);
    assert.deepEqual(await readMetadataDataFiles(path), metadata.dataFiles);
  });

  it('reads the data file list without the payload, which it neither reads nor checks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-metadata-'));
    const bytes = encodeMetadata(metadata);
    const path = join(dir, '_metadata');
    // Every payload byte altered: the list still reads, the whole file does not.
    const listEnd = 88 + bytes.readUInt32BE(12);
    const damaged = Buffer.from(bytes);
    for (let i = listEnd; i < damaged.length; i++) damaged[i] = damaged[i]! ^ 0xff;
    writeFileSync(path, damaged);
    assert.deepEqual(await readMetadataDataFiles(path), metadata.dataFiles);
    corrupt(damaged, 'checksum mismatch');
    // Cut right after the list: the same.
    writeFileSync(path, bytes.subarray(0, listEnd));
    assert.deepEqual(await readMetadataDataFiles(path), metadata.dataFiles);
    // A damaged list is named as the file is.
    const list = Buffer.from(bytes);
    list[90] = list[90]! ^ 0x01;
    writeFileSync(path, list);
    await assert.rejects(readMetadataDataFiles(path), {
      name: 'CorruptCheckpointError',
      message: `${path}: checksum mismatch`,
    });
    writeFileSync(path, bytes.subarray(0, listEnd - 1));
    await assert.rejects(readMetadataDataFiles(path), {
      name: 'CorruptCheckpointError',
      message: `${path}: truncated: data file list is ${listEnd - 89} bytes, header says ${listEnd - 88}`,
    });
    writeFileSync(path, 'not a checkpoint');
    await assert.rejects(readMetadataDataFiles(path), {
      name: 'CorruptCheckpointError',
      message: `${path}: not a Weir checkpoint metadata file (bad magic or truncated header)`,
    });
  });

  it('names a bad magic, a truncated header, another version, a truncated list or payload and a checksum mismatch', () => {
    const bytes = encodeMetadata(metadata);
    const listLength = bytes.readUInt32BE(12);
    const magic = Buffer.from(bytes);
    magic[0] = 0x58;
    corrupt(magic, 'not a Weir checkpoint metadata file (bad magic or truncated header)');
    corrupt(bytes.subarray(0, 51), 'not a Weir checkpoint metadata file (bad magic or truncated header)');
    corrupt(bytes.subarray(0, 87), 'not a Weir checkpoint metadata file (bad magic or truncated header)');
    const version = Buffer.from(bytes);
    version.writeUInt32BE(3, 8);
    corrupt(version, 'unsupported metadata version 3');
    corrupt(
      bytes.subarray(0, 88 + listLength - 1),
      `truncated: data file list is ${listLength - 1} bytes, header says ${listLength}`,
    );
    const payload = bytes.length - 88 - listLength;
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
    const list = Buffer.from(bytes);
    list[88] = list[88]! ^ 0x01;
    corrupt(list, 'checksum mismatch');
    for (const at of [30, 70]) {
      const header = Buffer.from(bytes);
      header[at] = header[at]! ^ 0x01;
      corrupt(header, 'checksum mismatch');
    }
  });

  it('names a truncated payload and a checksum mismatch in a version 1 file', () => {
    const bytes = version1(metadata);
    const payload = bytes.length - 52;
    corrupt(
      bytes.subarray(0, bytes.length - 1),
      `truncated: payload is ${payload - 1} bytes, header says ${payload}`,
    );
    const flipped = Buffer.from(bytes);
    flipped[bytes.length - 1] = flipped[bytes.length - 1]! ^ 0x01;
    corrupt(flipped, 'checksum mismatch');
  });

  it('SHA-256 of known input', () => {
    assert.equal(
      sha256(Buffer.from('abc')).toString('hex'),
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
