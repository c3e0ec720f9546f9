// A job on 2 worker threads whose source runs on the main thread (`Source.runsOnMainThread`, as the Kafka source):
// its readers are created only there, its records cross to the workers' map and keyed sum, and a main-thread sink
// receives the sums. Each worker imports this module.
import { isMainThread } from 'node:worker_threads';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import type { Source } from '../../src/core/source.ts';

export const COUNT = 50_000;
export const KEYS = 7;

const generator = GeneratorSource.of(COUNT, (i) => i, { batchSize: 1_000 });
let readersHere = 0;
const numbers: Source<number, unknown> = {
  boundedness: generator.boundedness,
  runsOnMainThread: true,
  createEnumerator: (context) => generator.createEnumerator(context),
  createReader: (context) => {
    if (!isMainThread) throw new Error('a reader of a main-thread source was created in a worker');
    readersHere++;
    return generator.createReader(context);
  },
};

const received: { key: number; sum: number }[] = [];
const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: 2, jobModule: import.meta.url });
env
  .fromSource(numbers, undefined, 'numbers')
  .map((i) => {
    if (isMainThread) throw new Error('the map after a main-thread source ran on the main thread');
    return { key: i % KEYS, sum: i };
  }, 'tag')
  .keyBy((r) => r.key)
  .reduce((a, b) => ({ key: a.key, sum: a.sum + b.sum }), 'sum')
  .sinkTo({ runsOnMainThread: true, createWriter: () => ({ write: (r) => void received.push(r) }) });

/** On the main thread the job's result; in a worker this import never settles. */
export const job = await env.execute('main-thread-source');
/** The running sums the sink received, and how many readers the source created on this thread. */
export const result = { received, readers: readersHere };
