// A job module that cannot take up its share in a worker thread. Its URL's query says how: `mode=throws` (the module
// throws while it loads in a worker) or `mode=no-execute` (it finishes loading there without calling execute());
// `marker` names a file that gets a line each time a worker loads the module. On the main thread it runs the job with
// a restart strategy that would restart it three times.
import { appendFileSync } from 'node:fs';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';

const query = new URL(import.meta.url).searchParams;
const inWorker = StreamExecutionEnvironment.isJobWorker();
if (inWorker) {
  appendFileSync(query.get('marker')!, 'loaded\n');
  if (query.get('mode') === 'throws') throw new Error('the orders table does not exist');
}

const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: 2, jobModule: import.meta.url });
env.setRestartStrategy(RestartStrategies.fixedDelay(3, 10));
env
  .fromElements(1, 2, 3)
  .map((n) => n * 2)
  .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');

if (!inWorker) await env.execute('unloadable');
