// Environment defaults: settings a launcher (the `weir run` command) gives every environment the job creates.
import type { ClusterOptions } from '../execution/cluster/cluster-options.ts';
import type { JobClient } from '../execution/job-client.ts';
import type { JobExecutionResult } from '../execution/job-execution-result.ts';
import type { EnvironmentOptions, ExecuteOptions } from './stream-execution-environment.ts';

/** What a launcher sets: environment options and execute options, applied under what the job sets itself. */
export interface EnvironmentDefaults {
  readonly environment?: EnvironmentOptions;
  readonly execute?: ExecuteOptions;
  /** Called with every job an environment starts (the launcher follows its progress and prints its end). */
  readonly onJobStart?: (client: JobClient) => void;
  /**
   * Called when `execute()` has started its job and begins to wait for its end: the point where Flink's
   * `execute()` returns in detached mode (`weir run --detached` returns there).
   */
  readonly onExecuteWaits?: (client: JobClient) => void;
  /**
   * Called when `execute()` starts a job in cluster mode (which has no {@link JobClient}): `result` settles when
   * this process has left the job's group.
   */
  readonly onClusterJob?: (
    jobName: string,
    cluster: ClusterOptions,
    result: Promise<JobExecutionResult>,
  ) => void;
}

// Kept on globalThis under a registered symbol: a job file that imports Weir through another path (the package
// name instead of the launcher's relative path) still sees the launcher's defaults.
const KEY = Symbol.for('weir.environmentDefaults');

/**
 * Sets the defaults every environment created from now on starts from (Flink: the CLI's `-p`, `-s`, … reach the
 * job through its context environment). Settings made in the job's code win over them.
 *
 * @example
 * setEnvironmentDefaults({ environment: { parallelism: 4 }, execute: { webUi: { port: 8081 } } });
 * await import(jobFile);
 */
export function setEnvironmentDefaults(defaults: EnvironmentDefaults | undefined): void {
  (globalThis as Record<symbol, unknown>)[KEY] = defaults;
}

/** The defaults in force (empty when none were set). */
export function environmentDefaults(): EnvironmentDefaults {
  return ((globalThis as Record<symbol, unknown>)[KEY] as EnvironmentDefaults | undefined) ?? {};
}
