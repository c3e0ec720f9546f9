// Tests of the per-user batching job: both emission paths, timer deletion, many users on few subtasks, restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TestHarness } from '../../src/testing/index.ts';
import type { DataStream } from '../../src/index.ts';
import { userBatching, type UserBatch, type UserEvent } from './user-batching.ts';

const HOUR = 3_600_000;
const build = (size: number, timeout: number) => (input: DataStream<UserEvent>) =>
  userBatching(input, size, timeout);

describe('per-user batching (keyed state and key-bound processing-time timers)', () => {
  it('emits at the batch size and deletes the pending timer', async () => {
    const h = await TestHarness.create(build(3, 12 * HOUR));
    h.setProcessingTime(1_000);
    for (let i = 0; i < 3; i++) h.processElement({ uid: 'u1', ts: i }, i);
    assert.deepEqual(h.records(), [{ uid: 'u1', count: 3, timestamp: 1_000 }]);
    assert.equal(h.numProcessingTimeTimers(), 0, 'the 12 h timer was deleted on the size path');
    assert.equal(h.numKeyedStateEntries(), 0, 'count and timer state were cleared');
    h.setProcessingTime(1_000 + 12 * HOUR);
    assert.equal(h.records().length, 1, 'a deleted timer never fires');
  });

  it('emits on the timeout path with the timer time and its own key', async () => {
    const h = await TestHarness.create(build(500, 12 * HOUR));
    h.setProcessingTime(0);
    h.processElement({ uid: 'a', ts: 1 }, 1);
    h.setProcessingTime(HOUR);
    h.processElement({ uid: 'b', ts: 2 }, 2);
    h.processElement({ uid: 'a', ts: 3 }, 3);
    h.setProcessingTime(12 * HOUR - 1);
    assert.deepEqual(h.records(), []);
    h.setProcessingTime(12 * HOUR);
    assert.deepEqual(h.output(), [
      { value: { uid: 'a', count: 2, timestamp: 12 * HOUR }, timestamp: undefined },
    ]);
    h.setProcessingTime(13 * HOUR);
    assert.deepEqual(h.records(), [
      { uid: 'a', count: 2, timestamp: 12 * HOUR },
      { uid: 'b', count: 1, timestamp: 13 * HOUR },
    ]);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
  });

  it('keeps many interleaved users apart on fewer subtasks than keys', async () => {
    const users = 50;
    const size = 4;
    for (const parallelism of [1, 3]) {
      const h = await TestHarness.create(build(size, 12 * HOUR), { parallelism });
      h.setProcessingTime(10);
      // user k sends k % 7 + 1 events, interleaved round-robin
      const remaining = Array.from({ length: users }, (_, k) => (k % 7) + 1);
      for (let round = 0; round < 7; round++) {
        for (let k = 0; k < users; k++) {
          if (remaining[k]! > round) h.processElement({ uid: `user-${k}`, ts: round }, round);
        }
      }
      h.setProcessingTime(10 + 12 * HOUR);
      const expected: UserBatch[] = [];
      for (let k = 0; k < users; k++) {
        const n = (k % 7) + 1;
        if (n >= size) expected.push({ uid: `user-${k}`, count: size, timestamp: 10 });
        const rest = n >= size ? n - size : n;
        if (rest > 0) expected.push({ uid: `user-${k}`, count: rest, timestamp: 10 + 12 * HOUR });
      }
      const sort = (list: UserBatch[]) =>
        [...list].sort((a, b) => a.uid.localeCompare(b.uid) || a.timestamp - b.timestamp);
      assert.deepEqual(sort(h.records()), sort(expected), `parallelism ${parallelism}`);
      assert.equal(h.numKeyedStateEntries(), 0);
    }
  });

  it('restores a half-full batch and its pending timer, at another parallelism', async () => {
    const h = await TestHarness.create(build(3, 10 * HOUR), { parallelism: 2 });
    h.setProcessingTime(100);
    h.processElement({ uid: 'x', ts: 1 }, 1);
    h.processElement({ uid: 'y', ts: 2 }, 2);
    h.processElement({ uid: 'x', ts: 3 }, 3);
    const snapshot = h.snapshot();
    await h.close();

    const restored = await TestHarness.restore(build(3, 10 * HOUR), snapshot, { parallelism: 3 });
    restored.setProcessingTime(200);
    assert.equal(restored.numProcessingTimeTimers(), 2);
    restored.processElement({ uid: 'x', ts: 4 }, 4);
    assert.deepEqual(restored.records(), [{ uid: 'x', count: 3, timestamp: 200 }]);
    restored.setProcessingTime(100 + 10 * HOUR);
    assert.deepEqual(restored.records(), [
      { uid: 'x', count: 3, timestamp: 200 },
      { uid: 'y', count: 1, timestamp: 100 + 10 * HOUR },
    ]);
    assert.equal(restored.numProcessingTimeTimers(), 0);
  });
});
