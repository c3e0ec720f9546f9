// A job file for `weir run` tests that runs two jobs, each counting numbers per residue mod 3:
//   weir run [options] test/cli/two-jobs.ts together   both unbounded, started with executeAsync (the file returns)
//   weir run [options] test/cli/two-jobs.ts in-turn    'cli-first' counts 300 numbers, then 'cli-second' runs
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';

/** A fresh environment whose job counts `count` numbers at `rate` per second and prints `<name> <residue> <count>`. */
function countingJob(name: string, count: number, rate: number): StreamExecutionEnvironment {
  const env = StreamExecutionEnvironment.create();
  env
    .fromSource(
      GeneratorSource.of(count, (n) => n, rate > 0 ? { ratePerSecond: rate, batchSize: 10 } : {}),
      // Watermarks (every 100 numbers) also make print() flush its buffered lines as the job goes.
      WatermarkStrategy.forMonotonousTimestamps<number>().withTimestampAssigner((n) => n),
      'numbers',
    )
    .uid('numbers')
    .map((n) => ({ residue: n % 3, count: 1 }))
    .keyBy((c) => c.residue)
    .reduce((a, b) => ({ residue: a.residue, count: a.count + b.count }))
    .uid('counts')
    .map((c) => `${name} ${c.residue} ${c.count}`)
    .print();
  return env;
}

const mode = process.argv[2];
if (mode === 'together') {
  await countingJob('cli-first', Infinity, 1_000).executeAsync('cli-first');
  await countingJob('cli-second', Infinity, 1_000).executeAsync('cli-second');
} else if (mode === 'in-turn') {
  await countingJob('cli-first', 300, 0).execute('cli-first');
  await countingJob('cli-second', Infinity, 1_000).execute('cli-second');
} else {
  throw new Error(`two-jobs.ts: the mode must be 'together' or 'in-turn', got '${mode}'`);
}
