// Slot placement: slot i runs on worker i % workers + 1; sinks that keep their records in memory stay on the main thread.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamNode } from '../graph/stream-graph.ts';
import { MAIN_THREAD, slotHost } from './slot-placement.ts';

const node = (sink?: { runsOnMainThread?: boolean }): StreamNode =>
  ({ transformation: { sink } }) as unknown as StreamNode;

describe('slotHost', () => {
  it('puts subtask i on worker i % workers + 1', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => slotHost(node(), i, 2)),
      [1, 2, 1, 2, 1],
    );
    assert.deepEqual(
      [0, 1, 2].map((i) => slotHost(node({ runsOnMainThread: false }), i, 3)),
      [1, 2, 3],
    );
  });

  it('keeps a sink that runs on the main thread there, whatever its index', () => {
    assert.equal(MAIN_THREAD, 0);
    assert.deepEqual(
      [0, 1].map((i) => slotHost(node({ runsOnMainThread: true }), i, 2)),
      [0, 0],
    );
  });
});
