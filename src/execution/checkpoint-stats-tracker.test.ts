// CheckpointStatsTracker: counts, latest checkpoints and the bounded history (Flink's CheckpointStatsTrackerTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECKPOINT_HISTORY_SIZE, CheckpointStatsTracker } from './checkpoint-stats-tracker.ts';

const sizes = (total: number) => ({ total, perOperator: { sum: total }, alignmentMs: 2.5 });

describe('CheckpointStatsTracker', () => {
  it('tracks a checkpoint from pending to completed (testCounters, testCheckpointTracking)', () => {
    const tracker = new CheckpointStatsTracker();
    tracker.reportPending(1, 'checkpoint', 100);
    assert.equal(tracker.numberOfInProgressCheckpoints, 1);
    assert.equal(tracker.totalNumberOfCheckpoints, 1);
    assert.deepEqual(tracker.history(), [
      {
        id: 1,
        kind: 'checkpoint',
        status: 'IN_PROGRESS',
        triggerTimestamp: 100,
        latestAckTimestamp: undefined,
        endToEndDurationMs: undefined,
        stateSize: 0,
        operatorStateSize: {},
        alignmentMs: 0,
        externalPath: undefined,
        failureMessage: undefined,
      },
    ]);
    tracker.reportCompleted(1, 130, '/chk/chk-1', sizes(64));
    const completed = {
      id: 1,
      kind: 'checkpoint',
      status: 'COMPLETED',
      triggerTimestamp: 100,
      latestAckTimestamp: 130,
      endToEndDurationMs: 30,
      stateSize: 64,
      operatorStateSize: { sum: 64 },
      alignmentMs: 2.5,
      externalPath: '/chk/chk-1',
      failureMessage: undefined,
    };
    assert.deepEqual(tracker.history(), [completed]);
    assert.deepEqual(tracker.lastCompleted, completed);
    assert.equal(tracker.lastSavepoint, undefined);
    assert.deepEqual(
      [
        tracker.numberOfCompletedCheckpoints,
        tracker.numberOfFailedCheckpoints,
        tracker.numberOfInProgressCheckpoints,
        tracker.totalNumberOfCheckpoints,
      ],
      [1, 0, 0, 1],
    );
  });

  it('tracks a failed checkpoint with its reason', () => {
    const tracker = new CheckpointStatsTracker();
    tracker.reportPending(4, 'checkpoint', 1_000);
    tracker.reportFailed(4, 1_250, 'declined by sum');
    const failed = tracker.history()[0]!;
    assert.deepEqual(
      [failed.status, failed.latestAckTimestamp, failed.endToEndDurationMs, failed.failureMessage],
      ['FAILED', 1_250, 250, 'declined by sum'],
    );
    assert.equal(tracker.lastFailed, failed);
    assert.equal(tracker.lastCompleted, undefined);
    assert.deepEqual(
      [
        tracker.numberOfCompletedCheckpoints,
        tracker.numberOfFailedCheckpoints,
        tracker.numberOfInProgressCheckpoints,
        tracker.totalNumberOfCheckpoints,
      ],
      [0, 1, 0, 1],
    );
  });

  it('keeps savepoints apart from the last completed checkpoint', () => {
    const tracker = new CheckpointStatsTracker();
    tracker.reportPending(1, 'checkpoint', 0);
    tracker.reportCompleted(1, 1, '/chk/chk-1', sizes(1));
    tracker.reportPending(2, 'savepoint', 2);
    tracker.reportCompleted(2, 3, '/sp/savepoint-2', sizes(2));
    assert.equal(tracker.lastCompleted?.id, 1);
    assert.equal(tracker.lastSavepoint?.id, 2);
    assert.equal(tracker.lastSavepoint?.kind, 'savepoint');
    assert.equal(tracker.numberOfCompletedCheckpoints, 2);
  });

  it('ignores reports for checkpoints not in flight, and a second report of one that ended', () => {
    const tracker = new CheckpointStatsTracker();
    tracker.reportCompleted(9, 1, '/x', sizes(1));
    tracker.reportFailed(9, 1, 'x');
    assert.equal(tracker.totalNumberOfCheckpoints, 0);
    tracker.reportPending(1, 'checkpoint', 0);
    tracker.reportCompleted(1, 5, '/chk/chk-1', sizes(1));
    tracker.reportFailed(1, 6, 'late');
    tracker.reportCompleted(1, 7, '/chk/chk-1b', sizes(2));
    assert.deepEqual(
      [
        tracker.numberOfCompletedCheckpoints,
        tracker.numberOfFailedCheckpoints,
        tracker.numberOfInProgressCheckpoints,
      ],
      [1, 0, 0],
    );
    const stats = tracker.history()[0]!;
    assert.deepEqual(
      [stats.status, stats.latestAckTimestamp, stats.externalPath],
      ['COMPLETED', 5, '/chk/chk-1'],
    );
    assert.equal(tracker.lastFailed, undefined);
  });

  it(`keeps the newest ${CHECKPOINT_HISTORY_SIZE} checkpoints, newest first, in-progress ones included (testCheckpointStatsHistory)`, () => {
    assert.equal(CHECKPOINT_HISTORY_SIZE, 10);
    const tracker = new CheckpointStatsTracker();
    for (let id = 1; id <= 12; id++) {
      tracker.reportPending(id, 'checkpoint', id);
      if (id % 2 === 0) tracker.reportCompleted(id, id + 1, `/chk/chk-${id}`, sizes(id));
    }
    assert.deepEqual(
      tracker.history().map((s) => s.id),
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3],
    );
    assert.equal(tracker.history()[1]!.status, 'IN_PROGRESS');
    // Checkpoints that left the history still complete and count.
    tracker.reportCompleted(1, 20, '/chk/chk-1', sizes(1));
    assert.equal(tracker.numberOfCompletedCheckpoints, 7);
    assert.equal(tracker.lastCompleted?.id, 1);
    assert.deepEqual(
      tracker.history().map((s) => s.id),
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3],
    );
  });

  it('remembers the checkpoint the job was restored from', () => {
    const tracker = new CheckpointStatsTracker();
    assert.equal(tracker.restored, undefined);
    tracker.reportRestored(7, 1_234, '/chk/chk-7');
    assert.deepEqual(tracker.restored, { id: 7, timestamp: 1_234, path: '/chk/chk-7' });
  });
});
