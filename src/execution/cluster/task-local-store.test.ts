// A task's local store: the checkpoint file read and written whole, removed before the disk moves past it, and kept stores reopened as left.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { after, describe, it } from 'node:test';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { ConfigurationError } from '../../core/errors.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import { keyGroupFor } from '../../state/key-hash.ts';
import { voidNamespaceSerializer } from '../../state/namespace.ts';
import { LmdbStateBackend } from '../../state/lmdb/lmdb-state-backend.ts';
import { emptyContents } from './task-changelog.ts';
import {
  CHECKPOINT_FILE,
  JobStoreLock,
  readCheckpoint,
  TaskLocalStore,
  writeCheckpoint,
} from './task-local-store.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-task-local-store-'));
after(() => rmSync(root, { recursive: true, force: true }));

const context = {
  operatorName: 'count',
  uid: 'count',
  subtaskIndex: 2,
  maxParallelism: 128,
  keyGroupRange: new KeyGroupRange(0, 127),
  clock: () => 0,
};
const descriptor = new ValueStateDescriptor<number>('count');

describe('checkpoint file', () => {
  it('round-trips the offsets, written aside and renamed (nothing else left beside it)', () => {
    const dir = mkdtempSync(join(root, 'file-'));
    const path = join(dir, CHECKPOINT_FILE);
    writeCheckpoint(path, { 'job-count-changelog': 17, 'job-window-changelog': 0 });
    assert.deepEqual(readCheckpoint(path), {
      offsets: { 'job-count-changelog': 17, 'job-window-changelog': 0 },
    });
    assert.deepEqual(readdirSync(dir), [CHECKPOINT_FILE]);
  });

  const rejected: [string, string | undefined, string][] = [
    ['a missing file', undefined, 'there is none'],
    ['a file that is not JSON', '{"version":1,"offs', 'it is not JSON'],
    ['another version', '{"version":2,"offsets":{}}', 'its version is 2, not 1'],
    ['no offsets', '{"version":1}', 'it holds no offsets'],
    ['a negative offset', '{"version":1,"offsets":{"t":-1}}', 'its offset of t is -1'],
    ['an offset that is not an integer', '{"version":1,"offsets":{"t":"12"}}', 'its offset of t is "12"'],
  ];
  for (const [what, text, reason] of rejected)
    it(`rejects ${what}, saying why`, () => {
      const path = join(mkdtempSync(join(root, 'bad-')), CHECKPOINT_FILE);
      if (text !== undefined) writeFileSync(path, text);
      assert.deepEqual(readCheckpoint(path), { rejected: reason });
    });
});

describe('TaskLocalStore', () => {
  const stores = new LmdbStateBackend({ path: join(root, 'lmdb'), cacheEntries: 1_000 }).localStores;

  it('keeps its checkpoint while only the cache moves; the first write to the disk removes it; a commit writes it again', () => {
    const dir = join(root, 'task-1_2');
    const local = new TaskLocalStore(stores, dir);
    assert.deepEqual(local.readCheckpoint(), { rejected: 'there is none' });
    local.open(false);
    const backend = local.keyedBackend(context, []);
    const count = backend.getOrCreateKeyedState(descriptor, voidNamespaceSerializer);
    assert.equal(local.checkpoint({ t: 5 }), true);
    assert.deepEqual(local.readCheckpoint(), { offsets: { t: 5 } });
    backend.setCurrentKey('a');
    count.update(1);
    assert.deepEqual(local.readCheckpoint(), { offsets: { t: 5 } }, 'a write to the cache keeps it');
    const writes = local.writes;
    backend.snapshot(); // flushes the cache to LMDB
    assert.ok(local.writes > writes);
    assert.deepEqual(
      local.readCheckpoint(),
      { rejected: 'there is none' },
      'the write-back removed it first',
    );
    // A lower offset never replaces a higher one: messages the store reflects may be read again, none skipped.
    assert.equal(local.checkpoint({ t: 3 }), true);
    assert.deepEqual(local.readCheckpoint(), { offsets: { t: 5 } });
    assert.equal(local.checkpoint({ t: 9 }), true);
    assert.deepEqual(local.readCheckpoint(), { offsets: { t: 9 } });
    backend.dispose();
    local.close();

    // Reopened as left: the state is there, and replaced key groups are removed before the restore writes them.
    const again = new TaskLocalStore(stores, dir);
    assert.deepEqual(again.readCheckpoint(), { offsets: { t: 9 } });
    again.open(false);
    const kept = again.keyedBackend(context, []);
    const keptCount = kept.getOrCreateKeyedState(descriptor, voidNamespaceSerializer);
    kept.setCurrentKey('a');
    assert.equal(keptCount.value(), 1);
    kept.setCurrentKey('b');
    keptCount.update(2);
    kept.snapshot();
    kept.dispose();
    again.close();
    const third = new TaskLocalStore(stores, dir);
    third.open(false);
    const replaced = third.keyedBackend(context, [keyGroupFor('a', 128)]);
    const replacedCount = replaced.getOrCreateKeyedState(descriptor, voidNamespaceSerializer);
    replaced.setCurrentKey('a');
    assert.equal(replacedCount.value(), undefined, "key 'a''s key group was removed");
    replaced.setCurrentKey('b');
    assert.equal(replacedCount.value(), keyGroupFor('b', 128) === keyGroupFor('a', 128) ? undefined : 2);
    replaced.dispose();
    third.close();

    // Fresh: emptied, checkpoint and all.
    const fresh = new TaskLocalStore(stores, dir);
    fresh.open(true);
    assert.deepEqual(fresh.readCheckpoint(), { rejected: 'there is none' });
    const empty = fresh.keyedBackend(context, []);
    assert.equal(empty.numStateEntries(), 0);
    empty.dispose();
    fresh.close();
  });

  it('keeps timers and the input state: what the changelog read finds replaces or removes what was kept', () => {
    const dir = join(root, 'task-1_3');
    const local = new TaskLocalStore(stores, dir);
    local.open(false);
    const key = (kind: number, keyGroup: number) => Buffer.from([1, kind, 0, keyGroup]);
    local.keep('window', key(1, 4), new Uint8Array([4]));
    local.keep('window', key(1, 5), new Uint8Array([5]));
    local.keep('window', key(1, 6), new Uint8Array([6]));
    local.keep('count', key(1, 4), new Uint8Array([40]));
    const input = { producers: [{ producer: '0_0/double', watermarks: [10], status: [1] }] };
    local.keep('count', key(2, 0), new Uint8Array(serialize(input)));
    local.keep('window', key(1, 6), null);
    assert.equal(local.checkpoint({ t: 1 }), true);
    local.close();

    const again = new TaskLocalStore(stores, dir);
    again.open(false);
    const read = emptyContents();
    read.timers.set(5, new Uint8Array([55]));
    read.timers.set(4, null);
    read.timers.set(7, new Uint8Array([7]));
    assert.deepEqual(again.timers('window', read), [
      { keyGroup: 5, bytes: new Uint8Array([55]) },
      { keyGroup: 7, bytes: new Uint8Array([7]) },
    ]);
    assert.deepEqual(
      again.readCheckpoint(),
      { rejected: 'there is none' },
      'keeping what was read is a write',
    );
    assert.deepEqual(again.timers('count', undefined), [{ keyGroup: 4, bytes: new Uint8Array([40]) }]);
    assert.deepEqual(again.inputState('count', undefined), input);
    const newer = { producers: [] };
    assert.deepEqual(again.inputState('count', newer), newer);
    assert.deepEqual(again.inputState('count', undefined), newer);
    again.close();
  });
});

describe('JobStoreLock', () => {
  it("refuses a second live process's hold, naming it; takes over one a dead process left", () => {
    const dir = join(root, 'locks');
    const lock = JobStoreLock.acquire(dir, 'job');
    lock.release();
    // Pid 1 always runs.
    writeFileSync(join(dir, 'LOCK'), '1');
    assert.throws(
      () => JobStoreLock.acquire(dir, 'job'),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        error.message ===
          `Cluster mode: the local stores of job 'job' in ${dir} are in use by process 1; give each process of a ` +
            `job on one machine a state backend path of its own`,
    );
    // No process has pid 2^22 + 1 (above Linux's pid_max).
    writeFileSync(join(dir, 'LOCK'), '4194305');
    const taken = JobStoreLock.acquire(dir, 'job');
    taken.release();
    assert.equal(existsSync(join(dir, 'LOCK')), false);
  });
});
