// A standby's catch-up applied to a local store: in full into an empty store, then only the tail, as a task's start restores it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { after, describe, it } from 'node:test';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import type { SubTopology } from '../../graph/sub-topologies.ts';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import { keyGroupFor } from '../../state/key-hash.ts';
import { voidNamespaceSerializer } from '../../state/namespace.ts';
import { LmdbStateBackend } from '../../state/lmdb/lmdb-state-backend.ts';
import { applyChangelogRead } from './standby-task.ts';
import { emptyContents, type ChangelogRestore, type ChangelogTopicPlan } from './task-changelog.ts';
import { TaskLocalStore } from './task-local-store.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-standby-task-'));
after(() => rmSync(root, { recursive: true, force: true }));

const topic: ChangelogTopicPlan = {
  name: 'job-count-changelog',
  uid: 'count',
  partitions: 4,
  maxParallelism: 128,
};
const sub = { nodes: [] } as unknown as SubTopology;
const count = new ValueStateDescriptor<number>('count');
const label = new ValueStateDescriptor<string>('label');

/** The owner's state: key → [count, label]; its key groups as its changelog holds them. */
function ownerGroups(state: Record<string, [number, string | undefined]>) {
  const owner = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0, 'count');
  const c = owner.getOrCreateKeyedState(count, voidNamespaceSerializer);
  const l = owner.getOrCreateKeyedState(label, voidNamespaceSerializer);
  for (const [key, [n, text]] of Object.entries(state)) {
    owner.setCurrentKey(key);
    c.update(n);
    if (text !== undefined) l.update(text);
  }
  return new Map(owner.snapshot().map((g) => [g.keyGroup, g.bytes] as const));
}

function read(
  groups: Map<number, Uint8Array | null>,
  ends: number,
  fromCheckpoint: boolean,
  timers = new Map<number, Uint8Array | null>(),
): ChangelogRestore {
  const contents = emptyContents();
  for (const [g, bytes] of groups) contents.keyedState.set(g, bytes);
  for (const [g, bytes] of timers) contents.timers.set(g, bytes);
  contents.input = { producers: ['p'] };
  return {
    snapshot: undefined,
    read: new Map([[topic.uid, contents]]),
    inputState: contents.input,
    ends: { [topic.name]: ends },
    fromCheckpoint,
    checkpointRejected: undefined,
    messages: groups.size,
    bytes: 0,
    entries: groups.size,
    ms: 0,
  };
}

/** What the store holds, read as the task's start opens it: each key's count and label. */
function contentsOf(stores: LmdbStateBackend['localStores'], directory: string, keys: readonly string[]) {
  const local = new TaskLocalStore(stores, directory);
  local.open(false);
  const backend = local.keyedBackend(
    {
      operatorName: 'count',
      uid: 'count',
      subtaskIndex: 1,
      maxParallelism: 128,
      keyGroupRange: new KeyGroupRange(0, 127),
      clock: () => 0,
    },
    [],
  );
  // Registered in the other order than the changelog's key groups name them.
  const l = backend.getOrCreateKeyedState(label, voidNamespaceSerializer);
  const c = backend.getOrCreateKeyedState(count, voidNamespaceSerializer);
  const out: Record<string, [number | undefined, string | undefined]> = {};
  for (const key of keys) {
    backend.setCurrentKey(key);
    out[key] = [c.value(), l.value()];
  }
  const timers = local.timers('count', undefined).map((t) => t.keyGroup);
  const input = local.inputState('count', undefined);
  backend.dispose();
  local.close();
  return { out, timers, input, checkpoint: local.readCheckpoint() };
}

describe('applyChangelogRead (a standby catching up)', () => {
  const stores = new LmdbStateBackend({ path: join(root, 'lmdb') }).localStores;
  const keys = ['a', 'b', 'c'];
  assert.equal(new Set(keys.map((k) => keyGroupFor(k, 128))).size, 3, 'one key group per key');

  it('rebuilds an empty store from a full read, then replaces and removes only the key groups a tail holds', () => {
    const directory = join(root, 'task-1_1');
    const first = ownerGroups({ a: [1, undefined], b: [2, 'two'], c: [3, 'three'] });
    const timerGroup = keyGroupFor('a', 128);
    const full = read(first, 10, false, new Map([[timerGroup, new Uint8Array(serialize([]))]]));
    assert.equal(
      applyChangelogRead(new TaskLocalStore(stores, directory), sub, 1, [topic], full, () => 0),
      true,
    );
    assert.deepEqual(contentsOf(stores, directory, keys), {
      out: { a: [1, undefined], b: [2, 'two'], c: [3, 'three'] },
      timers: [timerGroup],
      input: { producers: ['p'] },
      checkpoint: { offsets: { [topic.name]: 10 } },
    });

    // The owner counted `a` on and cleared `b` (a tombstone); `c` did not change, so the tail does not hold it.
    const later = ownerGroups({ a: [4, 'four'] });
    const tail = read(
      new Map([
        [keyGroupFor('a', 128), later.get(keyGroupFor('a', 128))!],
        [keyGroupFor('b', 128), null],
      ]),
      15,
      true,
      new Map([[timerGroup, null]]),
    );
    assert.equal(
      applyChangelogRead(new TaskLocalStore(stores, directory), sub, 1, [topic], tail, () => 0),
      true,
    );
    assert.deepEqual(contentsOf(stores, directory, keys), {
      out: { a: [4, 'four'], b: [undefined, undefined], c: [3, 'three'] },
      timers: [],
      input: { producers: ['p'] },
      checkpoint: { offsets: { [topic.name]: 15 } },
    });
  });

  it('empties the store before a full read (a rejected checkpoint): what the read does not hold is gone', () => {
    const directory = join(root, 'task-1_2');
    const all = ownerGroups({ a: [1, 'one'], b: [2, 'two'] });
    applyChangelogRead(new TaskLocalStore(stores, directory), sub, 2, [topic], read(all, 7, false), () => 0);
    const again = ownerGroups({ c: [9, 'nine'] });
    applyChangelogRead(
      new TaskLocalStore(stores, directory),
      sub,
      2,
      [topic],
      read(again, 3, false),
      () => 0,
    );
    assert.deepEqual(contentsOf(stores, directory, keys).out, {
      a: [undefined, undefined],
      b: [undefined, undefined],
      c: [9, 'nine'],
    });
    assert.deepEqual(contentsOf(stores, directory, keys).checkpoint, { offsets: { [topic.name]: 3 } });
  });
});
