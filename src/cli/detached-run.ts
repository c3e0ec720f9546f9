// `weir run --detached`: starts the job in a background process and returns once it runs, with its id and address.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunSettings } from './run-command.ts';

/** What the background process tells the launcher when one of its jobs started (over the IPC channel). */
export interface DetachedJobStarted {
  readonly type: 'weir-job-started';
  readonly jobId: string;
  readonly jobName: string;
  readonly webUiUrl: string | undefined;
}

/**
 * What the background process tells the launcher over the IPC channel: each job that started, then that the job
 * file's top level returned or waits in `execute()` (where Flink's detached `execute()` returns).
 */
export type DetachedRunMessage = DetachedJobStarted | { readonly type: 'weir-jobs-submitted' };

/** Set in the background process's environment: announce its jobs on the IPC channel. */
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
 * `settings.logFile` (default: a new file in the temporary directory), and returns as `flink run -d` does once the
 * job file's main code returned: when its top level ended or waits in `execute()` for a job to end. Prints each
 * job the file started until then (id and REST address, as it starts), then the process; resolves 0. Jobs the
 * file starts later are not printed here (its log file names them) and join the same REST address. If the
 * process ends before that, prints its output and resolves 1. The REST API is always on (default port 8081), so
 * that `weir list`, `savepoint`, `stop` and `cancel` can reach every job of the run.
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
  let jobs = 0;
  const addresses = new Set<string>();
  const outcome = await new Promise<{ submitted: true } | { exitCode: number | null; error?: Error }>(
    (settle) => {
      child.on('message', (message: DetachedRunMessage) => {
        if (message.type === 'weir-jobs-submitted') settle({ submitted: true });
        if (message.type !== 'weir-job-started') return;
        jobs++;
        output.out(`Job '${message.jobName}' submitted with JobID ${message.jobId}`);
        // Jobs of one run share its REST address: it is printed once.
        if (message.webUiUrl !== undefined && !addresses.has(message.webUiUrl)) {
          addresses.add(message.webUiUrl);
          output.out(`Dashboard and REST API: ${message.webUiUrl}`);
        }
      });
      child.on('exit', (exitCode) => settle({ exitCode }));
      child.on('error', (error) => settle({ exitCode: null, error }));
    },
  );
  if (!('submitted' in outcome)) {
    const lines = readFileSync(logFile, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (const line of lines) output.err(line);
    const ended =
      outcome.error !== undefined
        ? `could not start (${outcome.error.message})`
        : `exited with code ${outcome.exitCode}`;
    output.err(
      `weir run: the background process ${ended} ${jobs === 0 ? 'before a job started' : 'while its job file was starting jobs'}; its output is in ${logFile}`,
    );
    return 1;
  }
  child.removeAllListeners();
  child.disconnect();
  child.unref();
  output.out(`Running in the background as process ${child.pid}; its output goes to ${logFile}`);
  return 0;
}
