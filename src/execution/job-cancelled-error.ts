// JobCancelledError: what a job's result rejects with after JobClient.cancel().
import { WeirError } from '../core/errors.ts';

/**
 * The job was cancelled on request (Flink: the job ends in state CANCELED). Nothing after the last completed
 * checkpoint is committed by exactly-once sinks.
 *
 * @example
 * client.result.catch((e) => { if (!(e instanceof JobCancelledError)) throw e; });
 */
export class JobCancelledError extends WeirError {
  constructor(jobName: string) {
    super(`Job '${jobName}' was cancelled`);
  }
}
