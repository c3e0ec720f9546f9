// A job run as its own process in worker mode: the crash job, plus what a mode adds (a dying worker, a record that
// cannot cross threads or does not fit its declared type, a cancel, a stop with a savepoint inspected through the CLI). Every worker imports this module
// again, as a user's job module is: the CLI's import included.
// Arguments: outDir checkpointDir count workers mode [savepoint to resume from, mode 'resume'].
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
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

const [outDir, checkpointDir, count, workers, mode, savepoint] = process.argv.slice(2);
const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: Number(workers) });
env.enableCheckpointing(40, { storage: checkpointDir!, retained: 2 });
env.setRestartStrategy(RestartStrategies.fixedDelay(2, 0));
// Throttled when a worker is to exit or the job to be stopped, so that the run is still going when that happens.
const rates: Record<string, number> = { exit: 4_000, stop: 1_000 };
await buildCrashJob(env, outDir!, Number(count), rates[mode!]);

/** Whether a checkpoint has completed (its metadata is written last). */
const checkpointCompleted = (): boolean =>
  existsSync(checkpointDir!) &&
  readdirSync(checkpointDir!).some(
    (name) => name.startsWith('chk-') && existsSync(join(checkpointDir!, name, '_metadata')),
  );

/** Creates the marker exclusively, so that exactly one worker thread exits even when both pass the cue at once. */
const claimExit = (marker: string): boolean => {
  try {
    writeFileSync(marker, 'exited', { flag: 'wx' });
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
    }),
    undefined,
    'probe',
  );
if (mode === 'exit') {
  // A worker thread ends abruptly once, past a third of the input and after a checkpoint completed, so the restart
  // restores one (the marker file says it happened).
  const marker = join(outDir!, 'worker-exited');
  transactions()
    .setParallelism(2)
    .uid('probe')
    .map((t) => {
      if (
        t.id >= Math.floor(Number(count) / 3) &&
        StreamExecutionEnvironment.isJobWorker() &&
        !existsSync(marker) &&
        checkpointCompleted() &&
        claimExit(marker)
      ) {
        process.exit(9);
      }
      return t;
    })
    .uid('exit-on-cue')
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

if (mode === 'cancel') {
  const client = await env.executeAsync('worker-job');
  // Observable progress first: a savepoint every thread took part in.
  await client.triggerSavepoint(join(outDir!, 'savepoints'));
  await client.cancel();
  await client.result.catch((error: Error) => process.stdout.write(`CANCELLED ${error.name}\n`));
} else if (mode === 'stop') {
  const client = await env.executeAsync('worker-job');
  // Observable progress first: a savepoint every thread took part in; then the stop, mid-input (throttled).
  await client.triggerSavepoint(join(outDir!, 'savepoints'));
  const path = await client.stopWithSavepoint(join(outDir!, 'savepoints'));
  const result = await client.result;
  process.stdout.write(`STOPPED ${path} ${String(result.stoppedWithSavepoint === path)}\n`);
  const printed: string[] = [];
  const print = (line: string): void => void printed.push(line);
  const code = await runWeirCli(['savepoint', 'inspect', path], {
    out: print,
    err: print,
    terminal: process.stderr,
  });
  process.stdout.write(`INSPECTED ${code} ${printed.join(' | ')}\n`);
} else {
  try {
    const result = await env.execute(
      'worker-job',
      savepoint !== undefined ? { savepointPath: savepoint } : {},
    );
    process.stdout.write(`DONE ${JSON.stringify(result.metrics.map((m) => [m.name, m.recordsIn]))}\n`);
  } catch (error) {
    process.stdout.write(`FAILED ${(error as Error).message}\n`);
  }
}
