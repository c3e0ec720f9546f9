// CheckpointCoordinator: triggers checkpoints, collects subtask acknowledgements, writes, retains and commits them.
import { defaultLogger, type Logger } from '../core/logger.ts';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { WeirError } from '../core/errors.ts';
import type { JobAttempt, SubtaskRef } from '../runtime/job-attempt.ts';
import type { CheckpointBarrier } from '../runtime/checkpoint-barrier.ts';
import type { CheckpointConfig, CheckpointEvent } from './checkpoint-config.ts';
import type { BlobRef, CheckpointMetadata, OperatorMetadata } from './checkpoint-metadata.ts';
import { DataFileBuilder, FileCheckpointStorage, writeSnapshotDirectory } from './checkpoint-storage.ts';
import type { SubtaskStateSnapshot } from '../runtime/subtask-state-snapshot.ts';
import { CheckpointStatsTracker } from './checkpoint-stats-tracker.ts';

/** A job failed because more consecutive checkpoints failed than tolerated. */
export class CheckpointFailureError extends WeirError {}

interface PendingCheckpoint {
  readonly barrier: CheckpointBarrier;
  readonly acks: Map<string, (SubtaskStateSnapshot | undefined)[]>;
  remaining: number;
  readonly started: number;
  timer: NodeJS.Timeout | undefined;
  readonly savepointDir: string | undefined;
  readonly done: { resolve(path: string): void; reject(error: unknown): void } | undefined;
  /** Snapshot bytes per acknowledging subtask (for state-size metrics). */
  readonly sizes: Map<SubtaskRef, number>;
}

/** The last completed checkpoint, which incremental checkpoints reference. */
interface CompletedCheckpoint {
  readonly id: number;
  readonly keyedRefs: Map<string, Map<number, BlobRef>>;
  readonly dataFiles: CheckpointMetadata['dataFiles'];
}

/**
 * Flink's CheckpointCoordinator for one job. Per attempt it is attached to a JobAttempt; it triggers a checkpoint
 * every interval (when fewer than `maxConcurrent` are in flight), gathers every subtask's snapshot, and once all
 * arrived writes the checkpoint durably, then tells the runtime it completed (sinks commit, incremental backends
 * rebase). Writes are serialised, so checkpoints complete in id order. Failures (timeout, write error) are
 * reported; more than `tolerableFailures` in a row fail the job.
 */
export class CheckpointCoordinator {
  private runtime: JobAttempt | undefined = undefined;
  private readonly storage: FileCheckpointStorage | undefined;
  private nextId: number;
  private readonly pending = new Map<number, PendingCheckpoint>();
  private lastCompleted: CompletedCheckpoint | undefined = undefined;
  private writes: Promise<void> = Promise.resolve();
  /** Checkpoints acknowledged but not yet durable: they count against maxConcurrent too. */
  private writing = 0;
  private periodic: NodeJS.Timeout | undefined = undefined;
  private consecutiveFailures = 0;
  private readonly totalSubtasks = new Map<JobAttempt, number>();

  constructor(
    private readonly config: CheckpointConfig | undefined,
    private readonly jobName: string,
    private readonly logger: Logger = defaultLogger(),
    /** Receives every checkpoint's progress for metrics and the REST API. */
    readonly stats: CheckpointStatsTracker = new CheckpointStatsTracker(),
  ) {
    this.storage = config === undefined ? undefined : new FileCheckpointStorage(config.storage);
    this.nextId = (this.storage?.highestCheckpointId() ?? 0) + 1;
  }

  /** Binds the coordinator to a new attempt. Incremental bases do not survive a restart (backends are new). */
  attach(runtime: JobAttempt): void {
    this.runtime = runtime;
    this.lastCompleted = undefined;
    const restored = runtime.restoredCheckpointId;
    if (restored !== undefined && restored >= this.nextId) this.nextId = restored + 1;
  }

  /** Receives one subtask's snapshot (the runtime's `onSubtaskSnapshot`). */
  readonly onSubtaskSnapshot = (
    subtask: SubtaskRef,
    barrier: CheckpointBarrier,
    snapshot: SubtaskStateSnapshot,
  ): void => {
    const pending = this.pending.get(barrier.id);
    if (pending === undefined) return;
    const list = pending.acks.get(subtask.node.uid)!;
    if (list[subtask.index] !== undefined) return;
    list[subtask.index] = snapshot;
    pending.sizes.set(subtask, snapshotBytes(snapshot));
    if (--pending.remaining === 0) this.complete(pending);
  };

  /** A subtask gave up aligning checkpoint `checkpointId` (the runtime's `onCheckpointDeclined`): fail it now. */
  readonly onCheckpointDeclined = (_subtask: SubtaskRef, checkpointId: number, reason: string): void => {
    const pending = this.pending.get(checkpointId);
    if (pending !== undefined) this.fail(pending, `declined by ${reason}`, true);
  };

  /** What each checkpoint in flight still waits for, one line each (for stall errors). */
  describePending(): string[] {
    return [...this.pending.values()].map(
      (p) => `${p.barrier.kind} ${p.barrier.id} waits for acknowledgements from ${missingSubtasks(p)}`,
    );
  }

  /** Fails every checkpoint in flight with `reason` (the job cannot go on), rejecting those awaited. */
  abortPending(reason: string): void {
    for (const pending of [...this.pending.values()]) this.fail(pending, reason, false);
  }

  /** Starts periodic checkpoints. */
  start(): void {
    if (this.config === undefined || this.periodic !== undefined) return;
    this.periodic = setInterval(() => {
      if (this.pending.size + this.writing < this.config!.maxConcurrent)
        this.trigger('checkpoint', undefined);
    }, this.config.intervalMs);
    this.periodic.unref();
  }

  /** Stops periodic checkpoints (pending ones still complete or time out). */
  stop(): void {
    if (this.periodic !== undefined) clearInterval(this.periodic);
    this.periodic = undefined;
  }

  /** Takes a savepoint into a new directory under `dir`; resolves with its path once it is durable. */
  triggerSavepoint(dir: string): Promise<string> {
    return new Promise((resolve, reject) => this.trigger('savepoint', { resolve, reject }, dir));
  }

  /**
   * The final checkpoint of a bounded job: every subtask has finished, so all acknowledge at once; its completion
   * commits what exactly-once sinks wrote since the previous checkpoint.
   */
  async triggerFinal(): Promise<void> {
    if (this.config === undefined) return;
    await new Promise<string>((resolve, reject) =>
      this.trigger('checkpoint', { resolve, reject }, undefined, true),
    );
  }

  /** Waits for every write in progress; aborts checkpoints still waiting for acknowledgements. */
  async drain(): Promise<void> {
    this.stop();
    for (const pending of [...this.pending.values()])
      this.fail(pending, 'the job attempt ended before it completed', false);
    await this.writes;
  }

  private trigger(
    kind: 'checkpoint' | 'savepoint',
    done: PendingCheckpoint['done'],
    savepointDir?: string,
    final = false,
  ): void {
    const runtime = this.runtime;
    if (runtime === undefined || runtime.hasFailed) {
      done?.reject(new WeirError(`Job '${this.jobName}' is not running; cannot take a ${kind}`));
      return;
    }
    const barrier: CheckpointBarrier = { id: this.nextId++, timestamp: Date.now(), kind };
    const acks = new Map<string, (SubtaskStateSnapshot | undefined)[]>();
    let total = 0;
    for (const node of runtime.graph.nodes) {
      acks.set(node.uid, new Array(node.parallelism).fill(undefined));
      total += node.parallelism;
    }
    const pending: PendingCheckpoint = {
      barrier,
      acks,
      remaining: total,
      started: Date.now(),
      timer: undefined,
      savepointDir,
      done,
      sizes: new Map(),
    };
    this.pending.set(barrier.id, pending);
    this.stats.reportPending(barrier.id, kind, barrier.timestamp);
    this.emit({ type: 'triggered', checkpointId: barrier.id, kind, final });
    if (this.config !== undefined) {
      pending.timer = setTimeout(
        () =>
          this.fail(
            pending,
            `timed out after ${this.config!.timeoutMs} ms waiting for ${missingSubtasks(pending)}`,
            true,
          ),
        this.config.timeoutMs,
      );
      pending.timer.unref();
    }
    try {
      runtime.triggerCheckpoint(barrier);
    } catch (error) {
      runtime.fail(error);
    }
  }

  /** Every subtask acknowledged: assemble synchronously (refs resolve against the current base), write in order. */
  private complete(pending: PendingCheckpoint): void {
    clearTimeout(pending.timer);
    this.pending.delete(pending.barrier.id);
    const { id, kind } = pending.barrier;
    const savepoint = kind === 'savepoint';
    const savepointPath = savepoint
      ? join(pending.savepointDir!, `savepoint-${id}-${randomBytes(3).toString('hex')}`)
      : undefined;
    const data = savepoint ? new DataFileBuilder('data.bin') : this.storage!.dataFileFor(id);
    const operators: Record<string, OperatorMetadata> = {};
    const keyedRefs = new Map<string, Map<number, BlobRef>>();
    const inherited: CheckpointMetadata['dataFiles'] = {};
    try {
      for (const [uid, list] of pending.acks) {
        const refs = new Map<number, BlobRef>();
        const timers: BlobRef[] = [];
        for (const snap of list) {
          for (const group of snap!.keyedState) {
            if (group.bytes !== undefined) {
              refs.set(group.keyGroup, data.add(group.keyGroup, group.bytes));
              continue;
            }
            // Stryker disable next-line OptionalChaining: within one attempt every uid of the last completed checkpoint has refs
            const base = this.lastCompleted?.keyedRefs.get(uid)?.get(group.keyGroup);
            if (base === undefined)
              throw new Error(
                `key group ${group.keyGroup} of '${uid}' is unchanged, but no completed checkpoint holds it`,
              );
            refs.set(group.keyGroup, base);
            inherited[base.file] = this.lastCompleted!.dataFiles[base.file]!;
          }
          for (const group of snap!.timers) timers.push(data.add(group.keyGroup, group.bytes));
        }
        keyedRefs.set(uid, refs);
        operators[uid] = {
          parallelism: list.length,
          keyedState: [...refs.values()].sort((a, b) => a.keyGroup - b.keyGroup),
          timers,
          operatorState: list.map((s) => s!.operatorState),
          finished: list.map((s) => s!.finished),
        };
      }
    } catch (error) {
      this.fail(pending, (error as Error).message, true);
      return;
    }
    const metadata = {
      checkpointId: id,
      kind,
      timestamp: pending.barrier.timestamp,
      jobName: this.jobName,
      operators,
    };
    const runtime = this.runtime!;
    this.writing++;
    this.writes = this.writes.then(async () => {
      try {
        await write();
      } finally {
        this.writing--;
      }
    });
    const write = async (): Promise<void> => {
      let path: string;
      let bytesWritten = 0;
      for (const chunk of data.bytes) bytesWritten += chunk.byteLength;
      try {
        if (savepointPath !== undefined) {
          mkdirSync(savepointPath, { recursive: true });
          path = (await writeSnapshotDirectory(savepointPath, metadata, data, {})).path;
        } else {
          const written = await this.storage!.writeCheckpoint(metadata, data, inherited);
          path = written.path;
          this.lastCompleted = { id, keyedRefs, dataFiles: written.dataFiles };
          await this.storage!.retain(this.config!.retained);
        }
      } catch (error) {
        this.fail(pending, `could not be written: ${(error as Error).message}`, true);
        return;
      }
      this.consecutiveFailures = 0;
      this.reportSizes(pending, path, bytesWritten);
      this.emit({
        type: 'completed',
        checkpointId: id,
        kind,
        durationMs: Date.now() - pending.started,
        bytesWritten,
        path,
      });
      try {
        if (!runtime.hasFailed) await this.notifyComplete(runtime, id);
        pending.done?.resolve(path);
      } catch (error) {
        runtime.fail(error);
        pending.done?.reject(error);
      }
    };
  }

  /**
   * Tells the attempt checkpoint `id` is durable and waits for its sinks to commit. Across worker threads the wait
   * is bounded by the checkpoint timeout: a thread that hangs (a user function that never returns) would never
   * confirm, and every later checkpoint would wait behind this one for good, so no timeout would ever name it.
   * Instead the attempt fails, naming the threads that did not answer and their subtasks.
   */
  private async notifyComplete(runtime: JobAttempt, id: number): Promise<void> {
    const done = runtime.notifyCheckpointComplete(id);
    if (this.config === undefined || runtime.describeCompletionWaits === undefined) return done;
    const { timeoutMs } = this.config;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CheckpointFailureError(
              `Job '${this.jobName}': checkpoint ${id} is durable, but its commit was not confirmed within ${timeoutMs} ms by ${runtime.describeCompletionWaits!(id) ?? 'every thread'}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([done, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private fail(pending: PendingCheckpoint, reason: string, counts: boolean): void {
    clearTimeout(pending.timer);
    this.pending.delete(pending.barrier.id);
    const { id, kind } = pending.barrier;
    // A checkpoint is pending only once triggered on an attached attempt.
    this.runtime!.abortCheckpoint(id);
    this.stats.reportFailed(id, Date.now(), reason);
    this.emit({ type: 'failed', checkpointId: id, kind, reason });
    pending.done?.reject(
      new WeirError(`${kind === 'savepoint' ? 'Savepoint' : 'Checkpoint'} ${id} failed: ${reason}`),
    );
    if (!counts || kind === 'savepoint') return;
    this.consecutiveFailures++;
    // Only checkpoints count, and they are taken only with checkpointing on.
    const tolerable = this.config!.tolerableFailures;
    if (this.consecutiveFailures > tolerable) {
      this.runtime!.fail(
        new CheckpointFailureError(
          `Job '${this.jobName}': ${this.consecutiveFailures} consecutive checkpoint failure(s) exceed the tolerable ${tolerable}; last: checkpoint ${id} ${reason}`,
        ),
      );
    }
  }

  /** Per-operator sizes and the longest alignment, into the stats and each subtask's state-size gauge. */
  private reportSizes(pending: PendingCheckpoint, path: string, bytesWritten: number): void {
    const perOperator: Record<string, number> = {};
    let alignmentNs = 0;
    for (const [subtask, bytes] of pending.sizes) {
      perOperator[subtask.node.uid] = (perOperator[subtask.node.uid] ?? 0) + bytes;
      if (pending.barrier.kind === 'checkpoint') subtask.checkpointedStateSize = bytes;
      alignmentNs = Math.max(alignmentNs, subtask.checkpointAlignmentTime);
    }
    this.stats.reportCompleted(pending.barrier.id, Date.now(), path, {
      total: bytesWritten,
      perOperator,
      alignmentMs: alignmentNs / 1e6,
    });
  }

  private emit(event: CheckpointEvent): void {
    if (event.type === 'failed') {
      this.logger.warn(
        { job: this.jobName, checkpointId: event.checkpointId, kind: event.kind },
        `${event.kind} ${event.checkpointId} of job '${this.jobName}' failed: ${event.reason}`,
      );
    }
    this.config?.listener?.(event);
  }
}

/** The bytes of a subtask's snapshot: keyed state (changed key groups only) and timers. */
function snapshotBytes(snapshot: SubtaskStateSnapshot): number {
  let bytes = 0;
  for (const group of snapshot.keyedState) bytes += group.bytes?.byteLength ?? 0;
  for (const group of snapshot.timers) bytes += group.bytes.byteLength;
  return bytes;
}

/** Names (up to five) subtasks that have not acknowledged, for the timeout message. */
function missingSubtasks(pending: PendingCheckpoint): string {
  const missing: string[] = [];
  for (const [uid, list] of pending.acks)
    list.forEach((s, i) => s === undefined && missing.push(`'${uid}' subtask ${i}`));
  return missing.length <= 5
    ? missing.join(', ')
    : `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more`;
}
