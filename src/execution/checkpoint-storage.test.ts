// FileCheckpointStorage.retain: which checkpoints and shared data files survive, and what it reads to decide.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileCheckpointStorage } from './checkpoint-storage.ts';

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
});
