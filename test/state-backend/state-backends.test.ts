// Runs the keyed state contract on every backend, plus what only the LMDB backend promises (eviction, incremental).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import { LmdbKeyedStateBackend } from '../../src/state/lmdb/lmdb-keyed-state-backend.ts';
import { voidNamespaceSerializer } from '../../src/state/namespace.ts';
import { ListStateDescriptor, ValueStateDescriptor } from '../../src/state/state-descriptor.ts';
import { keyedStateBackendContract } from './keyed-state-backend-contract.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-lmdb-contract-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const lmdb = (range: KeyGroupRange, maxParallelism: number, clock: () => number, cacheEntries?: number) =>
  new LmdbKeyedStateBackend({
    path: join(root, `db-${n++}`),
    maxParallelism,
    keyGroupRange: range,
    clock,
    ...(cacheEntries ? { cacheEntries } : {}),
  });

keyedStateBackendContract('heap', (range, maxP, clock) => new HeapKeyedStateBackend(maxP, range, clock));
keyedStateBackendContract('lmdb', (range, maxP, clock) => lmdb(range, maxP, clock));
keyedStateBackendContract('lmdb with a tiny cache', (range, maxP, clock) => lmdb(range, maxP, clock, 3));

describe('LmdbKeyedStateBackend', () => {
  const FULL = new KeyGroupRange(0, 127);

  it('keeps in-place changes (list appends) across cache evictions', () => {
    const b = lmdb(FULL, 128, () => 0, 10);
    const l = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), voidNamespaceSerializer);
    for (let i = 0; i < 5_000; i++) {
      b.setCurrentKey(i % 97);
      l.add(i);
    }
    b.setCurrentKey(5);
    assert.deepEqual([...l.get()].slice(0, 3), [5, 102, 199]);
    assert.equal(l.get().length, Math.ceil((5_000 - 5) / 97));
    b.dispose();
  });

  it('snapshots incrementally: only key groups changed since the last completed checkpoint carry bytes', () => {
    const b = lmdb(FULL, 128, () => 0);
    const v = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    for (let i = 0; i < 1_000; i++) {
      b.setCurrentKey(i);
      v.update(i);
    }
    const first = b.snapshotIncremental(1);
    assert.ok(first.length > 100 && first.every((g) => g.bytes !== undefined));
    // Checkpoint bytes use the binary key-group encoding; they restore like the heap-format ones.
    const copy = lmdb(FULL, 128, () => 0);
    copy.restore(first.map((g) => ({ keyGroup: g.keyGroup, bytes: g.bytes! })));
    const cv = copy.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    copy.setCurrentKey(999);
    assert.equal(cv.value(), 999);
    assert.equal(copy.numStateEntries(), 1_000);
    copy.dispose();
    b.notifyCheckpointComplete(1);
    b.setCurrentKey(7);
    v.update(70);
    const changedGroup = b.getCurrentKeyGroup();
    const second = b.snapshotIncremental(2);
    assert.equal(second.length, first.length);
    assert.deepEqual(
      second.filter((g) => g.bytes !== undefined).map((g) => g.keyGroup),
      [changedGroup],
    );
    // Checkpoint 2 never completes: checkpoint 3 must still carry the group changed before 2.
    b.setCurrentKey(8);
    v.update(80);
    const third = b
      .snapshotIncremental(3)
      .filter((g) => g.bytes !== undefined)
      .map((g) => g.keyGroup);
    assert.ok(third.includes(changedGroup) && third.includes(b.getCurrentKeyGroup()));
    b.dispose();
  });

  it('reads heap snapshots and writes snapshots the heap backend reads', () => {
    const heap = new HeapKeyedStateBackend(128, FULL, () => 0);
    const hv = heap.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    heap.setCurrentKey('a');
    hv.update('from heap');
    const l = lmdb(FULL, 128, () => 0);
    l.restore(heap.snapshot());
    const lv = l.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    l.setCurrentKey('a');
    assert.equal(lv.value(), 'from heap');
    lv.update('from lmdb');
    const heap2 = new HeapKeyedStateBackend(128, FULL, () => 0);
    heap2.restore(l.snapshot());
    const hv2 = heap2.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    heap2.setCurrentKey('a');
    assert.equal(hv2.value(), 'from lmdb');
    l.dispose();
  });
});
