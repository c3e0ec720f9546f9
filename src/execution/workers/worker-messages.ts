// The messages between the main thread and the workers of a job, and how errors cross between them.
import { JobExecutionError, WeirError, type FailureLocation } from '../../core/errors.ts';
import type { MessagePort } from 'node:worker_threads';
import type { JobLocation } from './job-locator.ts';
import type { CheckpointBarrier } from '../../runtime/checkpoint-barrier.ts';
import type { JobSnapshot } from '../../runtime/job-snapshot.ts';
import type { OperatorMetrics } from '../../runtime/job-runtime.ts';
import type { SubtaskFigures } from '../../runtime/subtask-figures.ts';
import type { SubtaskStateSnapshot } from '../../runtime/subtask-state-snapshot.ts';
import type { PartialMatchQuery, SubtaskPartialMatches } from '../../cep/operator/partial-match-snapshot.ts';

/**
 * The environment defaults a launcher (`weir run -p 2`) set on the main thread that shape the job graph: a worker's
 * environment starts from them too, so the job module builds the same graph there.
 */
export interface WorkerEnvironmentDefaults {
  readonly parallelism?: number;
  readonly maxParallelism?: number;
}

/** What a worker is given when it starts (its `workerData.weirSlot`). */
export interface WorkerSlotData {
  readonly jobModule: string;
  /** Where a job locator found the job, when one did (the worker's locator loads it instead of a plain import). */
  readonly location: JobLocation | undefined;
  readonly jobName: string;
  readonly environmentDefaults: WorkerEnvironmentDefaults;
  /** The main thread's graph, described (the worker checks that it built the same job). */
  readonly fingerprint: string;
  /** This worker's host number (1..workers). */
  readonly host: number;
  readonly workers: number;
  /** A port to every other thread of the job, by host number. */
  readonly ports: Record<number, MessagePort>;
  readonly restoreFrom: JobSnapshot | undefined;
  readonly allowNonRestoredState: boolean;
  readonly checkpointing: boolean;
  readonly maxAlignmentBytes: number | undefined;
  /**
   * Metrics on: the main registry's tick interval and the job scope's variables (job_id, job_name), so the
   * worker's subtasks carry the same scopes and send their figures at the same pace. Undefined: metrics off.
   */
  readonly metrics:
    { readonly intervalMs: number; readonly jobVariables: Record<string, string> } | undefined;
}

/** Main thread → worker. */
export type ToWorker =
  | { readonly type: 'start' }
  | { readonly type: 'trigger'; readonly barrier: CheckpointBarrier }
  | { readonly type: 'abort'; readonly id: number }
  | { readonly type: 'complete'; readonly id: number }
  | { readonly type: 'stop' }
  | { readonly type: 'stop-decision'; readonly stop: boolean }
  | { readonly type: 'cancel'; readonly error: SerializedError }
  | { readonly type: 'close' }
  | {
      readonly type: 'partial-matches';
      readonly request: number;
      readonly uid: string;
      readonly query: PartialMatchQuery;
    };

/** Worker → main thread. */
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly error: SerializedError }
  | {
      readonly type: 'ack';
      readonly uid: string;
      readonly index: number;
      readonly barrier: CheckpointBarrier;
      readonly snapshot: SubtaskStateSnapshot;
      readonly alignmentNs: number;
    }
  | {
      readonly type: 'declined';
      readonly uid: string;
      readonly index: number;
      readonly id: number;
      readonly reason: string;
    }
  | { readonly type: 'sources-done' }
  | { readonly type: 'finished' }
  | { readonly type: 'completed'; readonly id: number; readonly error?: SerializedError }
  | {
      readonly type: 'partial-matches';
      readonly request: number;
      readonly subtasks: SubtaskPartialMatches[];
    }
  | {
      /** After every metrics tick: the live figures of the worker's subtasks, by operator uid. */
      readonly type: 'figures';
      readonly nodes: readonly { readonly uid: string; readonly figures: readonly SubtaskFigures[] }[];
    }
  | {
      readonly type: 'closed';
      readonly metrics: OperatorMetrics[];
      readonly error?: SerializedError;
    };

/** An error as it crosses threads: its class name, message, stack, and for a failed operator where it failed. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly location?: FailureLocation;
  readonly causeMessage?: string;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof JobExecutionError) {
    const cause = error.cause;
    return {
      name: error.name,
      message: error.message,
      stack: error.stack,
      location: { ...error.location },
      causeMessage: cause instanceof Error ? cause.message : String(cause),
    };
  }
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error), stack: undefined };
}

/** Rebuilds an error from another thread: a JobExecutionError keeps its location (operator, subtask, record). */
export function deserializeError(error: SerializedError): Error {
  if (error.location !== undefined) {
    const cause = new Error(error.causeMessage ?? error.message);
    if (error.stack !== undefined) cause.stack = error.stack;
    return new JobExecutionError(error.location, cause);
  }
  const rebuilt = new WeirError(error.message);
  rebuilt.name = error.name;
  if (error.stack !== undefined) rebuilt.stack = error.stack;
  return rebuilt;
}

/** Describes a graph so two threads can check they built the same job: nodes, uids, parallelism, edges. */
export function graphFingerprint(graph: {
  nodes: readonly {
    uid: string;
    name: string;
    parallelism: number;
    maxParallelism: number;
    inputs: readonly { source: { uid: string }; partitioning: { kind: string }; inputIndex: number }[];
  }[];
}): string {
  return graph.nodes
    .map(
      (n) =>
        `${n.uid} '${n.name}' p=${n.parallelism}/${n.maxParallelism} <- [${n.inputs
          .map((e) => `${e.source.uid}:${e.partitioning.kind}:${e.inputIndex}`)
          .join(', ')}]`,
    )
    .join('\n');
}
