// JobExecutionResult: what a finished job reports (name, run time, records in and out per operator).
import type { OperatorMetrics } from '../runtime/job-runtime.ts';

/** What `execute()` resolves to. */
export interface JobExecutionResult {
  readonly jobName: string;
  /** Wall-clock run time in milliseconds. */
  readonly netRuntimeMs: number;
  /** Records in and out per operator. */
  readonly metrics: OperatorMetrics[];
  /** The savepoint the job was stopped with (`stopWithSavepoint`, `savepointOnSigterm`), if it was. */
  readonly stoppedWithSavepoint?: string;
}
