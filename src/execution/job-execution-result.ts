// JobExecutionResult: what a finished job reports (name, run time, records in and out per operator).
import type { OperatorMetrics } from '../runtime/job-runtime.ts';

/** What `execute()` resolves to. */
export interface JobExecutionResult {
  readonly jobName: string;
  /** Wall-clock run time in milliseconds. */
  readonly netRuntimeMs: number;
  /**
   * Of `netRuntimeMs`, the milliseconds spent starting worker threads and loading the job in them (every attempt;
   * 0 when the job runs on one thread). Flink's net runtime leaves out the start of its cluster in the same way.
   */
  readonly workerStartupMs: number;
  /** Records in and out per operator. */
  readonly metrics: OperatorMetrics[];
  /** The savepoint the job was stopped with (`stopWithSavepoint`, `savepointOnSigterm`), if it was. */
  readonly stoppedWithSavepoint?: string;
}
