// `weir run`: runs a job file with the launcher's settings, reports its start, progress and end.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setEnvironmentDefaults } from '../api/environment-defaults.ts';
import type { EnvironmentOptions, ExecuteOptions } from '../api/stream-execution-environment.ts';
import type { JobClient } from '../execution/job-client.ts';
import { ANNOUNCE_ENV, type DetachedJobStarted } from './detached-run.ts';
import { JobProgress } from './job-progress.ts';

/** What `weir run` was asked for (validated). */
export interface RunSettings {
  readonly jobFile: string;
  /** Arguments after the job file: the job sees them as `process.argv.slice(2)`. */
  readonly jobArgs: readonly string[];
  readonly parallelism?: number;
  /** Worker threads for the job's subtasks (`--workers`): a number, or `'auto'` for one per core. */
  readonly workers?: number | 'auto';
  readonly checkpointDir?: string;
  readonly checkpointIntervalMs: number;
  readonly fromSavepoint?: string;
  readonly allowNonRestoredState: boolean;
  readonly webUi?: {
    readonly port: number;
    readonly host?: string;
    readonly token?: string;
    readonly keepAlive?: boolean;
  };
  /** Keep the web UI serving after the jobs ended, until SIGINT (`--keep-ui`). */
  readonly keepUi: boolean;
  /** Run in a background process (`--detached`) and return once the job started. */
  readonly detached: boolean;
  /** Where a detached run's output goes (`--log-file`). */
  readonly logFile?: string;
}

/** Where `weir run` writes its own lines (the job's output, e.g. print(), goes to standard output as usual). */
export interface RunOutput {
  line(text: string): void;
  /** The stream progress is drawn on when it is a terminal. */
  readonly terminal: { write(text: string): unknown; isTTY?: boolean };
}

/**
 * Runs `settings.jobFile` (a module that builds its job on an environment and executes it, as a Flink main
 * method) with the settings as the defaults of every environment it creates; the job's own settings win.
 * Resolves with the exit code: 0 when every job it started finished (or stopped with a savepoint), 1 otherwise.
 */
export async function runJobFile(settings: RunSettings, output: RunOutput): Promise<number> {
  const started: { client: JobClient; progress: JobProgress }[] = [];
  const path = isAbsolute(settings.jobFile) ? settings.jobFile : resolve(settings.jobFile);
  const environment: EnvironmentOptions = {
    ...(settings.parallelism !== undefined ? { parallelism: settings.parallelism } : {}),
    // Each worker imports the job file again to build its share of the job.
    ...(settings.workers !== undefined
      ? { workers: settings.workers, jobModule: pathToFileURL(path).href }
      : {}),
    ...(settings.checkpointDir !== undefined
      ? { checkpointing: { intervalMs: settings.checkpointIntervalMs, storage: settings.checkpointDir } }
      : {}),
  };
  const execute: ExecuteOptions = {
    ...(settings.fromSavepoint !== undefined ? { savepointPath: settings.fromSavepoint } : {}),
    ...(settings.allowNonRestoredState ? { allowNonRestoredState: true } : {}),
    ...(settings.webUi !== undefined ? { webUi: settings.webUi } : {}),
  };
  setEnvironmentDefaults({
    environment,
    execute,
    onJobStart: (client) => {
      output.line(`Job '${client.jobName}' submitted with JobID ${client.jobId}`);
      if (client.webUiUrl !== undefined) output.line(`Dashboard and REST API: ${client.webUiUrl}`);
      const progress = new JobProgress(client, output.terminal);
      progress.start();
      started.push({ client, progress });
      const end = (): void => progress.stop();
      client.result.then(end, end);
      announceToLauncher(client);
    },
  });
  const argv = process.argv;
  process.argv = [argv[0]!, path, ...settings.jobArgs];
  let code = 0;
  try {
    await importJob(path);
  } catch (error) {
    // A job's failure reaches here when the file awaits execute(); it is reported with its job below.
    if (started.length === 0) {
      output.line(`weir run: ${path}: ${describeError(error)}`);
      return 1;
    }
  } finally {
    process.argv = argv;
  }
  if (started.length === 0) {
    output.line(`weir run: ${path} started no job (does it call env.execute()?)`);
    return 1;
  }
  for (const { client } of started) {
    try {
      const result = await client.result;
      output.line(
        result.stoppedWithSavepoint !== undefined
          ? `Job '${client.jobName}' (${client.jobId}) stopped with savepoint ${result.stoppedWithSavepoint}`
          : `Job '${client.jobName}' (${client.jobId}) finished in ${result.netRuntimeMs} ms`,
      );
    } catch (error) {
      output.line(
        `Job '${client.jobName}' (${client.jobId}) ${client.getJobStatus()}: ${describeError(error)}`,
      );
      code = 1;
    }
  }
  setEnvironmentDefaults(undefined);
  if (settings.keepUi) {
    // Jobs on one port share a kept server: name each address once.
    for (const url of new Set(started.flatMap(({ client }) => client.webUiUrl ?? []))) {
      output.line(`Dashboard and REST API still served at ${url} until interrupted (Ctrl-C)`);
    }
  }
  return code;
}

/**
 * In the background process of `weir run --detached`, tells the launcher (over the IPC channel) that the first
 * job started, so it can print the job's id and address and return.
 */
function announceToLauncher(client: JobClient): void {
  if (process.env[ANNOUNCE_ENV] !== '1' || process.send === undefined) return;
  delete process.env[ANNOUNCE_ENV];
  const started: DetachedJobStarted = {
    type: 'weir-job-started',
    jobId: client.jobId,
    jobName: client.jobName,
    webUiUrl: client.webUiUrl,
  };
  process.send(started);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Imports the job module. A TypeScript file on a Node that cannot load it itself is loaded through tsx, found
 * from the job's folder or Weir's (it is not one of Weir's dependencies).
 */
async function importJob(path: string): Promise<void> {
  const url = pathToFileURL(path).href;
  try {
    await import(url);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
    let register: () => unknown;
    try {
      ({ register } = (await import('tsx/esm/api')) as { register: () => unknown });
    } catch {
      throw new Error(
        `cannot load a TypeScript job on Node ${process.versions.node}: install tsx (npm install -D tsx), use Node >= 22.18, or compile the job to JavaScript`,
        { cause: error },
      );
    }
    register();
    await import(url);
  }
}
