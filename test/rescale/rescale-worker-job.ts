// The rescale job as its own process in worker mode: takes a savepoint mid-stream, or restores one at a parallelism.
// Every worker imports this module again, as a user's job module is.
// Arguments: mode (savepoint | restore) source (files:DIR | generator:COUNT) records windows parallelism workers
// path (the savepoint directory to write into, or the savepoint to restore) progressAt.
import { existsSync, writeFileSync } from 'node:fs';
import { FileSource, GeneratorSource, StreamExecutionEnvironment, type Source } from '../../src/index.ts';
import { waitFor } from '../support/wait-for.ts';
import { buildJob, event, type Ev } from './rescale-job.ts';

const [mode, input, records, windows, parallelism, workers, path, progressAt] = process.argv.slice(2);
const [kind, arg] = input!.split(/:(.*)/s) as [string, string];
const restoring = mode === 'restore';

/** Rate-limited while the savepoint is to be taken, so that it falls mid-stream; a restored run reads at full speed. */
const source: Source<Ev> =
  kind === 'files'
    ? FileSource.jsonLines<Ev>(arg, { batchSize: 100 })
    : GeneratorSource.of(Number(arg), event, restoring ? {} : { ratePerSecond: 6_000, batchSize: 100 });

// A thread whose map subtasks saw `progressAt` records says so with a marker file; the main thread then takes the
// savepoint, so it is taken once the job is running on every thread, not on a timer.
const marker = `${records}.progress`;
let seen = 0;
const onRecord = (): void => {
  if (++seen !== Number(progressAt)) return;
  try {
    writeFileSync(marker, 'reached', { flag: 'wx' });
  } catch {
    // Another thread got there first.
  }
};

const env = StreamExecutionEnvironment.create({ parallelism: Number(parallelism), workers: Number(workers) });
env.enableCheckpointing(1_000_000, { storage: `${records}.checkpoints` });
buildJob(env, source, { records: records!, windows: windows! }, restoring ? undefined : onRecord);

const name = 'rescale-worker-job';
if (StreamExecutionEnvironment.isJobWorker()) {
  // A worker runs its share; the main thread owns the savepoint and the cancel.
  await env.execute(name).catch(() => {});
} else if (restoring) {
  await env.execute(name, { savepointPath: path! });
  process.stdout.write('DONE\n');
} else {
  const client = await env.executeAsync(name);
  await waitFor('a thread to have seen the first records', () => existsSync(marker), 120_000);
  const savepoint = await client.triggerSavepoint(path!);
  await client.cancel().catch(() => {});
  await client.result.catch(() => {});
  process.stdout.write(`SAVEPOINT ${savepoint}\n`);
}
