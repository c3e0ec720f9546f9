// The messages between the main thread and the workers of a job, and how errors cross between them.
import {
  ConfigurationError,
  JobLoadError,
  IllegalStateError,
  JobExecutionError,
  JobStalledError,
  MalformedRecordError,
  WeirError,
  type FailureLocation,
} from '../../core/errors.ts';
import { AsyncTimeoutError } from '../../core/async-timeout-error.ts';
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
  /** The job's watermark alignment slots, in a SharedArrayBuffer (undefined: no source is aligned). */
  readonly watermarkAlignmentSlots: Float64Array | undefined;
  /** The batches polled by each source subtask (SourceTurns.slotsFor), shared by every thread of the job. */
  readonly sourceTurnSlots: Int32Array | undefined;
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
  /** To a worker kept from an earlier job (worker-pool.ts): run this job next, with these environment variables. */
  | { readonly type: 'attach'; readonly slot: WorkerSlotData; readonly env: Record<string, string> }
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
  /** The error's own data fields (a MalformedRecordError's file and line), when they are plain values. */
  readonly fields?: Record<string, unknown>;
  readonly cause?: SerializedError;
}

/**
 * Weir's error classes, by name: an error from a worker is rebuilt as the same class on the main thread, so what
 * a job's result rejects with is the same in worker mode as on one thread (`error.cause instanceof
 * MalformedRecordError`, its file and line), and so is a built-in error class; any other error arrives as a
 * WeirError with the original name.
 */
const ERROR_CLASSES: ReadonlyMap<string, { prototype: Error }> = new Map<string, { prototype: Error }>([
  ['WeirError', WeirError],
  ['ConfigurationError', ConfigurationError],
  ['JobLoadError', JobLoadError],
  ['IllegalStateError', IllegalStateError],
  ['JobExecutionError', JobExecutionError],
  ['JobStalledError', JobStalledError],
  ['MalformedRecordError', MalformedRecordError],
  ['AsyncTimeoutError', AsyncTimeoutError],
  ['Error', Error],
  ['TypeError', TypeError],
  ['RangeError', RangeError],
  ['SyntaxError', SyntaxError],
  ['ReferenceError', ReferenceError],
]);

/** Plain data can cross threads as it is; anything else (a function, a socket) stays behind. */
const isPlain = (value: unknown): boolean =>
  value === null ||
  ['string', 'number', 'boolean', 'undefined'].includes(typeof value) ||
  (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'));

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), stack: undefined };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (key !== 'cause' && key !== 'location' && isPlain(value)) fields[key] = value;
  }
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(error instanceof JobExecutionError ? { location: { ...error.location } } : {}),
    ...(Object.keys(fields).length > 0 ? { fields } : {}),
    ...(error.cause !== undefined ? { cause: serializeError(error.cause) } : {}),
  };
}

/**
 * Rebuilds an error from another thread as its own class when it is one of Weir's (a JobExecutionError keeps its
 * location: operator, subtask, record), with its fields, stack and cause; the constructor is not run again, since
 * the message was already composed where the error was thrown.
 */
export function deserializeError(error: SerializedError): Error {
  const known = ERROR_CLASSES.get(error.name);
  const rebuilt: Error = Object.create((known ?? WeirError).prototype) as Error;
  Object.defineProperty(rebuilt, 'message', { value: error.message, writable: true, configurable: true });
  rebuilt.name = error.name;
  if (error.stack !== undefined) rebuilt.stack = error.stack;
  if (error.location !== undefined) Object.assign(rebuilt, { location: error.location });
  if (error.fields !== undefined) Object.assign(rebuilt, error.fields);
  if (error.cause !== undefined) {
    Object.defineProperty(rebuilt, 'cause', {
      value: deserializeError(error.cause),
      writable: true,
      configurable: true,
    });
  }
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
