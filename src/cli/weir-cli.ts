#!/usr/bin/env node
// The `weir` command line: runs job files and talks to running jobs through their REST API (Flink's CLI verbs).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { weirVersion } from '../core/weir-version.ts';
import { runDetached } from './detached-run.ts';
import { RestClient } from './rest-client.ts';
import { runJobFile, type RunSettings } from './run-command.ts';
import { inspectSavepoint } from './savepoint-inspect.ts';

const USAGE = `usage:
  weir run [options] <job.ts|job.js> [job arguments...]
                                  run a job file (a module that builds a job and calls env.execute()); the
                                  options are the defaults of every environment it creates (its code wins)
      -p, --parallelism N         default parallelism
      --workers N|auto            run the job's subtasks on N worker threads (auto: one per core), capped by
                                  the parallelism; the job file is imported again in each worker
      --checkpoint-dir D          checkpoint into D (every --checkpoint-interval ms, default 10000)
      -s, --from-savepoint P      start from a savepoint, a chk-<id> directory or a checkpoint directory
      -n, --allow-non-restored-state
                                  ignore state of operators the job no longer has
      --web-ui PORT               serve the REST API and the dashboard on PORT (0: any free port), one server
                                  for every job the file starts
      --web-ui-host H             bind to H (default 127.0.0.1; any other address needs --web-ui-token)
      --web-ui-token T            the token savepoint, stop and cancel requests must carry
      --keep-ui                   keep serving the REST API and the dashboard after the job ended (its final
                                  status, metrics, checkpoints and exceptions) until interrupted (Ctrl-C)
      -d, --detached              run the job file in a background process: print each job it starts and
                                  the REST address, and return once the file's code returned or waits in
                                  execute() (the REST API is on, --web-ui 8081 unless given)
      --log-file F                where a detached job's output goes (default: a new file in the temp directory)
      --cluster BOOTSTRAP         run the job in cluster mode (docs/scale-out.md) as one of the processes sharing
                                  its tasks through the Kafka brokers host:port[,host:port...] (default
                                  $WEIR_CLUSTER): start the same file with the same --job-id as many times as
                                  wanted; it runs until SIGTERM or SIGINT, which hand its tasks to the others
      --job-id J                  the job's id in cluster mode, the same in every process (default $WEIR_JOB_ID):
                                  names its consumer group, topics and transactional ids ([A-Za-z0-9._-])
      --standby-replicas N        in cluster mode, keep warm copies of the tasks of N other processes in local
                                  stores (default 0; needs a state backend with stores on disk, LmdbStateBackend)
  weir list                       list the jobs of a REST endpoint
  weir savepoint <job> <dir>      take a savepoint of a running job under <dir>
  weir stop <job> --savepoint D   stop a running job with a savepoint under D (-p D, --savepoint-dir D)
  weir cancel <job>               cancel a running job
      <job> is a job id or a job name; these four talk to the REST API given by
      -a, --address URL           (default $WEIR_ADDRESS or http://127.0.0.1:8081)
      --token T                   (default $WEIR_TOKEN) sent as Authorization: Bearer T
  weir savepoint inspect <path>   summarise a savepoint, a chk-<id> directory, or a checkpoint storage directory
                                  (its newest usable checkpoint); verifies every checksum
  weir --help, -h                 print this help
  weir --version, -v              print the version of weir
exit codes: 0 success; 1 the job failed or was cancelled, or the command failed; 2 bad usage (with --keep-ui,
  weir run exits with its job's code once interrupted)`;

/** Where the command writes: `out` for results, `err` for status and errors, `terminal` for a progress line. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
  readonly terminal: { write(text: string): unknown; isTTY?: boolean };
}

const STANDARD_OUTPUT: CliOutput = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  terminal: process.stderr,
};

/** A usage error: printed with the usage, exit code 2. */
class UsageError extends Error {}

const REST_OPTIONS = {
  address: { type: 'string', short: 'a' },
  token: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const RUN_OPTIONS = {
  parallelism: { type: 'string', short: 'p' },
  workers: { type: 'string' },
  'checkpoint-dir': { type: 'string' },
  'checkpoint-interval': { type: 'string' },
  'from-savepoint': { type: 'string', short: 's' },
  'allow-non-restored-state': { type: 'boolean', short: 'n' },
  'web-ui': { type: 'string' },
  'web-ui-host': { type: 'string' },
  'web-ui-token': { type: 'string' },
  'keep-ui': { type: 'boolean' },
  detached: { type: 'boolean', short: 'd' },
  'log-file': { type: 'string' },
  cluster: { type: 'string' },
  'job-id': { type: 'string' },
  'standby-replicas': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(`--${name} must be an integer >= ${min}, got '${text}'`);
  return n;
}

/**
 * Splits `weir run`'s arguments at the job file: options before it are Weir's, everything after it the job's
 * (as `flink run [OPTIONS] <jar> <arguments>`).
 */
function runSettings(args: readonly string[]): RunSettings {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    const name = args[i]!.replace(/^-+/, '').split('=')[0]!;
    const option = Object.entries(RUN_OPTIONS).find(
      ([long, o]) => long === name || ('short' in o && o.short === name),
    );
    i += option !== undefined && option[1].type === 'string' && !args[i]!.includes('=') ? 2 : 1;
  }
  const { values, positionals } = parse(args.slice(0, i), RUN_OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const jobFile = args[i];
  if (jobFile === undefined) throw new UsageError('weir run needs a job file');
  const port = integer('web-ui', values['web-ui'], 0);
  if (port === undefined && (values['web-ui-host'] !== undefined || values['web-ui-token'] !== undefined)) {
    throw new UsageError('--web-ui-host and --web-ui-token need --web-ui PORT');
  }
  const detached = values.detached === true;
  const keepUi = values['keep-ui'] === true;
  if (keepUi && port === undefined && !detached) throw new UsageError('--keep-ui needs --web-ui PORT');
  if (!detached && values['log-file'] !== undefined) throw new UsageError('--log-file needs --detached');
  const cluster = clusterSettings(values);
  return {
    jobFile,
    jobArgs: args.slice(i + 1),
    parallelism: integer('parallelism', values.parallelism, 1),
    workers: workers(values.workers),
    detached,
    logFile: values['log-file'],
    checkpointDir: values['checkpoint-dir'],
    checkpointIntervalMs: integer('checkpoint-interval', values['checkpoint-interval'], 1) ?? 10_000,
    fromSavepoint: values['from-savepoint'],
    allowNonRestoredState: values['allow-non-restored-state'] === true,
    keepUi,
    ...(cluster === undefined ? {} : { cluster }),
    webUi:
      port === undefined
        ? undefined
        : {
            port,
            ...(values['web-ui-host'] !== undefined ? { host: values['web-ui-host'] } : {}),
            ...(values['web-ui-token'] !== undefined ? { token: values['web-ui-token'] } : {}),
            ...(keepUi ? { keepAlive: true } : {}),
          },
  };
}

/** A broker address: host:port, the host a name, an IPv4 address or an IPv6 address in brackets. */
const BROKER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;
/** What the job id may hold: it becomes part of Kafka topic names, a consumer group and transactional ids. */
const JOB_ID = /^[A-Za-z0-9._-]{1,200}$/;

/** The options `weir run --cluster` runs with (undefined without one), checked; the options it excludes refused. */
function clusterSettings(values: {
  cluster?: string;
  'job-id'?: string;
  'standby-replicas'?: string;
  [option: string]: unknown;
}):
  | { readonly bootstrapServers: string; readonly jobId: string; readonly standbyReplicas?: number }
  | undefined {
  const fromEnv = (name: string): string | undefined =>
    process.env[name] === undefined || process.env[name] === '' ? undefined : process.env[name];
  const bootstrap = values.cluster ?? fromEnv('WEIR_CLUSTER');
  const jobId = values['job-id'] ?? fromEnv('WEIR_JOB_ID');
  const bootstrapOption = values.cluster !== undefined ? '--cluster' : '--cluster ($WEIR_CLUSTER)';
  const jobIdOption = values['job-id'] !== undefined ? '--job-id' : '--job-id ($WEIR_JOB_ID)';
  if (bootstrap === undefined) {
    if (jobId !== undefined) throw new UsageError(`${jobIdOption} needs --cluster BOOTSTRAP`);
    if (values['standby-replicas'] !== undefined)
      throw new UsageError('--standby-replicas needs --cluster BOOTSTRAP');
    return undefined;
  }
  const brokers = bootstrap.split(',');
  const bad = brokers.find((broker) => {
    const m = BROKER.exec(broker.trim());
    return m === null || Number(m[2]) < 1 || Number(m[2]) > 65_535;
  });
  if (bad !== undefined)
    throw new UsageError(
      `${bootstrapOption} needs the Kafka brokers as host:port[,host:port...], got '${bootstrap}'` +
        (bootstrap === '' ? '' : ` ('${bad}' is not host:port)`),
    );
  if (jobId === undefined)
    throw new UsageError(
      `${bootstrapOption} needs --job-id J (or $WEIR_JOB_ID), the same in every process of the job`,
    );
  if (!JOB_ID.test(jobId))
    throw new UsageError(
      `${jobIdOption} must be 1 to 200 letters, digits, '.', '_' or '-' (it names Kafka topics), got '${jobId}'`,
    );
  for (const option of [
    'workers',
    'checkpoint-dir',
    'from-savepoint',
    'allow-non-restored-state',
    'web-ui',
    'keep-ui',
    'detached',
  ])
    if (values[option] !== undefined)
      throw new UsageError(
        `--${option} cannot be used with ${bootstrapOption}: in cluster mode a process runs its tasks on its ` +
          `own thread, and its state lives in Kafka (changelog topics), not in checkpoints`,
      );
  const standbyReplicas = integer('standby-replicas', values['standby-replicas'], 0);
  return {
    bootstrapServers: brokers.map((b) => b.trim()).join(','),
    jobId,
    ...(standbyReplicas !== undefined ? { standbyReplicas } : {}),
  };
}

function workers(text: string | undefined): number | 'auto' | undefined {
  if (text === 'auto') return 'auto';
  const n = Number(text);
  if (text !== undefined && !(Number.isSafeInteger(n) && n >= 1)) {
    throw new UsageError(`--workers must be an integer >= 1 or 'auto', got '${text}'`);
  }
  return text === undefined ? undefined : n;
}

function restClient(values: { address?: string; token?: string }): RestClient {
  return new RestClient(
    values.address ?? process.env.WEIR_ADDRESS ?? 'http://127.0.0.1:8081',
    values.token ?? process.env.WEIR_TOKEN,
  );
}

function oneJob(positionals: string[], verb: string, more = 0): string {
  if (positionals.length !== 1 + more) {
    throw new UsageError(
      `weir ${verb} needs ${more === 0 ? 'a job id or name' : 'a job id or name and a directory'}`,
    );
  }
  return positionals[0]!;
}

async function command(verb: string, args: readonly string[], output: CliOutput): Promise<number> {
  switch (verb) {
    case 'run': {
      const settings = runSettings(args);
      if (settings.detached) return runDetached(settings, output);
      return runJobFile(settings, { line: output.err, terminal: output.terminal });
    }
    case 'list': {
      const { values, positionals } = parse(args, REST_OPTIONS);
      if (positionals.length > 0)
        throw new UsageError(`weir list takes no arguments, got '${positionals[0]}'`);
      const jobs = await restClient(values).jobs();
      if (jobs.length === 0) output.out('No jobs.');
      for (const job of jobs) {
        output.out(`${new Date(job['start-time']).toISOString()} : ${job.jid} : ${job.name} (${job.state})`);
      }
      return 0;
    }
    case 'savepoint': {
      if (args[0] === 'inspect') {
        const { positionals } = parse(args.slice(1), {});
        if (positionals.length !== 1) throw new UsageError('weir savepoint inspect needs one path');
        return inspectSavepoint(positionals[0]!, output.out, output.err);
      }
      const { values, positionals } = parse(args, REST_OPTIONS);
      const job = oneJob(positionals, 'savepoint', 1);
      const client = restClient(values);
      const jid = await client.resolve(job);
      output.err(`Triggering savepoint for job ${jid}.`);
      const path = await client.savepoint(jid, positionals[1]!, false);
      output.out(`Savepoint completed. Path: ${path}`);
      return 0;
    }
    case 'stop': {
      const { values, positionals } = parse(args, {
        ...REST_OPTIONS,
        savepoint: { type: 'string', short: 'p' },
        'savepoint-dir': { type: 'string' },
      });
      const job = oneJob(positionals, 'stop');
      const dir = values.savepoint ?? values['savepoint-dir'];
      if (dir === undefined) throw new UsageError('weir stop needs --savepoint <dir>');
      const client = restClient(values);
      const jid = await client.resolve(job);
      output.err(`Suspending job ${jid} with a savepoint.`);
      const path = await client.savepoint(jid, dir, true);
      output.out(`Savepoint completed. Path: ${path}`);
      return 0;
    }
    case 'cancel': {
      const { values, positionals } = parse(args, REST_OPTIONS);
      const client = restClient(values);
      const jid = await client.resolve(oneJob(positionals, 'cancel'));
      await client.cancel(jid);
      output.out(`Cancelled job ${jid}.`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command '${[verb, ...args].join(' ')}'`);
  }
}

/**
 * Runs the CLI with `argv` (without node and script); resolves with the exit code.
 *
 * @example
 * process.exitCode = await runWeirCli(['stop', 'orders', '--savepoint', './savepoints']);
 */
export async function runWeirCli(
  argv: readonly string[],
  output: CliOutput = STANDARD_OUTPUT,
): Promise<number> {
  const verb = argv[0];
  try {
    if (verb === undefined || verb.startsWith('-')) {
      const { values, positionals } = parse(argv, {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      });
      if (values.help === true) {
        output.out(USAGE);
        return 0;
      }
      if (values.version === true) {
        output.out(weirVersion());
        return 0;
      }
      throw new UsageError(
        positionals.length === 0 ? 'no command given' : `unknown command '${positionals.join(' ')}'`,
      );
    }
    return await command(verb, argv.slice(1), output);
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`weir: ${error.message}`);
      output.err(USAGE);
      return 2;
    }
    output.err(`weir: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

// A worker thread's process.argv[1] is not a file ('[worker eval]'): a job module that imports the CLI loads in
// its workers too, where the CLI is never the entry point.
const invokedDirectly =
  isMainThread &&
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) process.exitCode = await runWeirCli(process.argv.slice(2));
