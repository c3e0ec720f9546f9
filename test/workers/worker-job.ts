// A job run as its own process in worker mode: the crash job, plus what a mode adds (a worker thread that exits,
// throws outside any operator, is terminated or hangs; a record that cannot cross threads or does not fit its
// declared type; a cancel; a stop with a savepoint inspected through the CLI). Every worker imports this module
// again, as a user's job module is: the CLI's import included.
// Arguments: outDir checkpointDir count workers mode [savepoint to resume from, mode 'resume'].
import { startedWorkers, workerThreadCount } from './started-workers.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { Types, type RecordType } from '../../src/core/record-type.ts';
import type { Sink } from '../../src/core/sink.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import type { DataStream } from '../../src/api/data-stream.ts';
import { buildCrashJob } from '../crash/crash-job.ts';
import { runWeirCli } from '../../src/cli/weir-cli.ts';
import type { Tx } from '../crash/crash-job.ts';
import type { JobClient } from '../../src/execution/job-client.ts';
import { waitFor } from '../support/wait-for.ts';

const [outDir, checkpointDir, count, workers, mode, savepoint] = process.argv.slice(2);
mkdirSync(outDir!, { recursive: true });
const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: Number(workers) });
// A hung worker thread never acknowledges a checkpoint: the checkpoint times out, which fails the attempt.
env.enableCheckpointing(40, {
  storage: checkpointDir!,
  retained: 2,
  ...(mode === 'hang' ? { timeoutMs: 3_000 } : {}),
});
env.setRestartStrategy(RestartStrategies.fixedDelay(2, 0));
// Throttled when a worker is to die or the job to be stopped, so that the run is still going when that happens.
const rates: Record<string, number> = { exit: 4_000, throw: 4_000, terminate: 4_000, stop: 1_000 };
// Hanging, the job is the probe alone: its checkpoint timeout then names every subtask it waited for.
if (mode !== 'hang') await buildCrashJob(env, outDir!, Number(count), rates[mode!]);

/** Whether a checkpoint has completed (its metadata is written last). */
const checkpointCompleted = (): boolean =>
  existsSync(checkpointDir!) &&
  readdirSync(checkpointDir!).some(
    (name) => name.startsWith('chk-') && existsSync(join(checkpointDir!, name, '_metadata')),
  );

/** Creates the marker exclusively, so that exactly one worker thread dies even when both pass the cue at once. */
const claim = (marker: string, text: string): boolean => {
  try {
    writeFileSync(marker, text, { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
};

const discard: Sink<unknown> = { createWriter: () => ({ write() {} }) };
const transactions = (): DataStream<Tx> =>
  env.fromSource(
    GeneratorSource.of(Number(count), (i): Tx => ({ id: i, card: `card-${i % 7}`, amount: i, ts: i }), {
      batchSize: 200,
      // Throttled when a worker thread dies on cue: the probe is still running after a checkpoint completed.
      ...(die[mode!] !== undefined ? { ratePerSecond: 4_000 } : {}),
    }),
    undefined,
    'probe',
  );

/** How a worker thread dies on cue in each fault mode (terminate: the main thread ends it, see below). */
const die: Record<string, (() => void) | undefined> = {
  exit: () => process.exit(9),
  // Outside any operator call: an error the runtime cannot catch, which ends the thread.
  throw: () =>
    setImmediate(() => {
      throw new Error('thrown on cue outside any operator');
    }),
  // Blocks the thread for good (until it is terminated): no record, message or timer runs on it again.
  hang: () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0),
};
if (die[mode!] !== undefined) {
  // One worker thread dies once, past a third of the input and after a checkpoint completed, so the restart
  // restores one; the marker file says it happened, and which subtask did it.
  const marker = join(outDir!, 'worker-died');
  transactions()
    .setParallelism(2)
    .uid('probe')
    .process<Tx, { subtask: number }>(
      {
        subtask: -1,
        open(ctx) {
          this.subtask = ctx.subtaskIndex;
        },
        processElement(t, _ctx, out) {
          if (
            t.id >= Math.floor(Number(count) / 3) &&
            StreamExecutionEnvironment.isJobWorker() &&
            !existsSync(marker) &&
            checkpointCompleted() &&
            claim(marker, `subtask ${this.subtask}`)
          ) {
            die[mode!]!();
          }
          out.collect(t);
        },
      },
      'die-on-cue',
    )
    .uid('die-on-cue')
    .sinkTo(discard)
    .uid('probe-sink');
} else if (mode === 'unserializable') {
  transactions()
    .setParallelism(2)
    .map((t) => ({ id: t.id, details: { card: t.card, recheck: () => t.amount > 10 } }), 'with-callback')
    .rebalance()
    .map((t) => t.id, 'after-rebalance')
    .sinkTo(discard);
} else if (mode === 'mistyped') {
  // Declares amounts as numbers, but every 1,000th transaction holds its amount as text.
  transactions()
    .setParallelism(2)
    .map((t) => (t.id % 1000 === 999 ? { ...t, amount: String(t.amount) } : t), 'amounts')
    .returns(Types.record({ id: 'number', card: 'string', amount: 'number', ts: 'number' }) as RecordType<Tx>)
    .rebalance()
    .map((t) => t.id, 'after-rebalance')
    .sinkTo(discard);
}

/** The job's result, then whether a worker thread outlived it (a live worker also keeps the process from exiting). */
const report = (line: string): void => void process.stdout.write(`${line}\nTHREADS ${workerThreadCount()}\n`);

if (mode === 'cancel') {
  const client = await env.executeAsync('worker-job');
  // Observable progress first: a savepoint every thread took part in.
  await client.triggerSavepoint(join(outDir!, 'savepoints'));
  await client.cancel();
  await client.result.catch((error: Error) => report(`CANCELLED ${error.name}`));
} else if (mode === 'stop') {
  const client = await env.executeAsync('worker-job');
  // Observable progress first: a savepoint every thread took part in; then the stop, mid-input (throttled).
  await client.triggerSavepoint(join(outDir!, 'savepoints'));
  const path = await client.stopWithSavepoint(join(outDir!, 'savepoints'));
  const result = await client.result;
  report(`STOPPED ${path} ${String(result.stoppedWithSavepoint === path)}`);
  const printed: string[] = [];
  const print = (line: string): void => void printed.push(line);
  const code = await runWeirCli(['savepoint', 'inspect', path], {
    out: print,
    err: print,
    terminal: process.stderr,
  });
  process.stdout.write(`INSPECTED ${code} ${printed.join(' | ')}\n`);
} else {
  const client = await env.executeAsync(
    'worker-job',
    savepoint !== undefined ? { savepointPath: savepoint } : {},
  );
  if (mode === 'terminate') void terminateOnCue(client);
  try {
    const result = await client.result;
    report(`DONE ${JSON.stringify(result.metrics.map((m) => [m.name, m.recordsIn]))}`);
  } catch (error) {
    report(`FAILED ${(error as Error).message}`);
  }
}

/** Once a checkpoint completed, the main thread terminates the first attempt's second worker thread. */
async function terminateOnCue(client: JobClient): Promise<void> {
  await waitFor('a completed checkpoint', checkpointCompleted, 60_000);
  assert.equal(client.running.status, 'RUNNING', 'the job ran until a checkpoint completed');
  assert.equal(client.running.numRestarts, 0);
  writeFileSync(join(outDir!, 'worker-died'), 'terminated');
  await startedWorkers.all[1]!.terminate();
}
