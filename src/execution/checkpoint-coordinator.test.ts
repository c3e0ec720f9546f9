// CheckpointCoordinator on a scripted job attempt: acknowledgements, declines, timeouts, tolerable failures, limits.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, mock } from 'node:test';
import { WeirError } from '../core/errors.ts';
import type { StreamGraph, StreamNode } from '../graph/stream-graph.ts';
import type { CheckpointBarrier } from '../runtime/checkpoint-barrier.ts';
import type { JobAttempt, SubtaskRef } from '../runtime/job-attempt.ts';
import type { SubtaskStateSnapshot } from '../runtime/subtask-state-snapshot.ts';
import { RecordingLogger } from '../../test/support/recording-logger.ts';
import { freshDirs } from '../../test/support/fresh-dirs.ts';
import { checkpointConfig, type CheckpointEvent, type CheckpointingOptions } from './checkpoint-config.ts';
import { CheckpointCoordinator, CheckpointFailureError } from './checkpoint-coordinator.ts';
import { loadSnapshotDirectory } from './checkpoint-storage.ts';

const fresh = freshDirs('weir-coordinator-');

/**
 * A job attempt that records what the coordinator asks of it: the checkpoints triggered and aborted, the
 * completions notified, the failures reported. Subtasks acknowledge when the test says so.
 */
class ScriptedAttempt implements JobAttempt {
  readonly graph: StreamGraph;
  restoredCheckpointId: number | undefined = undefined;
  hasFailed = false;
  failureCause: unknown = undefined;
  readonly workerStartupMs = 0;
  readonly triggered: CheckpointBarrier[] = [];
  readonly aborted: number[] = [];
  readonly notified: number[] = [];
  readonly failures: unknown[] = [];
  /** What `notifyCheckpointComplete` returns (default: resolved at once). */
  notify: (id: number) => Promise<void> = () => Promise.resolve();
  /** Thrown by `triggerCheckpoint` when set. */
  triggerError: Error | undefined = undefined;
  describeCompletionWaits?: (checkpointId: number) => string | undefined;

  constructor(readonly nodes: StreamNode[]) {
    this.graph = { nodes } as unknown as StreamGraph;
  }
  fail(error: unknown): void {
    this.hasFailed = true;
    this.failureCause ??= error;
    this.failures.push(error);
  }
  triggerCheckpoint(barrier: CheckpointBarrier): void {
    this.triggered.push(barrier);
    if (this.triggerError !== undefined) throw this.triggerError;
  }
  abortCheckpoint(checkpointId: number): void {
    this.aborted.push(checkpointId);
  }
  notifyCheckpointComplete(checkpointId: number): Promise<void> {
    this.notified.push(checkpointId);
    return this.notify(checkpointId);
  }
  open(): Promise<void> {
    throw new Error('not used');
  }
  runSources(): Promise<void> {
    throw new Error('not used');
  }
  close(): Promise<void> {
    throw new Error('not used');
  }
  disposeBackends(): void {}
  cancel(): void {}
  stopSourcesAfterBarriers(): void {}
  describeWaits(): string[] {
    return [];
  }
  metrics(): [] {
    return [];
  }
  releaseMetrics(): void {}
  subtaskFigures(): [] {
    return [];
  }
  partialMatches(): Promise<[]> {
    return Promise.resolve([]);
  }
}

const node = (uid: string, parallelism: number) => ({ uid, parallelism }) as unknown as StreamNode;

/** A subtask as the coordinator sees it; its state size starts at -1 so a write shows. */
const subtask = (n: StreamNode, index: number, alignmentNs = 0): SubtaskRef => ({
  node: n,
  index,
  checkpointedStateSize: -1,
  checkpointAlignmentTime: alignmentNs,
});

function snapshot(
  parts: {
    keyed?: [number, number[] | undefined][];
    timers?: [number, number[]][];
    operatorState?: unknown;
    finished?: boolean;
  } = {},
): SubtaskStateSnapshot {
  return {
    keyedState: (parts.keyed ?? []).map(([keyGroup, bytes]) => ({
      keyGroup,
      bytes: bytes === undefined ? undefined : new Uint8Array(bytes),
    })),
    timers: (parts.timers ?? []).map(([keyGroup, bytes]) => ({ keyGroup, bytes: new Uint8Array(bytes) })),
    operatorState: parts.operatorState,
    finished: parts.finished ?? false,
  };
}

/** The events a checkpoint listener heard, and a wait for the next one that matches. */
class Events {
  readonly heard: CheckpointEvent[] = [];
  private readonly waiters: { match: (e: CheckpointEvent) => boolean; done: (e: CheckpointEvent) => void }[] =
    [];
  readonly listener = (event: CheckpointEvent): void => {
    this.heard.push(event);
    for (const w of [...this.waiters]) {
      if (!w.match(event)) continue;
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.done(event);
    }
  };
  /** Resolves with the first event, heard already or later, of `type` for checkpoint `id`. */
  next(type: CheckpointEvent['type'], id: number): Promise<CheckpointEvent> {
    const match = (e: CheckpointEvent) => e.type === type && e.checkpointId === id;
    const seen = this.heard.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((done) => this.waiters.push({ match, done }));
  }
}

/** A coordinator over `nodes` with checkpoints under a fresh directory, attached to a scripted attempt. */
function setUp(nodes: StreamNode[], options: Partial<CheckpointingOptions> = {}, intervalMs = 1_000_000) {
  const events = new Events();
  const logger = new RecordingLogger();
  const storage = options.storage ?? fresh('chk');
  const config = checkpointConfig(intervalMs, { ...options, storage, listener: events.listener });
  const coordinator = new CheckpointCoordinator(config, 'job', logger);
  const attempt = new ScriptedAttempt(nodes);
  coordinator.attach(attempt);
  return { coordinator, attempt, events, logger, storage };
}

/** Every subtask of `nodes` acknowledges checkpoint `id` with an empty snapshot. */
function ackAll(coordinator: CheckpointCoordinator, nodes: StreamNode[], id: number): void {
  for (const n of nodes) {
    for (let i = 0; i < n.parallelism; i++)
      coordinator.onSubtaskSnapshot(subtask(n, i), barrier(id), snapshot());
  }
}

const barrier = (id: number, kind: CheckpointBarrier['kind'] = 'checkpoint'): CheckpointBarrier => ({
  id,
  timestamp: 0,
  kind,
});

/**
 * The coordinator's timers are unref'd (a job's own work keeps the process alive); while a test waits for one, a
 * ref'd handle keeps the event loop from ending the test early.
 */
async function alive<T>(promise: Promise<T>): Promise<T> {
  const keep = setInterval(() => {}, 60_000);
  try {
    return await promise;
  } finally {
    clearInterval(keep);
  }
}

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await alive(promise);
  } catch (error) {
    return error as Error;
  }
  assert.fail('expected a rejection');
}

describe('CheckpointCoordinator', () => {
  it('completes a checkpoint once every subtask acknowledged, writing the layout, sizes and stats', async () => {
    const src = node('src', 2);
    const sum = node('sum', 1);
    const { coordinator, attempt, events, storage } = setUp([src, sum]);
    const before = Date.now();
    const final = coordinator.triggerFinal();
    assert.equal(attempt.triggered.length, 1);
    const { id, kind, timestamp } = attempt.triggered[0]!;
    assert.deepEqual([id, kind], [1, 'checkpoint']);
    assert.ok(timestamp >= before && timestamp <= Date.now());
    assert.deepEqual(events.heard, [{ type: 'triggered', checkpointId: 1, kind: 'checkpoint', final: true }]);
    assert.deepEqual(
      coordinator.stats.history().map((s) => [s.id, s.status]),
      [[1, 'IN_PROGRESS']],
    );
    assert.equal(coordinator.stats.numberOfInProgressCheckpoints, 1);

    const sumRef = subtask(sum, 0, 3_000_000);
    const src0 = subtask(src, 0, 1_000_000);
    const src1 = subtask(src, 1);
    coordinator.onSubtaskSnapshot(
      sumRef,
      attempt.triggered[0]!,
      snapshot({
        keyed: [
          [3, [1, 2, 3]],
          [1, [9]],
        ],
        timers: [[1, [7, 7]]],
        finished: true,
      }),
    );
    coordinator.onSubtaskSnapshot(src0, attempt.triggered[0]!, snapshot({ operatorState: { pos: 1 } }));
    assert.deepEqual(coordinator.describePending(), [
      "checkpoint 1 waits for acknowledgements from 'src' subtask 1",
    ]);
    coordinator.onSubtaskSnapshot(src1, attempt.triggered[0]!, snapshot({ operatorState: { pos: 2 } }));
    assert.deepEqual(coordinator.describePending(), []);
    await final;

    const path = join(storage, 'chk-1');
    const completed = await events.next('completed', 1);
    const took = Date.now() - before;
    assert.ok(completed.type === 'completed' && completed.durationMs >= 0 && completed.durationMs <= took);
    assert.deepEqual(
      { ...completed, durationMs: 0 },
      {
        type: 'completed',
        checkpointId: 1,
        kind: 'checkpoint',
        durationMs: 0,
        bytesWritten: 6,
        path,
      },
    );
    assert.deepEqual(attempt.notified, [1]);
    assert.deepEqual([...attempt.failures], []);

    const loaded = loadSnapshotDirectory(path);
    const data = '../shared/data-1.bin';
    assert.deepEqual(loaded.metadata.operators, {
      src: {
        parallelism: 2,
        keyedState: [],
        timers: [],
        operatorState: [{ pos: 1 }, { pos: 2 }],
        finished: [false, false],
      },
      sum: {
        parallelism: 1,
        keyedState: [
          { keyGroup: 1, file: data, offset: 3, length: 1 },
          { keyGroup: 3, file: data, offset: 0, length: 3 },
        ],
        timers: [{ keyGroup: 1, file: data, offset: 4, length: 2 }],
        operatorState: [undefined],
        finished: [true],
      },
    });
    assert.deepEqual(
      [loaded.metadata.checkpointId, loaded.metadata.kind, loaded.metadata.jobName],
      [1, 'checkpoint', 'job'],
    );
    assert.equal(loaded.metadata.timestamp, timestamp);
    assert.deepEqual(Object.keys(loaded.metadata.dataFiles), [data]);
    assert.deepEqual(
      loaded.snapshot.operators['sum']!.keyedState.map((g) => [g.keyGroup, [...g.bytes]]),
      [
        [1, [9]],
        [3, [1, 2, 3]],
      ],
    );

    const stats = coordinator.stats;
    assert.equal(stats.numberOfCompletedCheckpoints, 1);
    assert.equal(stats.numberOfInProgressCheckpoints, 0);
    assert.equal(stats.lastCompleted?.id, 1);
    assert.equal(stats.lastCompleted?.stateSize, 6);
    assert.deepEqual(stats.lastCompleted?.operatorStateSize, { sum: 6, src: 0 });
    assert.equal(stats.lastCompleted?.alignmentMs, 3);
    assert.equal(stats.lastCompleted?.externalPath, path);
    assert.deepEqual(
      [sumRef, src0, src1].map((s) => s.checkpointedStateSize),
      [6, 0, 0],
    );
  });

  it('ignores a repeated acknowledgement and one for a checkpoint not in flight', async () => {
    const src = node('src', 2);
    const { coordinator, attempt, events } = setUp([src]);
    const final = coordinator.triggerFinal();
    coordinator.onSubtaskSnapshot(subtask(src, 0), barrier(1), snapshot({ operatorState: 'first' }));
    coordinator.onSubtaskSnapshot(subtask(src, 0), barrier(1), snapshot({ operatorState: 'again' }));
    coordinator.onSubtaskSnapshot(subtask(src, 1), barrier(7), snapshot());
    assert.deepEqual(coordinator.describePending(), [
      "checkpoint 1 waits for acknowledgements from 'src' subtask 1",
    ]);
    coordinator.onSubtaskSnapshot(subtask(src, 1), barrier(1), snapshot({ operatorState: 'second' }));
    await final;
    const completed = await events.next('completed', 1);
    assert.ok(completed.type === 'completed');
    assert.deepEqual(loadSnapshotDirectory(completed.path).metadata.operators['src']!.operatorState, [
      'first',
      'second',
    ]);
    assert.deepEqual(attempt.triggered.length, 1);
  });

  it('names at most five missing subtasks, then how many more', () => {
    const describe = (parallelism: number): string[] => {
      const wide = node('wide', parallelism);
      const { coordinator } = setUp([wide]);
      void coordinator.triggerFinal().catch(() => {});
      const lines = coordinator.describePending();
      coordinator.abortPending('done');
      return lines;
    };
    const named = (n: number) => Array.from({ length: n }, (_, i) => `'wide' subtask ${i}`).join(', ');
    assert.deepEqual(describe(5), [`checkpoint 1 waits for acknowledgements from ${named(5)}`]);
    assert.deepEqual(describe(6), [`checkpoint 1 waits for acknowledgements from ${named(5)} and 1 more`]);
    assert.deepEqual(describe(8), [`checkpoint 1 waits for acknowledgements from ${named(5)} and 3 more`]);
  });

  it('fails a declined checkpoint at once, aborting it, and ignores its late acknowledgements (testTriggerAndDeclineCheckpointSimple)', async () => {
    const src = node('src', 2);
    const { coordinator, attempt, events, logger } = setUp([src], { tolerableFailures: 1 });
    const final = coordinator.triggerFinal();
    coordinator.onSubtaskSnapshot(subtask(src, 0), barrier(1), snapshot());
    coordinator.onCheckpointDeclined(subtask(src, 1), 1, "'src' (2/2): alignment aborted");
    assert.deepEqual(coordinator.describePending(), []);
    const error = await rejection(final);
    assert.ok(error instanceof WeirError);
    assert.equal(error.message, "Checkpoint 1 failed: declined by 'src' (2/2): alignment aborted");
    assert.deepEqual(attempt.aborted, [1]);
    assert.deepEqual(events.heard.at(-1), {
      type: 'failed',
      checkpointId: 1,
      kind: 'checkpoint',
      reason: "declined by 'src' (2/2): alignment aborted",
    });
    assert.deepEqual(logger.messages, [
      "checkpoint 1 of job 'job' failed: declined by 'src' (2/2): alignment aborted",
    ]);
    assert.deepEqual(logger.lines[0]!.fields, { job: 'job', checkpointId: 1, kind: 'checkpoint' });
    assert.equal(logger.lines[0]!.level, 'warn');
    const stats = coordinator.stats;
    assert.equal(stats.numberOfFailedCheckpoints, 1);
    assert.equal(stats.numberOfInProgressCheckpoints, 0);
    assert.equal(stats.lastFailed?.failureMessage, "declined by 'src' (2/2): alignment aborted");
    // One failure is tolerated; the late acknowledgement and a second decline of the same checkpoint change nothing.
    coordinator.onSubtaskSnapshot(subtask(src, 1), barrier(1), snapshot());
    coordinator.onCheckpointDeclined(subtask(src, 1), 1, 'again');
    assert.deepEqual(attempt.aborted, [1]);
    assert.deepEqual([...attempt.failures], []);
    assert.equal(events.heard.filter((e) => e.type !== 'triggered').length, 1);
  });

  it('fails the job once consecutive failures exceed the tolerable number; a completed checkpoint resets the count', async () => {
    const src = node('src', 1);
    const { coordinator, attempt } = setUp([src], { tolerableFailures: 1 });
    const decline = async (id: number) => {
      const final = coordinator.triggerFinal();
      coordinator.onCheckpointDeclined(subtask(src, 0), id, 'no');
      assert.deepEqual(coordinator.describePending(), []);
      await rejection(final);
    };
    await decline(1);
    const second = coordinator.triggerFinal();
    ackAll(coordinator, [src], 2);
    await second;
    await decline(3);
    assert.deepEqual([...attempt.failures], [], 'one failure after a completed checkpoint is tolerated');
    await decline(4);
    assert.equal(attempt.failures.length, 1);
    const error = attempt.failures[0] as Error;
    assert.ok(error instanceof CheckpointFailureError);
    assert.equal(
      error.message,
      "Job 'job': 2 consecutive checkpoint failure(s) exceed the tolerable 1; last: checkpoint 4 declined by no",
    );
  });

  it('fails the job on the first failed checkpoint by default (tolerable 0)', async () => {
    const src = node('src', 1);
    const { coordinator, attempt } = setUp([src]);
    const final = coordinator.triggerFinal();
    coordinator.onCheckpointDeclined(subtask(src, 0), 1, 'no');
    assert.deepEqual(coordinator.describePending(), []);
    await rejection(final);
    assert.deepEqual(
      attempt.failures.map((e) => (e as Error).message),
      [
        "Job 'job': 1 consecutive checkpoint failure(s) exceed the tolerable 0; last: checkpoint 1 declined by no",
      ],
    );
  });

  it('does not count failed savepoints, nor checkpoints aborted because the attempt ends', async () => {
    const src = node('src', 1);
    const { coordinator, attempt, events } = setUp([src]);
    const savepoint = coordinator.triggerSavepoint(fresh('savepoints'));
    assert.deepEqual(coordinator.describePending(), [
      "savepoint 1 waits for acknowledgements from 'src' subtask 0",
    ]);
    coordinator.onCheckpointDeclined(subtask(src, 0), 1, 'no');
    assert.deepEqual(coordinator.describePending(), []);
    assert.equal((await rejection(savepoint)).message, 'Savepoint 1 failed: declined by no');
    assert.deepEqual(events.heard.at(-1), {
      type: 'failed',
      checkpointId: 1,
      kind: 'savepoint',
      reason: 'declined by no',
    });

    const stalled = coordinator.triggerFinal();
    coordinator.abortPending('the job stalled');
    assert.deepEqual(coordinator.describePending(), []);
    assert.equal((await rejection(stalled)).message, 'Checkpoint 2 failed: the job stalled');

    const ended = coordinator.triggerFinal();
    await coordinator.drain();
    assert.equal(
      (await rejection(ended)).message,
      'Checkpoint 3 failed: the job attempt ended before it completed',
    );
    assert.deepEqual(attempt.aborted, [1, 2, 3]);
    assert.deepEqual([...attempt.failures], []);
    assert.equal(coordinator.stats.numberOfFailedCheckpoints, 3);
  });

  it('times out a checkpoint, naming the subtasks that did not acknowledge (testCheckpointTimeoutIsolated)', async () => {
    const src = node('src', 2);
    const sum = node('sum', 1);
    const { coordinator, attempt, events } = setUp([src, sum], { timeoutMs: 1, tolerableFailures: 1 });
    const final = coordinator.triggerFinal();
    coordinator.onSubtaskSnapshot(subtask(src, 0), barrier(1), snapshot());
    const reason = "timed out after 1 ms waiting for 'src' subtask 1, 'sum' subtask 0";
    assert.equal((await rejection(final)).message, `Checkpoint 1 failed: ${reason}`);
    assert.deepEqual(await alive(events.next('failed', 1)), {
      type: 'failed',
      checkpointId: 1,
      kind: 'checkpoint',
      reason,
    });
    assert.deepEqual(attempt.aborted, [1]);
    assert.deepEqual([...attempt.failures], []);
    // The timeout counts as a failure: the second one in a row exceeds the one tolerated.
    void coordinator.triggerFinal().catch(() => {});
    await alive(events.next('failed', 2));
    assert.equal(attempt.failures.length, 1);
  });

  it('clears the timeout of a completed checkpoint', async () => {
    const src = node('src', 1);
    const { coordinator, attempt, events } = setUp([src], { timeoutMs: 1 });
    const final = coordinator.triggerFinal();
    ackAll(coordinator, [src], 1);
    await final;
    // A checkpoint that completed is not failed by its timer later: the next one's timeout is heard after it.
    void coordinator.triggerFinal().catch(() => {});
    await alive(events.next('failed', 2));
    assert.deepEqual(
      events.heard.map((e) => [e.type, e.checkpointId]),
      [
        ['triggered', 1],
        ['completed', 1],
        ['triggered', 2],
        ['failed', 2],
      ],
    );
    assert.deepEqual(attempt.aborted, [2]);
  });

  it('refuses a savepoint while no attempt runs or after the attempt failed', async () => {
    const events = new Events();
    const config = checkpointConfig(1_000, { storage: fresh('chk'), listener: events.listener });
    const coordinator = new CheckpointCoordinator(config, 'job', new RecordingLogger());
    const unattached = await rejection(coordinator.triggerSavepoint(fresh('savepoints')));
    assert.ok(unattached instanceof WeirError);
    assert.equal(unattached.message, "Job 'job' is not running; cannot take a savepoint");
    const attempt = new ScriptedAttempt([node('src', 1)]);
    coordinator.attach(attempt);
    attempt.hasFailed = true;
    assert.equal(
      (await rejection(coordinator.triggerFinal())).message,
      "Job 'job' is not running; cannot take a checkpoint",
    );
    assert.deepEqual([...attempt.triggered], []);
    assert.deepEqual(events.heard, []);
    assert.equal(coordinator.stats.totalNumberOfCheckpoints, 0);
  });

  it('takes no final checkpoint and no periodic ones without checkpointing', async () => {
    const coordinator = new CheckpointCoordinator(undefined, 'job', new RecordingLogger());
    const attempt = new ScriptedAttempt([node('src', 1)]);
    coordinator.attach(attempt);
    await coordinator.triggerFinal();
    coordinator.start();
    coordinator.stop();
    assert.deepEqual([...attempt.triggered], []);
    // A savepoint still works: it is written where asked, not into checkpoint storage.
    const dir = fresh('savepoints');
    const savepoint = coordinator.triggerSavepoint(dir);
    assert.equal(attempt.triggered.length, 1);
    ackAll(coordinator, attempt.nodes, 1);
    assert.deepEqual(coordinator.describePending(), []);
    assert.match(await savepoint, /savepoint-1-[0-9a-f]{6}$/);
  });

  it('fails the attempt when triggering throws', async () => {
    const src = node('src', 1);
    const { coordinator, attempt } = setUp([src]);
    attempt.triggerError = new Error('no barrier today');
    void coordinator.triggerFinal().catch(() => {});
    assert.deepEqual(attempt.failures, [attempt.triggerError]);
    coordinator.abortPending('done');
  });

  it('writes a savepoint into a new directory of its own, outside checkpoint storage', async () => {
    const src = node('src', 1);
    const sum = node('sum', 1);
    const { coordinator, attempt, events, storage } = setUp([src, sum]);
    const dir = fresh('savepoints');
    const savepoint = coordinator.triggerSavepoint(dir);
    assert.deepEqual(
      attempt.triggered.map((b) => [b.id, b.kind]),
      [[1, 'savepoint']],
    );
    const sumRef = subtask(sum, 0);
    coordinator.onSubtaskSnapshot(subtask(src, 0), attempt.triggered[0]!, snapshot({ operatorState: 5 }));
    coordinator.onSubtaskSnapshot(sumRef, attempt.triggered[0]!, snapshot({ keyed: [[0, [4, 2]]] }));
    assert.deepEqual(coordinator.describePending(), []);
    const path = await savepoint;
    assert.match(path, new RegExp(`^${dir}/savepoint-1-[0-9a-f]{6}$`));
    assert.deepEqual(readdirSync(dir), [path.slice(dir.length + 1)]);
    assert.deepEqual(readdirSync(path).sort(), ['_metadata', 'data.bin']);
    assert.equal(existsSync(join(storage, 'chk-1')), false);
    const loaded = loadSnapshotDirectory(path);
    assert.equal(loaded.metadata.kind, 'savepoint');
    assert.deepEqual(loaded.metadata.operators['sum']!.keyedState, [
      { keyGroup: 0, file: 'data.bin', offset: 0, length: 2 },
    ]);
    assert.deepEqual(loaded.metadata.operators['src']!.operatorState, [5]);
    const completed = await events.next('completed', 1);
    assert.ok(completed.type === 'completed');
    assert.deepEqual([completed.kind, completed.bytesWritten, completed.path], ['savepoint', 2, path]);
    // A savepoint is not the base of later checkpoints, and leaves the subtasks' checkpointed sizes alone.
    assert.equal(coordinator.stats.lastSavepoint?.id, 1);
    assert.equal(coordinator.stats.lastSavepoint?.stateSize, 2);
    assert.equal(coordinator.stats.lastCompleted, undefined);
    assert.equal(sumRef.checkpointedStateSize, -1);
    assert.deepEqual(attempt.notified, [1]);
  });

  it('references unchanged key groups in the last completed checkpoint, until a new attempt (incremental)', async () => {
    const sum = node('sum', 1);
    const { coordinator, attempt, storage } = setUp([sum], { tolerableFailures: 0 });
    const take = async (keyed: [number, number[] | undefined][]): Promise<void> => {
      const final = coordinator.triggerFinal();
      const id = attempt.triggered.at(-1)!.id;
      coordinator.onSubtaskSnapshot(subtask(sum, 0), barrier(id), snapshot({ keyed }));
      await final;
    };
    await take([
      [0, [1]],
      [1, [2]],
    ]);
    await take([
      [0, undefined],
      [1, [3]],
    ]);
    const second = loadSnapshotDirectory(join(storage, 'chk-2'));
    assert.deepEqual(second.metadata.operators['sum']!.keyedState, [
      { keyGroup: 0, file: '../shared/data-1.bin', offset: 0, length: 1 },
      { keyGroup: 1, file: '../shared/data-2.bin', offset: 0, length: 1 },
    ]);
    assert.deepEqual(Object.keys(second.metadata.dataFiles).sort(), [
      '../shared/data-1.bin',
      '../shared/data-2.bin',
    ]);
    assert.deepEqual(
      second.snapshot.operators['sum']!.keyedState.map((g) => [...g.bytes]),
      [[1], [3]],
    );
    // Checkpoint 3 inherits checkpoint 1's group through checkpoint 2.
    await take([
      [0, undefined],
      [1, undefined],
    ]);
    assert.deepEqual(
      loadSnapshotDirectory(join(storage, 'chk-3')).snapshot.operators['sum']!.keyedState.map((g) => [
        ...g.bytes,
      ]),
      [[1], [3]],
    );
    // A new attempt has new backends: nothing completed before it is a base.
    coordinator.attach(attempt);
    const final = coordinator.triggerFinal();
    coordinator.onSubtaskSnapshot(subtask(sum, 0), barrier(4), snapshot({ keyed: [[1, undefined]] }));
    assert.equal(
      (await rejection(final)).message,
      "Checkpoint 4 failed: key group 1 of 'sum' is unchanged, but no completed checkpoint holds it",
    );
    assert.deepEqual(attempt.aborted, [4]);
    // It counts as a failed checkpoint: none is tolerated here.
    assert.deepEqual(
      attempt.failures.map((e) => (e as Error).message),
      [
        "Job 'job': 1 consecutive checkpoint failure(s) exceed the tolerable 0; last: checkpoint 4 key group 1 of 'sum' is unchanged, but no completed checkpoint holds it",
      ],
    );
  });

  it('keeps the newest `retained` checkpoints and the data files they reference', async () => {
    const sum = node('sum', 1);
    const { coordinator, attempt, storage } = setUp([sum], { retained: 2 });
    for (let id = 1; id <= 4; id++) {
      const final = coordinator.triggerFinal();
      coordinator.onSubtaskSnapshot(subtask(sum, 0), barrier(id), snapshot({ keyed: [[0, [id]]] }));
      await final;
    }
    assert.deepEqual(readdirSync(storage).sort(), ['chk-3', 'chk-4', 'shared']);
    assert.deepEqual(readdirSync(join(storage, 'shared')).sort(), ['data-3.bin', 'data-4.bin']);
    assert.deepEqual(attempt.notified, [1, 2, 3, 4]);
  });

  it('numbers checkpoints after those in storage and after the restored one', async () => {
    const storage = fresh('chk');
    mkdirSync(join(storage, 'chk-7'), { recursive: true });
    mkdirSync(join(storage, 'chk-3'));
    mkdirSync(join(storage, 'savepoint-40'));
    const src = node('src', 1);
    const { coordinator, attempt } = setUp([src], { storage });
    void coordinator.triggerFinal().catch(() => {});
    assert.equal(attempt.triggered.at(-1)!.id, 8);
    coordinator.abortPending('next');
    const restored = new ScriptedAttempt([src]);
    restored.restoredCheckpointId = 11;
    coordinator.attach(restored);
    void coordinator.triggerFinal().catch(() => {});
    assert.equal(restored.triggered.at(-1)!.id, 12);
    coordinator.abortPending('next');
    // A restored checkpoint older than the next id (a savepoint from long ago) does not move it back.
    const older = new ScriptedAttempt([src]);
    older.restoredCheckpointId = 2;
    coordinator.attach(older);
    void coordinator.triggerFinal().catch(() => {});
    assert.equal(older.triggered.at(-1)!.id, 13);
    coordinator.abortPending('next');
    // Equal to the next id: the one after it.
    const equal = new ScriptedAttempt([src]);
    equal.restoredCheckpointId = 14;
    coordinator.attach(equal);
    void coordinator.triggerFinal().catch(() => {});
    assert.equal(equal.triggered.at(-1)!.id, 15);
    coordinator.abortPending('next');
  });

  it('fails a checkpoint that cannot be written', async () => {
    const storage = fresh('chk');
    mkdirSync(storage);
    // A file where the shared data directory belongs.
    writeFileSync(join(storage, 'shared'), '');
    const src = node('src', 1);
    const { coordinator, attempt, events } = setUp([src], { storage, tolerableFailures: 1 });
    const final = coordinator.triggerFinal();
    ackAll(coordinator, [src], 1);
    const error = await rejection(final);
    assert.match(error.message, /^Checkpoint 1 failed: could not be written: E\w+: /);
    assert.equal((await alive(events.next('failed', 1))).type, 'failed');
    assert.deepEqual([...attempt.notified], []);
    assert.deepEqual(attempt.aborted, [1]);
    assert.deepEqual([...attempt.failures], [], 'a write failure counts against the tolerable failures');
    void coordinator.triggerFinal().catch(() => {});
    ackAll(coordinator, [src], 2);
    await alive(events.next('failed', 2));
    assert.equal(attempt.failures.length, 1);
  });

  it('fails the attempt when the sinks cannot commit a completed checkpoint', async () => {
    const src = node('src', 1);
    const { coordinator, attempt } = setUp([src]);
    const commit = new Error('commit failed');
    attempt.notify = () => Promise.reject(commit);
    const final = coordinator.triggerFinal();
    ackAll(coordinator, [src], 1);
    assert.equal(await rejection(final), commit);
    assert.deepEqual(attempt.failures, [commit]);
  });

  it('does not notify an attempt that failed meanwhile, but the checkpoint stays completed', async () => {
    const src = node('src', 1);
    const { coordinator, attempt, storage } = setUp([src]);
    const final = coordinator.triggerFinal();
    attempt.hasFailed = true;
    ackAll(coordinator, [src], 1);
    await final;
    assert.deepEqual([...attempt.notified], []);
    assert.equal(existsSync(join(storage, 'chk-1', '_metadata')), true);
  });

  for (const waits of ["thread 1 (runs 'sum' 1/2)", undefined]) {
    it(`across threads, fails the attempt when a commit is not confirmed within the timeout, naming ${waits ?? 'every thread'}`, async () => {
      const src = node('src', 1);
      const { coordinator, attempt } = setUp([src], { timeoutMs: 1 });
      attempt.notify = () => new Promise(() => {});
      attempt.describeCompletionWaits = () => waits;
      const final = coordinator.triggerFinal();
      ackAll(coordinator, [src], 1);
      const error = await rejection(final);
      assert.ok(error instanceof CheckpointFailureError);
      assert.equal(
        error.message,
        `Job 'job': checkpoint 1 is durable, but its commit was not confirmed within 1 ms by ${waits ?? 'every thread'}`,
      );
      assert.deepEqual(attempt.failures, [error]);
    });
  }

  it('across threads, a commit confirmed in time completes the checkpoint', async () => {
    const src = node('src', 1);
    const { coordinator, attempt } = setUp([src], { timeoutMs: 60_000 });
    attempt.describeCompletionWaits = () => 'nobody';
    const final = coordinator.triggerFinal();
    ackAll(coordinator, [src], 1);
    await final;
    assert.deepEqual([...attempt.failures], []);
  });

  it('across threads, clears the commit timeout once the commit is confirmed: no timer keeps the process alive', async () => {
    const src = node('src', 1);
    const { coordinator, attempt } = setUp([src], { timeoutMs: 60_000 });
    attempt.describeCompletionWaits = () => 'nobody';
    // The checkpoint timeout is unref'd, the commit timeout is not: only the latter is an active resource.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const final = coordinator.triggerFinal();
    ackAll(coordinator, [src], 1);
    await final;
    assert.equal(timers(), before);
    assert.deepEqual([...attempt.failures], []);
  });

  it('without checkpointing, does not bound the commit of a savepoint across threads (no timeout to bound it by)', async () => {
    const coordinator = new CheckpointCoordinator(undefined, 'job', new RecordingLogger());
    const attempt = new ScriptedAttempt([node('src', 1)]);
    attempt.describeCompletionWaits = () => 'nobody';
    coordinator.attach(attempt);
    const savepoint = coordinator.triggerSavepoint(fresh('savepoints'));
    ackAll(coordinator, attempt.nodes, 1);
    assert.match(await savepoint, /savepoint-1-[0-9a-f]{6}$/);
    assert.deepEqual([...attempt.notified], [1]);
    assert.deepEqual([...attempt.failures], []);
  });

  it('on one thread, does not bound a commit by the timeout (mocked timeout timer)', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const src = node('src', 1);
      const { coordinator, attempt, events } = setUp([src], { timeoutMs: 10 });
      let commit!: () => void;
      attempt.notify = () => new Promise((done) => (commit = done));
      const final = coordinator.triggerFinal();
      ackAll(coordinator, [src], 1);
      await events.next('completed', 1);
      assert.deepEqual(attempt.notified, [1]);
      mock.timers.tick(10);
      commit();
      await final;
      assert.deepEqual([...attempt.failures], []);
    } finally {
      mock.timers.reset();
    }
  });

  it('fails the attempt when the sinks cannot commit a periodic checkpoint, and still drains', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const src = node('src', 1);
      const { coordinator, attempt, events } = setUp([src], {}, 10);
      const commit = new Error('commit failed');
      attempt.notify = () => Promise.reject(commit);
      coordinator.start();
      mock.timers.tick(10);
      ackAll(coordinator, [src], 1);
      await events.next('completed', 1);
      await coordinator.drain();
      assert.deepEqual(attempt.failures, [commit]);
    } finally {
      mock.timers.reset();
    }
  });

  it('clears the timeout of a checkpoint declined, aborted or ended with its attempt (mocked timeout timer)', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const src = node('src', 1);
      const { coordinator, attempt, events } = setUp([src], { timeoutMs: 10, tolerableFailures: 5 });
      const declined = coordinator.triggerFinal();
      coordinator.onCheckpointDeclined(subtask(src, 0), 1, 'no');
      const aborted = coordinator.triggerFinal();
      coordinator.abortPending('the job stalled');
      const ended = coordinator.triggerFinal();
      await coordinator.drain();
      const reasons = ['declined by no', 'the job stalled', 'the job attempt ended before it completed'];
      for (const [i, failed] of [declined, aborted, ended].entries())
        assert.equal((await rejection(failed)).message, `Checkpoint ${i + 1} failed: ${reasons[i]}`);
      // A timer left running would fail each checkpoint a second time here.
      mock.timers.tick(10);
      assert.deepEqual(
        events.heard.filter((e) => e.type === 'failed').map((e) => [e.checkpointId, e.reason]),
        reasons.map((reason, i) => [i + 1, reason]),
      );
      assert.deepEqual(attempt.aborted, [1, 2, 3]);
      assert.equal(coordinator.stats.numberOfFailedCheckpoints, 3);
      assert.deepEqual([...attempt.failures], []);
    } finally {
      mock.timers.reset();
    }
  });

  describe('periodic checkpoints (mocked interval timer)', () => {
    /** Runs `body` with setInterval under the test's control. */
    async function withMockedInterval(body: () => Promise<void>): Promise<void> {
      mock.timers.enable({ apis: ['setInterval'] });
      try {
        await body();
      } finally {
        mock.timers.reset();
      }
    }

    it('triggers every interval while fewer than maxConcurrent are in flight or being written (testMaxConcurrentAttempts)', async () => {
      await withMockedInterval(async () => {
        const src = node('src', 1);
        const { coordinator, attempt, events } = setUp([src], { maxConcurrent: 2 }, 10);
        coordinator.start();
        coordinator.start();
        mock.timers.tick(9);
        assert.deepEqual([...attempt.triggered], []);
        mock.timers.tick(1);
        assert.deepEqual(
          attempt.triggered.map((b) => b.id),
          [1],
        );
        mock.timers.tick(50);
        assert.deepEqual(
          attempt.triggered.map((b) => b.id),
          [1, 2],
        );
        // Acknowledged but not yet written, checkpoint 1 still counts.
        ackAll(coordinator, [src], 1);
        mock.timers.tick(10);
        assert.equal(attempt.triggered.length, 2);
        await events.next('completed', 1);
        // Its write ends once the sinks were told (resolved promises only): one turn of the event loop later.
        assert.deepEqual(attempt.notified, [1]);
        await new Promise((resolve) => setImmediate(resolve));
        mock.timers.tick(10);
        assert.deepEqual(
          attempt.triggered.map((b) => b.id),
          [1, 2, 3],
        );
        assert.deepEqual(
          events.heard.filter((e) => e.type === 'triggered'),
          [1, 2, 3].map((checkpointId) => ({
            type: 'triggered',
            checkpointId,
            kind: 'checkpoint',
            final: false,
          })),
        );
        coordinator.stop();
        coordinator.stop();
        mock.timers.tick(100);
        assert.equal(attempt.triggered.length, 3);
        // Started again after a stop, it triggers again.
        coordinator.abortPending('done');
        coordinator.start();
        mock.timers.tick(10);
        assert.equal(attempt.triggered.length, 4);
        await coordinator.drain();
        mock.timers.tick(100);
        assert.equal(attempt.triggered.length, 4);
      });
    });

    it('triggers one at a time by default', async () => {
      await withMockedInterval(async () => {
        const src = node('src', 1);
        const { coordinator, attempt } = setUp([src], {}, 10);
        coordinator.start();
        mock.timers.tick(100);
        assert.equal(attempt.triggered.length, 1);
        await coordinator.drain();
      });
    });

    it('skips the periodic trigger while the attempt has failed', async () => {
      await withMockedInterval(async () => {
        const src = node('src', 1);
        const { coordinator, attempt, events } = setUp([src], {}, 10);
        attempt.hasFailed = true;
        coordinator.start();
        mock.timers.tick(30);
        assert.deepEqual([...attempt.triggered], []);
        assert.deepEqual([...events.heard], []);
        coordinator.stop();
      });
    });
  });
});
