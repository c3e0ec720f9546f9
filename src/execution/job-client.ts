// JobClient: a handle on a job started with executeAsync: its result, savepoints on request, cancellation.
import type { JobExecutionResult } from './job-execution-result.ts';
import type { JobControl } from './fault-tolerant-execution.ts';
import type { JobStatus, RunningJob } from './running-job.ts';

/**
 * Returned by `env.executeAsync(name)`, as Flink's JobClient.
 *
 * @example
 * const client = await env.executeAsync('orders');
 * const path = await client.triggerSavepoint('/savepoints');
 * await client.cancel();
 * await client.result.catch(() => {}); // rejects with JobCancelledError
 */
export class JobClient {
  /** @internal Made by `executeAsync`. */
  constructor(
    readonly jobName: string,
    /** Resolves when the job finished, rejects when it failed (after restarts) or was cancelled. */
    readonly result: Promise<JobExecutionResult>,
    private readonly control: JobControl,
    /** @internal The execution's live status, metrics and history. */
    readonly running: RunningJob,
    /** The dashboard's address when the job was started with `webUi`. */
    readonly webUiUrl: string | undefined = undefined,
    private readonly closeServer: (() => Promise<void>) | undefined = undefined,
  ) {
    result.catch(() => {});
  }

  /** The job's id (32 hex digits, as Flink's JobID): the REST API and the CLI name the job by it. */
  get jobId(): string {
    return this.running.id;
  }

  /** The job's status now (Flink's JobStatus). */
  getJobStatus(): JobStatus {
    return this.running.status;
  }

  /** Takes a savepoint into a new directory under `dir`; resolves with its path once it is durable. */
  triggerSavepoint(dir: string): Promise<string> {
    return this.control.triggerSavepoint(dir);
  }

  /**
   * Stops the job with a savepoint, as Flink's `stopWithSavepoint` without draining: every source emits the
   * savepoint's barrier and stops right after it (no end of input, no final watermark), the savepoint completes
   * (exactly-once sinks commit what it covers), then the job finishes and `result` resolves. Resolves with the
   * savepoint's path. If the savepoint fails, the job goes on running and this rejects.
   *
   * @example
   * const path = await client.stopWithSavepoint('/savepoints');
   * // later: await env.execute('orders', { savepointPath: path });
   */
  async stopWithSavepoint(dir: string): Promise<string> {
    const path = await this.control.stopWithSavepoint(dir);
    await this.result;
    return path;
  }

  /**
   * Closes the job's web UI now, closing its open connections: a server kept alive after the job ended
   * (`webUi.keepAlive`) stops serving the final state, as on SIGINT; one the job still runs on stops early.
   * Resolves once it no longer listens; does nothing without a web UI.
   *
   * @example
   * const client = await env.executeAsync('orders', { webUi: { port: 8081, keepAlive: true } });
   * await client.result; // the dashboard still shows the finished job
   * await client.closeWebUi();
   */
  async closeWebUi(): Promise<void> {
    await this.closeServer?.();
  }

  /** Cancels the job (no final checkpoint: exactly-once sinks keep only what earlier checkpoints committed). */
  async cancel(): Promise<void> {
    this.control.cancel();
    await this.result.catch(() => {});
  }
}
