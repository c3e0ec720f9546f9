// `weir run --detached`: starts the job in a background process and returns once it runs, with its id and address.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunSettings } from './run-command.ts';

/** What the background process tells the launcher once its job started (over the IPC channel). */
export interface DetachedJobStarted {
  readonly type: 'weir-job-started';
  readonly jobId: string;
  readonly jobName: string;
  readonly webUiUrl: string | undefined;
}

/** Set in the background process's environment: announce the first job on the IPC channel. */
export const ANNOUNCE_ENV = 'WEIR_RUN_ANNOUNCE';

/** The port a detached job serves its REST API on when `--web-ui` is not given (Flink's REST port). */
export const DETACHED_DEFAULT_PORT = 8081;

/** Where `weir run --detached` writes its lines: the job's id and address, or why it did not start. */
export interface DetachedOutput {
  out(line: string): void;
  err(line: string): void;
}

/** The `weir run` arguments that run `settings` in the foreground (the background process's command line). */
function foregroundArguments(settings: RunSettings): string[] {
  const args = ['run'];
  if (settings.parallelism !== undefined) args.push('--parallelism', String(settings.parallelism));
  if (settings.workers !== undefined) args.push('--workers', String(settings.workers));
  if (settings.checkpointDir !== undefined) {
    args.push('--checkpoint-dir', settings.checkpointDir);
    args.push('--checkpoint-interval', String(settings.checkpointIntervalMs));
  }
  if (settings.fromSavepoint !== undefined) args.push('--from-savepoint', settings.fromSavepoint);
  if (settings.allowNonRestoredState) args.push('--allow-non-restored-state');
  const webUi = settings.webUi ?? { port: DETACHED_DEFAULT_PORT };
  args.push('--web-ui', String(webUi.port));
  if (webUi.host !== undefined) args.push('--web-ui-host', webUi.host);
  if (webUi.token !== undefined) args.push('--web-ui-token', webUi.token);
  if (settings.keepUi) args.push('--keep-ui');
  args.push(resolve(settings.jobFile), ...settings.jobArgs);
  return args;
}

/** This package's CLI module, in the form this module runs as (TypeScript source or compiled JavaScript). */
function cliModule(): string {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return fileURLToPath(new URL(`./weir-cli.${extension}`, import.meta.url));
}

/**
 * Starts `weir run` (without `--detached`) in a background process of its own session, its output appended to
 * `settings.logFile` (default: a new file in the temporary directory), and waits until its first job started.
 * Prints the job's id, its REST address and the process; resolves 0. If the process ends before a job started,
 * prints its output and resolves 1. The job's REST API is always on (default port 8081), so that `weir list`,
 * `savepoint`, `stop` and `cancel` can reach it.
 */
export async function runDetached(settings: RunSettings, output: DetachedOutput): Promise<number> {
  const logFile = resolve(settings.logFile ?? join(tmpdir(), `weir-run-${Date.now()}-${process.pid}.log`));
  const fd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [...process.execArgv, cliModule(), ...foregroundArguments(settings)],
    {
      detached: true,
      stdio: ['ignore', fd, fd, 'ipc'],
      env: { ...process.env, [ANNOUNCE_ENV]: '1' },
    },
  );
  closeSync(fd);
  const outcome = await new Promise<DetachedJobStarted | { exitCode: number | null; error?: Error }>(
    (settle) => {
      child.on('message', (message: DetachedJobStarted) => {
        if (message.type === 'weir-job-started') settle(message);
      });
      child.on('exit', (exitCode) => settle({ exitCode }));
      child.on('error', (error) => settle({ exitCode: null, error }));
    },
  );
  if (!('jobId' in outcome)) {
    const lines = readFileSync(logFile, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (const line of lines) output.err(line);
    output.err(
      `weir run: the background process ${outcome.error !== undefined ? `could not start (${outcome.error.message})` : `exited with code ${outcome.exitCode}`} before a job started; its output is in ${logFile}`,
    );
    return 1;
  }
  child.removeAllListeners();
  child.disconnect();
  child.unref();
  output.out(`Job '${outcome.jobName}' submitted with JobID ${outcome.jobId}`);
  if (outcome.webUiUrl !== undefined) output.out(`Dashboard and REST API: ${outcome.webUiUrl}`);
  output.out(`Running in the background as process ${child.pid}; its output goes to ${logFile}`);
  return 0;
}
