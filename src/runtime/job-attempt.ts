// JobAttempt: one attempt at running a job, on one thread (JobRuntime) or across worker threads.
import type { StreamGraph, StreamNode } from '../graph/stream-graph.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { OperatorMetrics } from './job-runtime.ts';
import type { PartialMatchQuery, SubtaskPartialMatches } from '../cep/operator/partial-match-snapshot.ts';
import type { SubtaskFigures } from './subtask-figures.ts';

/** A subtask as the checkpoint coordinator sees it: which one, and its checkpoint figures. */
export interface SubtaskRef {
  readonly node: StreamNode;
  readonly index: number;
  /** Bytes this subtask contributed to the last completed checkpoint. */
  checkpointedStateSize: number;
  /** Nanoseconds its last barrier alignment took. */
  readonly checkpointAlignmentTime: number;
}

/**
 * What fault-tolerant execution and the checkpoint coordinator drive. Life cycle: `open`, `runSources` (until
 * every subtask finished, or failure), `close`, `disposeBackends`.
 */
export interface JobAttempt {
  readonly graph: StreamGraph;
  readonly restoredCheckpointId: number | undefined;
  readonly hasFailed: boolean;
  readonly failureCause: unknown;
  /**
   * Milliseconds `open` waited, after opening this thread's subtasks, for worker threads to start, load the job
   * and open theirs (0 on one thread).
   */
  readonly workerStartupMs: number;
  open(): Promise<void>;
  runSources(): Promise<void>;
  close(): Promise<void>;
  disposeBackends(): void;
  fail(error: unknown): void;
  cancel(reason: unknown): void;
  triggerCheckpoint(barrier: CheckpointBarrier): void;
  abortCheckpoint(checkpointId: number): void;
  notifyCheckpointComplete(checkpointId: number): Promise<void>;
  /**
   * Across worker threads: the threads that have not yet confirmed checkpoint `checkpointId` complete (their sinks
   * committed), each with the subtasks it runs, or undefined when none is missing. Absent on one thread, where a
   * commit that does not end is the sink's own await rather than a thread that stopped answering.
   */
  describeCompletionWaits?(checkpointId: number): string | undefined;
  stopSourcesAfterBarriers(decision: Promise<boolean>): void;
  describeWaits(): string[];
  metrics(): OperatorMetrics[];
  releaseMetrics(): void;
  /**
   * The live figures of a node's subtasks, by subtask index: this thread's read now, a worker thread's as of its
   * last metrics tick (none yet before its first).
   */
  subtaskFigures(node: StreamNode): SubtaskFigures[];
  /** A CEP node's live partial matches per key, from every thread that runs its subtasks, by subtask index. */
  partialMatches(node: StreamNode, query: PartialMatchQuery): Promise<SubtaskPartialMatches[]>;
}
