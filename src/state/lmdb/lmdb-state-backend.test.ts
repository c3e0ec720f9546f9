// The LMDB backend's working directories: one per run and subtask, and those of processes no longer running removed.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { KeyGroupRange } from '../key-group-range.ts';
import { keyGroupFor } from '../key-hash.ts';
import { voidNamespaceSerializer } from '../namespace.ts';
import { LmdbStateBackend } from './lmdb-state-backend.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-lmdb-backend-'));
after(() => rmSync(root, { recursive: true, force: true }));

const context = (uid: string, subtaskIndex: number) => ({
  operatorName: 'count',
  uid,
  subtaskIndex,
  maxParallelism: 128,
  keyGroupRange: new KeyGroupRange(0, 127),
  clock: () => 0,
});

describe('LmdbStateBackend', () => {
  it('gives each subtask a directory under its run; a new run gets a new directory', () => {
    const path = join(root, 'runs');
    const backend = new LmdbStateBackend({ path, cacheEntries: 1 });
    assert.equal(backend.name, 'lmdb');
    const a = backend.createKeyedStateBackend(context('keyed/count 1', 0));
    const b = backend.createKeyedStateBackend(context('keyed/count 1', 1));
    const runs = readdirSync(path);
    assert.equal(runs.length, 1);
    assert.match(runs[0]!, new RegExp(`^${process.pid}-\\d+$`));
    assert.deepEqual(readdirSync(join(path, runs[0]!)).sort(), ['keyed_count_1-0', 'keyed_count_1-1']);
    // The subtask's state is in its directory, and works with a one-entry cache.
    const v = a.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    for (let i = 0; i < 5; i++) {
      a.setCurrentKey(i);
      v.update(i * 10);
    }
    a.setCurrentKey(3);
    assert.equal(v.value(), 30);
    backend.newRun();
    const c = backend.createKeyedStateBackend(context('u', 0));
    assert.equal(readdirSync(path).length, 2);
    for (const x of [a, b, c]) x.dispose();
  });

  it('removes the run directories of processes that no longer run, and keeps the others', () => {
    const path = join(root, 'stale');
    // No process has pid 2^22 + 1 (above Linux's pid_max); pid 1 always runs.
    for (const dir of ['4194305-1', `${process.pid}-999`, '1-1', 'notes'])
      mkdirSync(join(path, dir), { recursive: true });
    const backend = new LmdbStateBackend({ path });
    const b = backend.createKeyedStateBackend(context('u', 0));
    const kept = readdirSync(path).filter(
      (d) => !d.startsWith(`${process.pid}-`) || d === `${process.pid}-999`,
    );
    assert.deepEqual(kept.sort(), ['1-1', `${process.pid}-999`, 'notes']);
    assert.equal(existsSync(join(path, '4194305-1')), false);
    b.dispose();
  });

  it("keeps the ids of a kept store's states by name: a reopened store restored in another order reads each state", () => {
    const stores = new LmdbStateBackend({ path: join(root, 'kept') }).localStores;
    const directory = join(root, 'kept', 'task');
    const open = () => stores.open(context('u', 0), directory, { fresh: false, beforeWrite: () => {} });
    const first = open();
    const a = first.getOrCreateKeyedState(new ValueStateDescriptor<string>('a'), voidNamespaceSerializer);
    const b = first.getOrCreateKeyedState(new ValueStateDescriptor<string>('b'), voidNamespaceSerializer);
    first.setCurrentKey('k1');
    a.update('a1');
    b.update('b1');
    first.setCurrentKey('k2');
    b.update('b2');
    assert.notEqual(keyGroupFor('k1', 128), keyGroupFor('k2', 128));
    // The key group of k2 holds only state 'b': restoring it first names 'b' before 'a'.
    const k2 = first.snapshot().find((g) => g.keyGroup === keyGroupFor('k2', 128))!;
    first.dispose();
    const again = open();
    again.removeKeyGroups([k2.keyGroup]);
    again.restore([k2]);
    const a2 = again.getOrCreateKeyedState(new ValueStateDescriptor<string>('a'), voidNamespaceSerializer);
    const b2 = again.getOrCreateKeyedState(new ValueStateDescriptor<string>('b'), voidNamespaceSerializer);
    again.setCurrentKey('k1');
    assert.deepEqual([a2.value(), b2.value()], ['a1', 'b1']);
    again.setCurrentKey('k2');
    assert.deepEqual([a2.value(), b2.value()], [undefined, 'b2']);
    again.dispose();
  });
});
