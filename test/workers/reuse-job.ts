// A job run twice in one process with reuseWorkers: for the second run each kept worker imports this module again
// and reads the run's number from the environment variables the main thread handed over. Each worker imports it.
import { resourceLimits, threadId } from 'node:worker_threads';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { Types } from '../../src/core/record-type.ts';

/**
 * Runs the job named after WEIR_REUSE_TEST_RUN, its workers' young generation limited to WEIR_REUSE_TEST_YOUNG_MB
 * when set; resolves (on the main thread) with "run n thread young-generation-limit" per record.
 */
export async function runReuseJob(): Promise<string[]> {
  const run = process.env.WEIR_REUSE_TEST_RUN ?? '?';
  const young = process.env.WEIR_REUSE_TEST_YOUNG_MB;
  const env = StreamExecutionEnvironment.create({
    parallelism: 2,
    workers: 2,
    jobModule: import.meta.url,
    reuseWorkers: true,
    ...(young !== undefined ? { workerResourceLimits: { maxYoungGenerationSizeMb: Number(young) } } : {}),
  });
  return env
    .fromSource(
      GeneratorSource.of(1000, (i) => ({ n: i })),
      undefined,
      'numbers',
    )
    .returns(Types.record({ n: 'number' }))
    .keyBy((r) => r.n % 10)
    .map((r) => `${run} ${r.n} ${threadId} ${resourceLimits.maxYoungGenerationSizeMb}`, 'tag')
    .executeAndCollect(`reuse-${run}`);
}

if (StreamExecutionEnvironment.isJobWorker()) await runReuseJob();
