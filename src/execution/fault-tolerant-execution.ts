// Fault-tolerant execution: runs a job with checkpoints, restarts it from the latest checkpoint after a failure.
import { defaultLogger, type Logger } from '../core/logger.ts';
import type { JobExecutionResult } from './job-execution-result.ts';
import type { StreamGraph } from '../graph/stream-graph.ts';
import { JobLoadError, JobStalledError, WeirError } from '../core/errors.ts';
import { JobRuntime, type JobRuntimeOptions } from '../runtime/job-runtime.ts';
import type { JobAttempt } from '../runtime/job-attempt.ts';
import { ThreadedJobRuntime, type WorkerSettings } from './workers/threaded-job-runtime.ts';
import { watchForStall } from '../runtime/stall-watch.ts';
import type { JobSnapshot } from '../runtime/job-snapshot.ts';
import type { ProcessingTimeClock } from '../core/clock.ts';
import type { CheckpointConfig } from './checkpoint-config.ts';
import { CheckpointCoordinator } from './checkpoint-coordinator.ts';
import { loadLatestCheckpoint } from './checkpoint-storage.ts';
import { JobCancelledError } from './job-cancelled-error.ts';
import type { RestartStrategy } from './restart-strategies.ts';
import type { StateBackend } from '../state/state-backend.ts';
import { RunningJob } from './running-job.ts';

/** Everything one fault-tolerant execution needs. */
export interface FaultTolerantJob {
  readonly jobName: string;
  readonly graph: StreamGraph;
  readonly clock: ProcessingTimeClock;
  readonly checkpoints: CheckpointConfig | undefined;
  readonly restartStrategy: RestartStrategy;
  readonly stateBackend: StateBackend | undefined;
  readonly restoreFrom: JobSnapshot | undefined;
  readonly allowNonRestoredState: boolean;
  /** Where restarts, checkpoint fallbacks and failed checkpoints are logged (default: stderr). */
  readonly logger?: Logger;
  /** The execution's status, metrics and history (created here when not given). */
  readonly running?: RunningJob;
  /** Worker mode: each attempt runs on these worker threads (otherwise on this thread). */
  readonly threads?: WorkerSettings;
}

/** The live controls of a running execution (what JobClient calls). */
export interface JobControl {
  triggerSavepoint(dir: string): Promise<string>;
  /** Takes a savepoint, then stops the sources right after it; resolves with its path once it is durable. */
  stopWithSavepoint(dir: string): Promise<string>;
  cancel(): void;
}

/**
 * Starts a job; returns its control and its result. Each attempt builds a fresh JobRuntime from the same graph
 * (new operator instances, new state backends) restored from the latest completed checkpoint, so sources replay
 * from their recorded positions and two-phase-commit sinks discard what no checkpoint covered.
 */
export function startFaultTolerantJob(job: FaultTolerantJob): {
  control: JobControl;
  result: Promise<JobExecutionResult>;
  running: RunningJob;
} {
  const logger = job.logger ?? defaultLogger();
  const running = job.running ?? new RunningJob(job.jobName, job.graph);
  const coordinator = new CheckpointCoordinator(job.checkpoints, job.jobName, logger, running.checkpoints);
  let runtime: JobAttempt | undefined = undefined;
  let cancelled = false;
  /** Set once a stop-with-savepoint completed its savepoint: the job then ends without a final checkpoint. */
  let stopped: string | undefined = undefined;
  /** Ends the wait before a restart early (the job was cancelled meanwhile). */
  let endRestartDelay: (() => void) | undefined = undefined;
  const control: JobControl = {
    triggerSavepoint: (dir) => coordinator.triggerSavepoint(dir),
    stopWithSavepoint: async (dir) => {
      const current = runtime;
      if (current === undefined || current.hasFailed || cancelled) {
        throw new WeirError(`Job '${job.jobName}' is not running; cannot stop it with a savepoint`);
      }
      const savepoint = coordinator.triggerSavepoint(dir);
      current.stopSourcesAfterBarriers(
        savepoint.then(
          (path) => ((stopped = path), true),
          // Stryker disable next-line ArrowFunction: the decision is only tested for truth, and undefined is false
          () => false,
        ),
      );
      return savepoint;
    },
    cancel: () => {
      cancelled = true;
      runtime?.cancel(new JobCancelledError(job.jobName));
      endRestartDelay?.();
    },
  };
  running.control = control;
  const run = async (): Promise<JobExecutionResult> => {
    const started = Date.now();
    let workerStartupMs = 0;
    let restoreFrom = job.restoreFrom;
    for (let attempt = 1; ; attempt++) {
      job.stateBackend?.newRun?.();
      const options: JobRuntimeOptions = {
        clock: job.clock,
        restoreFrom,
        allowNonRestoredState: job.allowNonRestoredState,
        logger,
        ...(job.stateBackend !== undefined ? { stateBackend: job.stateBackend } : {}),
        checkpointing: job.checkpoints !== undefined,
        onSubtaskSnapshot: coordinator.onSubtaskSnapshot,
        onCheckpointDeclined: coordinator.onCheckpointDeclined,
        metrics: running.metrics,
      };
      let threaded: ThreadedJobRuntime | undefined;
      try {
        threaded =
          job.threads !== undefined ? new ThreadedJobRuntime(job.graph, options, job.threads) : undefined;
        runtime = threaded ?? new JobRuntime(job.graph, options);
      } catch (error) {
        // The attempt cannot be built (a snapshot that does not fit the job): the job fails for good, as another
        // attempt would be built from the same snapshot.
        running.failureCause = running.recordException(error, attempt);
        running.end('FAILED');
        throw error;
      }
      coordinator.attach(runtime);
      running.runtime = threaded?.local ?? (runtime as JobRuntime);
      running.attempt = runtime;
      const restoredId = runtime.restoredCheckpointId;
      if (restoredId !== undefined) running.checkpoints.reportRestored(restoredId, Date.now(), undefined);
      const current = runtime;
      const unwatch = watchForStall(() => {
        const error = new JobStalledError(
          [...current.describeWaits(), ...coordinator.describePending()],
          `Job '${job.jobName}' has nothing left to run but is not finished`,
        );
        current.fail(error);
        coordinator.abortPending(error.message);
      });
      let failure: unknown = undefined;
      try {
        if (cancelled || stopped !== undefined) throw new JobCancelledError(job.jobName);
        try {
          await runtime.open();
        } finally {
          workerStartupMs += runtime.workerStartupMs;
        }
        running.status = 'RUNNING';
        coordinator.start();
        await runtime.runSources();
        coordinator.stop();
        // After a stop-with-savepoint the savepoint is the job's last word: a final checkpoint would commit
        // output a restore from the savepoint produces again.
        if (stopped === undefined) await coordinator.triggerFinal();
      } catch (error) {
        failure = runtime.hasFailed ? runtime.failureCause : error;
      } finally {
        unwatch();
      }
      await coordinator.drain();
      try {
        await runtime.close();
      } catch (error) {
        failure ??= error;
      }
      runtime.disposeBackends();
      if (failure === undefined) {
        running.end('FINISHED');
        return {
          jobName: job.jobName,
          netRuntimeMs: Date.now() - started,
          workerStartupMs,
          metrics: runtime.metrics(),
          ...(stopped !== undefined ? { stoppedWithSavepoint: stopped } : {}),
        };
      }
      if (cancelled || failure instanceof JobCancelledError) {
        running.end('CANCELED');
        throw new JobCancelledError(job.jobName);
      }
      const entry = running.recordException(failure, attempt);
      if (stopped !== undefined) {
        running.failureCause = entry;
        running.end('FAILED');
        throw failure;
      }
      // A job that cannot be loaded would fail the same way on every attempt: no restart.
      const delay = failure instanceof JobLoadError ? undefined : job.restartStrategy.nextDelay(Date.now());
      if (delay === undefined) {
        running.failureCause = entry;
        running.end('FAILED');
        throw failure;
      }
      running.status = 'RESTARTING';
      running.numRestarts++;
      // The next attempt registers fresh subtasks; a finished job keeps its last counts for the REST API.
      runtime.releaseMetrics();
      const latest =
        job.checkpoints === undefined ? undefined : loadLatestCheckpoint(job.checkpoints.storage, logger);
      if (latest !== undefined) restoreFrom = latest.snapshot;
      logger.warn(
        { job: job.jobName, attempt, delayMs: delay },
        `job '${job.jobName}' failed (${(failure as Error)?.message ?? String(failure)}); restart ${attempt} (${job.restartStrategy.description}) in ${delay} ms from ${latest !== undefined ? `checkpoint ${latest.metadata.checkpointId}` : restoreFrom !== undefined ? 'the initial snapshot' : 'the beginning'}`,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        endRestartDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      endRestartDelay = undefined;
    }
  };
  return { control, result: run(), running };
}
