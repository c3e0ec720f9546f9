// A bounded job on two worker threads with metrics off: what the main thread knows of its subtasks. Every worker
// imports this module again.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';

/** The records the source emits, over its two subtasks. */
export const COUNT = 1_000;

const env = StreamExecutionEnvironment.create({
  parallelism: 2,
  workers: 2,
  jobModule: import.meta.url,
  metrics: false,
});
env
  .fromSource(
    GeneratorSource.of(COUNT, (i) => i),
    undefined,
    'numbers',
  )
  .map((n) => n * 2)
  .name('double')
  .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');

/** On the main thread the running job; in a worker this import never settles. */
export const client = await env.executeAsync('metrics-off');
