// FileCheckpointStorage: what it writes, what retain keeps, and how loading names and skips damaged checkpoints.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RecordingLogger } from '../../test/support/recording-logger.ts';
import { CorruptCheckpointError } from './checkpoint-metadata.ts';
import {
  DataFileBuilder,
  FileCheckpointStorage,
  loadLatestCheckpoint,
  loadSavepoint,
  loadSnapshotDirectory,
  writeSnapshotDirectory,
} from './checkpoint-storage.ts';

const metadata = (checkpointId: number) => ({
  checkpointId,
  kind: 'checkpoint' as const,
  timestamp: checkpointId,
  jobName: 'retain',
  operators: {},
});

/** Writes checkpoint `id` with a data file of its own, inheriting the data files of `inherited`. */
async function write(
  storage: FileCheckpointStorage,
  id: number,
  inherited: Record<string, { sha256: string; size: number }> = {},
) {
  const data = storage.dataFileFor(id);
  data.add(0, new Uint8Array([id]));
  return storage.writeCheckpoint(metadata(id), data, inherited);
}

describe('FileCheckpointStorage.retain', () => {
  it('keeps the newest checkpoints and the data files they reference, inherited ones included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-retain-'));
    const storage = new FileCheckpointStorage(dir);
    const first = await write(storage, 1);
    await write(storage, 2);
    // Checkpoint 3 is incremental: it still references checkpoint 1's data file.
    await write(storage, 3, first.dataFiles);
    await storage.retain(1);
    assert.deepEqual(readdirSync(dir).sort(), ['chk-3', 'shared']);
    assert.deepEqual(readdirSync(join(dir, 'shared')).sort(), ['data-1.bin', 'data-3.bin']);
  });

  it('does not read back the metadata of checkpoints it wrote; another instance reads it once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-retain-'));
    const storage = new FileCheckpointStorage(dir);
    const first = await write(storage, 1);
    await write(storage, 2, first.dataFiles);
    // Damage checkpoint 2's metadata after it was written: this storage knows what 2 references without reading
    // it, so checkpoint 1's data file, which 2 inherits, stays.
    writeFileSync(join(dir, 'chk-2', '_metadata'), 'not a checkpoint');
    await storage.retain(1);
    assert.deepEqual(readdirSync(join(dir, 'shared')).sort(), ['data-1.bin', 'data-2.bin']);
    // A storage that did not write it (a restarted job) must read it: unreadable, it references nothing.
    await new FileCheckpointStorage(dir).retain(1);
    assert.deepEqual(readdirSync(join(dir, 'shared')), []);
  });

  it('another instance reads only the data file list at the head of the metadata, not the operator state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-retain-'));
    const storage = new FileCheckpointStorage(dir);
    const first = await write(storage, 1);
    await write(storage, 2, first.dataFiles);
    // Checkpoint 2's payload (operator state, where a sink's records are) damaged beyond decoding, its list intact:
    // retention reads the list alone, so what 2 references stays.
    const path = join(dir, 'chk-2', '_metadata');
    const bytes = readFileSync(path);
    const payloadAt = 88 + bytes.readUInt32BE(12);
    for (let i = payloadAt; i < bytes.length; i++) bytes[i] = 0xff;
    writeFileSync(path, bytes);
    await new FileCheckpointStorage(dir).retain(1);
    assert.deepEqual(readdirSync(dir).sort(), ['chk-2', 'shared']);
    assert.deepEqual(readdirSync(join(dir, 'shared')).sort(), ['data-1.bin', 'data-2.bin']);
  });

  it('leaves every data file when the metadata cannot be read, as an I/O error is not a corrupt checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-retain-'));
    const storage = new FileCheckpointStorage(dir);
    await write(storage, 1);
    // A directory where the file should be: reading it fails with EISDIR, which says nothing about the checkpoint.
    rmSync(join(dir, 'chk-1', '_metadata'));
    mkdirSync(join(dir, 'chk-1', '_metadata'));
    await assert.rejects(new FileCheckpointStorage(dir).retain(1), { code: 'EISDIR' });
    assert.deepEqual(readdirSync(join(dir, 'shared')), ['data-1.bin']);
  });

  it('another instance reads what a kept checkpoint references and keeps those data files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-retain-'));
    const storage = new FileCheckpointStorage(dir);
    const first = await write(storage, 1);
    await write(storage, 2, first.dataFiles);
    await new FileCheckpointStorage(dir).retain(1);
    assert.deepEqual(readdirSync(dir).sort(), ['chk-2', 'shared']);
    assert.deepEqual(readdirSync(join(dir, 'shared')).sort(), ['data-1.bin', 'data-2.bin']);
  });
});

/** Asserts `load()` throws a CorruptCheckpointError for `path` with exactly `reason`. */
function corrupt(load: () => unknown, path: string, reason: string): void {
  assert.throws(load, (e: unknown) => {
    assert.ok(e instanceof CorruptCheckpointError, String(e));
    assert.equal(e.path, path);
    assert.equal(e.message, `${path}: ${reason}`);
    return true;
  });
}

/** Checkpoint `id` under `storage` with key group 0 holding `bytes` (and an operator state to recognise it by). */
async function checkpointWith(storage: FileCheckpointStorage, id: number, bytes: Uint8Array) {
  const data = storage.dataFileFor(id);
  const ref = data.add(0, bytes);
  const timers = data.add(1, new Uint8Array([5, 6]));
  return storage.writeCheckpoint(
    {
      ...metadata(id),
      operators: {
        sum: { parallelism: 1, keyedState: [ref], timers: [timers], operatorState: [id], finished: [true] },
      },
    },
    data,
    {},
  );
}

describe('FileCheckpointStorage and loading', () => {
  it('numbers a new storage from the highest checkpoint directory present, complete or not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    assert.equal(new FileCheckpointStorage(join(dir, 'none')).highestCheckpointId(), 0);
    assert.equal(new FileCheckpointStorage(dir).highestCheckpointId(), 0);
    for (const name of ['chk-3', 'chk-12', 'chk-7', 'savepoint-40', 'chk-x', 'shared'])
      mkdirSync(join(dir, name));
    writeFileSync(join(dir, 'chk-99.tmp'), '');
    assert.equal(new FileCheckpointStorage(dir).highestCheckpointId(), 12);
  });

  it('writes a data file and metadata that load back byte for byte, with the checkpoint as its snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    const storage = new FileCheckpointStorage(dir);
    const written = await checkpointWith(storage, 4, new Uint8Array([1, 2, 3]));
    assert.equal(written.path, join(dir, 'chk-4'));
    assert.deepEqual(written.dataFiles, {
      '../shared/data-4.bin': {
        // SHA-256 of the bytes 1, 2, 3, 5, 6.
        sha256: createHash('sha256')
          .update(new Uint8Array([1, 2, 3, 5, 6]))
          .digest('hex'),
        size: 5,
      },
    });
    assert.deepEqual(readdirSync(dir).sort(), ['chk-4', 'shared']);
    assert.deepEqual(readdirSync(join(dir, 'chk-4')), ['_metadata']);
    assert.deepEqual([...readFileSync(join(dir, 'shared', 'data-4.bin'))], [1, 2, 3, 5, 6]);
    for (const path of [join(dir, 'chk-4'), join(dir, 'chk-4', '_metadata')]) {
      const loaded = loadSnapshotDirectory(path);
      assert.equal(loaded.path, join(dir, 'chk-4'));
      assert.deepEqual(loaded.metadata.dataFiles, written.dataFiles);
      const { operators, ...rest } = loaded.snapshot;
      assert.deepEqual(rest, { version: 1, checkpointId: 4, kind: 'checkpoint' });
      const sum = operators['sum']!;
      assert.deepEqual([sum.parallelism, sum.operatorState, sum.finished], [1, [4], [true]]);
      assert.deepEqual(
        sum.keyedState.map((g) => [g.keyGroup, [...g.bytes]]),
        [[0, [1, 2, 3]]],
      );
      assert.deepEqual(
        sum.timers.map((g) => [g.keyGroup, [...g.bytes]]),
        [[1, [5, 6]]],
      );
    }
  });

  it('writes a data file larger than 4 MiB with one gathered write, and reads it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    const storage = new FileCheckpointStorage(dir);
    const big = new Uint8Array(4 * 1024 * 1024 + 1);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    await checkpointWith(storage, 1, big);
    assert.deepEqual(readdirSync(join(dir, 'shared')), ['data-1.bin']);
    const group = loadSnapshotDirectory(join(dir, 'chk-1')).snapshot.operators['sum']!.keyedState[0]!;
    assert.equal(group.bytes.length, big.length);
    assert.equal(Buffer.compare(group.bytes, big), 0);
  });

  it('writes no data file when nothing has bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    const data = new DataFileBuilder('data.bin');
    assert.equal(data.isEmpty, true);
    const written = await writeSnapshotDirectory(dir, metadata(1), data, {});
    assert.deepEqual(written, { path: dir, dataFiles: {} });
    assert.deepEqual(readdirSync(dir), ['_metadata']);
    data.add(0, new Uint8Array(0));
    assert.equal(data.isEmpty, true);
  });

  it('names what is wrong with a damaged checkpoint: no metadata, a missing, shorter or altered data file, an unlisted one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    const storage = new FileCheckpointStorage(dir);
    await checkpointWith(storage, 1, new Uint8Array([1, 2, 3]));
    const chk = join(dir, 'chk-1');
    const file = '../shared/data-1.bin';
    const data = join(dir, 'shared', 'data-1.bin');
    corrupt(
      () => loadSnapshotDirectory(join(dir, 'chk-2')),
      join(dir, 'chk-2'),
      'no _metadata file (incomplete checkpoint)',
    );
    writeFileSync(data, new Uint8Array([1, 2, 3, 5]));
    corrupt(() => loadSnapshotDirectory(chk), chk, `data file ${file} is 4 bytes, expected 5`);
    // One flipped bit, same length: only the checksum tells.
    writeFileSync(data, new Uint8Array([1, 2, 3, 5, 7]));
    corrupt(() => loadSnapshotDirectory(chk), chk, `data file ${file} fails its checksum`);
    rmSync(data);
    corrupt(() => loadSnapshotDirectory(chk), chk, `data file ${file} is missing`);
    // A reference to a file the metadata does not list (and so has no checksum for).
    const unlisted = join(dir, 'unlisted');
    mkdirSync(unlisted);
    await writeSnapshotDirectory(
      unlisted,
      {
        ...metadata(5),
        operators: {
          sum: {
            parallelism: 1,
            keyedState: [{ keyGroup: 3, file: 'other.bin', offset: 0, length: 1 }],
            timers: [],
            operatorState: [undefined],
            finished: [false],
          },
        },
      },
      new DataFileBuilder('data.bin'),
      {},
    );
    corrupt(() => loadSnapshotDirectory(unlisted), unlisted, 'key group 3 points to unlisted file other.bin');
  });

  it('falls back from the newest checkpoint to the newest usable one, logging each one skipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    const storage = new FileCheckpointStorage(dir);
    assert.equal(loadLatestCheckpoint(join(dir, 'none')), undefined);
    for (const id of [2, 9, 10]) await checkpointWith(storage, id, new Uint8Array([id]));
    mkdirSync(join(dir, 'chk-11'));
    const logger = new RecordingLogger();
    assert.equal(loadLatestCheckpoint(dir, logger)?.metadata.checkpointId, 10);
    assert.deepEqual(logger.messages, [
      'checkpoint chk-11 is unusable (no _metadata file (incomplete checkpoint)); falling back to an earlier checkpoint',
    ]);
    assert.deepEqual(logger.lines[0]!.fields, { checkpoint: join(dir, 'chk-11') });
    // Ids compare as numbers: 10 is newer than 9 and 2.
    rmSync(join(dir, 'chk-10', '_metadata'));
    writeFileSync(join(dir, 'shared', 'data-9.bin'), new Uint8Array([0, 5, 6]));
    const again = new RecordingLogger();
    assert.equal(loadLatestCheckpoint(dir, again)?.metadata.checkpointId, 2);
    assert.deepEqual(again.messages.slice(1), [
      'checkpoint chk-10 is unusable (no _metadata file (incomplete checkpoint)); falling back to an earlier checkpoint',
      'checkpoint chk-9 is unusable (data file ../shared/data-9.bin fails its checksum); falling back to an earlier checkpoint',
    ]);
    rmSync(join(dir, 'chk-2', '_metadata'));
    assert.equal(loadLatestCheckpoint(dir, new RecordingLogger()), undefined);
  });

  it('does not hide an error that is not a damaged checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    // A directory where the metadata file belongs: reading it fails with EISDIR.
    mkdirSync(join(dir, 'chk-1', '_metadata'), { recursive: true });
    assert.throws(() => loadLatestCheckpoint(dir, new RecordingLogger()), { code: 'EISDIR' });
  });

  it('loads a savepoint from its directory, its metadata file, a checkpoint, or a storage directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-storage-'));
    const storage = new FileCheckpointStorage(dir);
    await checkpointWith(storage, 1, new Uint8Array([1]));
    await checkpointWith(storage, 2, new Uint8Array([2]));
    assert.equal(loadSavepoint(dir).checkpointId, 2);
    assert.equal(loadSavepoint(join(dir, 'chk-1')).checkpointId, 1);
    assert.equal(loadSavepoint(join(dir, 'chk-1', '_metadata')).checkpointId, 1);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    corrupt(() => loadSavepoint(empty), empty, 'no usable checkpoint or savepoint here');
    corrupt(
      () => loadSavepoint(join(dir, 'nothing')),
      join(dir, 'nothing'),
      'no _metadata file (incomplete checkpoint)',
    );
  });

  it('deletes incomplete checkpoints when retaining, and does not count them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-retain-'));
    const storage = new FileCheckpointStorage(dir);
    await write(storage, 1);
    await write(storage, 2);
    mkdirSync(join(dir, 'chk-3'));
    await storage.retain(2);
    assert.deepEqual(readdirSync(dir).sort(), ['chk-1', 'chk-2', 'shared']);
    assert.deepEqual(readdirSync(join(dir, 'shared')).sort(), ['data-1.bin', 'data-2.bin']);
    // Without a shared directory (no checkpoint had key groups) there is nothing else to delete.
    const bare = mkdtempSync(join(tmpdir(), 'weir-retain-'));
    mkdirSync(join(bare, 'chk-1'));
    await new FileCheckpointStorage(bare).retain(1);
    assert.deepEqual(readdirSync(bare), []);
  });
});
