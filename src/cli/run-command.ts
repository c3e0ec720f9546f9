// `weir run`: runs a job file with the launcher's settings, reports its start, progress and end.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setEnvironmentDefaults } from '../api/environment-defaults.ts';
import type { EnvironmentOptions, ExecuteOptions } from '../api/stream-execution-environment.ts';
import type { JobClient } from '../execution/job-client.ts';
import type { WebServer } from '../web/web-server.ts';
import { ANNOUNCE_ENV, type DetachedRunMessage } from './detached-run.ts';
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
  /** Cluster mode (`--cluster`, `--job-id`, `--standby-replicas`): every environment of the file runs as one process of this job. */
  readonly cluster?: {
    readonly bootstrapServers: string;
    readonly jobId: string;
    readonly standbyReplicas?: number;
  };
}

/** Where `weir run` writes its own lines (the job's output, e.g. print(), goes to standard output as usual). */
export interface RunOutput {
  line(text: string): void;
  /** The stream progress is drawn on when it is a terminal. */
  readonly terminal: { write(text: string): unknown; isTTY?: boolean };
}

/**
 * Runs `settings.jobFile` (a module that builds its job and executes it, as a Flink main method) with the
 * settings as the defaults of every environment it creates; the job's own settings win. With `settings.webUi`,
 * one server is held open for the whole run: every job the file starts joins it (on the port the first got when
 * `--web-ui 0`), so one address lists them all, finished ones included, until the run ends.
 * Resolves with the exit code: 0 when every job it started finished (or stopped with a savepoint), 1 otherwise.
 */
export async function runJobFile(settings: RunSettings, output: RunOutput): Promise<number> {
  const launcher = launcherChannel();
  const path = isAbsolute(settings.jobFile) ? settings.jobFile : resolve(settings.jobFile);
  let web: WebServer | undefined;
  if (settings.webUi !== undefined) {
    try {
      web = await (await import('../web/web-server.ts')).WebServer.hold(settings.webUi);
    } catch (error) {
      output.line(
        `weir run: the web UI cannot start on port ${settings.webUi.port}: ${describeError(error)}`,
      );
      return 1;
    }
  }
  try {
    return await runJobs(settings, path, web, launcher, output);
  } finally {
    setEnvironmentDefaults(undefined);
    // Closes the server once clients collected their savepoint results; with --keep-ui it serves the final
    // state until SIGINT.
    await web?.release();
  }
}

async function runJobs(
  settings: RunSettings,
  path: string,
  web: WebServer | undefined,
  launcher: LauncherChannel | undefined,
  output: RunOutput,
): Promise<number> {
  /** The jobs started so far, each with its end: its end line printed, whether it failed. */
  const started: { client: JobClient | undefined; failed: Promise<boolean> }[] = [];
  const environment: EnvironmentOptions = {
    ...(settings.parallelism !== undefined ? { parallelism: settings.parallelism } : {}),
    // Each worker imports the job file again to build its share of the job.
    ...(settings.workers !== undefined
      ? { workers: settings.workers, jobModule: pathToFileURL(path).href }
      : {}),
    ...(settings.checkpointDir !== undefined
      ? { checkpointing: { intervalMs: settings.checkpointIntervalMs, storage: settings.checkpointDir } }
      : {}),
    ...(settings.cluster !== undefined ? { cluster: settings.cluster } : {}),
  };
  const execute: ExecuteOptions = {
    ...(settings.fromSavepoint !== undefined ? { savepointPath: settings.fromSavepoint } : {}),
    ...(settings.allowNonRestoredState ? { allowNonRestoredState: true } : {}),
    // The held server's own port, so that with --web-ui 0 later jobs join it rather than take other ports.
    ...(settings.webUi !== undefined && web !== undefined
      ? { webUi: { ...settings.webUi, port: web.port } }
      : {}),
  };
  setEnvironmentDefaults({
    environment,
    execute,
    onJobStart: (client) => {
      output.line(`Job '${client.jobName}' submitted with JobID ${client.jobId}`);
      if (client.webUiUrl !== undefined) output.line(`Dashboard and REST API: ${client.webUiUrl}`);
      const progress = new JobProgress(client, output.terminal);
      progress.start();
      // Each job's end is printed when it ends, whatever the order the file started its jobs in.
      const failed = client.result.then(
        (result) => {
          progress.stop();
          output.line(
            result.stoppedWithSavepoint !== undefined
              ? `Job '${client.jobName}' (${client.jobId}) stopped with savepoint ${result.stoppedWithSavepoint}`
              : `Job '${client.jobName}' (${client.jobId}) finished in ${result.netRuntimeMs} ms`,
          );
          return false;
        },
        (error: unknown) => {
          progress.stop();
          output.line(
            `Job '${client.jobName}' (${client.jobId}) ${client.getJobStatus()}: ${describeError(error)}`,
          );
          return true;
        },
      );
      started.push({ client, failed });
      launcher?.jobStarted(client);
    },
    onClusterJob: (jobName, cluster, result) => {
      output.line(
        `Job '${jobName}' runs as a process of cluster job '${cluster.jobId}' on ${cluster.bootstrapServers} ` +
          'until SIGTERM or SIGINT (which hand its tasks to the other processes)',
      );
      const failed = result.then(
        () => {
          output.line(`Job '${jobName}' left cluster job '${cluster.jobId}'`);
          return false;
        },
        (error: unknown) => {
          output.line(`Job '${jobName}' of cluster job '${cluster.jobId}' failed: ${describeError(error)}`);
          return true;
        },
      );
      started.push({ client: undefined, failed });
    },
    onExecuteWaits: () => launcher?.jobsSubmitted(),
  });
  const argv = process.argv;
  process.argv = [argv[0]!, path, ...settings.jobArgs];
  try {
    await importJob(path);
  } catch (error) {
    // A job's failure reaches here when the file awaits execute(); its end line already reported it.
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
  launcher?.jobsSubmitted();
  const code = (await Promise.all(started.map(({ failed }) => failed))).includes(true) ? 1 : 0;
  if (settings.keepUi) {
    // Jobs on one port share a server: name each address once.
    for (const url of new Set(started.flatMap(({ client }) => client?.webUiUrl ?? []))) {
      output.line(`Dashboard and REST API still served at ${url} until interrupted (Ctrl-C)`);
    }
  }
  return code;
}

/** In the background process of `weir run --detached`: what the launcher is told over the IPC channel. */
interface LauncherChannel {
  /** A job started: the launcher prints its id and address. */
  jobStarted(client: JobClient): void;
  /**
   * The job file's top level returned, or waits in `execute()` for a job to end: every job it starts without
   * waiting for another has started, and the launcher returns. Said once; later jobs are not announced.
   */
  jobsSubmitted(): void;
}

/**
 * The channel to the launcher of `weir run --detached`, in its background process only. Taken out of the
 * environment, so that processes the job starts do not inherit it.
 */
function launcherChannel(): LauncherChannel | undefined {
  if (process.env[ANNOUNCE_ENV] !== '1' || process.send === undefined) return undefined;
  delete process.env[ANNOUNCE_ENV];
  let open = true;
  const send = (message: DetachedRunMessage): void => {
    // A launcher interrupted while it waited has gone: the job runs on regardless.
    if (open && process.connected) process.send!(message);
  };
  return {
    jobStarted: (client) =>
      send({
        type: 'weir-job-started',
        jobId: client.jobId,
        jobName: client.jobName,
        webUiUrl: client.webUiUrl,
      }),
    jobsSubmitted: () => {
      send({ type: 'weir-jobs-submitted' });
      open = false;
    },
  };
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
