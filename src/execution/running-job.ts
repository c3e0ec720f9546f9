// RunningJob: one job execution as operators see it: status, current attempt, restarts, exceptions, checkpoints.
import { randomBytes } from 'node:crypto';
import { JobExecutionError } from '../core/errors.ts';
import type { StreamGraph } from '../graph/stream-graph.ts';
import type { MetricGroupImpl } from '../metrics/metric-group.ts';
import type { MetricRegistry } from '../metrics/metric-registry.ts';
import type { JobRuntime } from '../runtime/job-runtime.ts';
import type { JobAttempt } from '../runtime/job-attempt.ts';
import { CheckpointStatsTracker } from './checkpoint-stats-tracker.ts';

/** Flink's JobStatus values a Weir job goes through. */
export type JobStatus = 'INITIALIZING' | 'RUNNING' | 'RESTARTING' | 'FINISHED' | 'FAILED' | 'CANCELED';

/** One failure of the job (Flink's exception history entry). */
export interface ExceptionEntry {
  readonly exceptionName: string;
  /** The message; the record it names is shown as the job's settings allow. */
  readonly message: string;
  readonly stacktrace: string;
  readonly timestamp: number;
  /** The failing operator and subtask, when a record, timer or watermark failed. */
  readonly taskName: string | undefined;
  readonly subtaskIndex: number | undefined;
  /** The failing record as text (truncated), when known and shown. */
  readonly record: string | undefined;
  /** Which attempt failed (1 = the first run). */
  readonly attempt: number;
}

/** How many failures the exception history keeps (newest first). */
export const EXCEPTION_HISTORY_SIZE = 16;

/** The live controls the REST API and the CLI call. */
export interface RunningJobControl {
  triggerSavepoint(dir: string): Promise<string>;
  /** Takes a savepoint, then ends the job as FINISHED (Flink's stop-with-savepoint). */
  stopWithSavepoint(dir: string): Promise<string>;
  cancel(): void;
}

/**
 * The state of one execution, updated by the fault-tolerant execution loop and read by metrics, the REST API and
 * the dashboard. Registers the job-scope metrics (restarts, uptime, checkpoint counts and sizes).
 */
export class RunningJob {
  /** A 32-hex-digit id, as Flink's JobID. */
  readonly id = randomBytes(16).toString('hex');
  status: JobStatus = 'INITIALIZING';
  readonly startTime = Date.now();
  endTime: number | undefined = undefined;
  numRestarts = 0;
  /** The current attempt's runtime (its subtasks carry the live counts). */
  runtime: JobRuntime | undefined = undefined;
  /** The current attempt, on one thread or across workers (asked for what lives on every thread). */
  attempt: JobAttempt | undefined = undefined;
  /** The job's root cause when it failed for good. */
  failureCause: ExceptionEntry | undefined = undefined;
  private readonly exceptions: ExceptionEntry[] = [];
  control: RunningJobControl | undefined = undefined;

  readonly checkpoints = new CheckpointStatsTracker();
  /** The job's registry and job-scope group; undefined when metrics are off. */
  readonly metrics: { readonly registry: MetricRegistry; readonly jobGroup: MetricGroupImpl } | undefined;

  constructor(
    readonly name: string,
    readonly graph: StreamGraph,
    registry: MetricRegistry | undefined = undefined,
  ) {
    if (registry === undefined) {
      this.metrics = undefined;
      return;
    }
    const group = registry.createGroup('job', { job_id: this.id, job_name: name }, [name]);
    this.metrics = { registry, jobGroup: group };
    const stats = this.checkpoints;
    group.gauge('numRestarts', { getValue: () => this.numRestarts });
    group.gauge('uptime', {
      getValue: () => (this.status === 'RUNNING' ? Date.now() - this.startTime : 0),
    });
    group.gauge('numberOfCompletedCheckpoints', { getValue: () => stats.numberOfCompletedCheckpoints });
    group.gauge('numberOfFailedCheckpoints', { getValue: () => stats.numberOfFailedCheckpoints });
    group.gauge('numberOfInProgressCheckpoints', { getValue: () => stats.numberOfInProgressCheckpoints });
    group.gauge('totalNumberOfCheckpoints', { getValue: () => stats.totalNumberOfCheckpoints });
    group.gauge('lastCheckpointDuration', {
      getValue: () => stats.lastCompleted?.endToEndDurationMs ?? -1,
    });
    group.gauge('lastCheckpointSize', { getValue: () => stats.lastCompleted?.stateSize ?? -1 });
    group.gauge('lastCheckpointAlignmentTime', { getValue: () => stats.lastCompleted?.alignmentMs ?? -1 });
    group.gauge('lastCheckpointRestoreTimestamp', { getValue: () => stats.restored?.timestamp ?? -1 });
  }

  /** Newest first. */
  exceptionHistory(): readonly ExceptionEntry[] {
    return this.exceptions;
  }

  /** Records a failure of attempt `attempt`. */
  recordException(error: unknown, attempt: number): ExceptionEntry {
    const location = error instanceof JobExecutionError ? error.location : undefined;
    const entry: ExceptionEntry = {
      exceptionName: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
      stacktrace: error instanceof Error ? (error.stack ?? error.message) : String(error),
      timestamp: Date.now(),
      taskName: location?.operator,
      subtaskIndex: location?.subtask,
      record: location?.record,
      attempt,
    };
    this.exceptions.unshift(entry);
    if (this.exceptions.length > EXCEPTION_HISTORY_SIZE) this.exceptions.length = EXCEPTION_HISTORY_SIZE;
    return entry;
  }

  /** The job ended: its final status. */
  end(status: JobStatus): void {
    this.status = status;
    this.endTime = Date.now();
  }
}
