// A job file for `weir run` tests: counts numbers per residue mod 3 and prints every running count.
//   weir run [options] test/cli/counting-job.ts <count> <records per second, 0: unlimited>
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';

const [count, rate] = process.argv.slice(2).map(Number);
const env = StreamExecutionEnvironment.create();
env
  .fromSource(
    GeneratorSource.of(count!, (n) => n, rate! > 0 ? { ratePerSecond: rate!, batchSize: 10 } : {}),
    // Watermarks (every 100 numbers) also make print() flush its buffered lines as the job goes.
    WatermarkStrategy.forMonotonousTimestamps<number>().withTimestampAssigner((n) => n),
    'numbers',
  )
  .uid('numbers')
  .map((n) => ({ residue: n % 3, count: 1 }))
  .keyBy((c) => c.residue)
  .reduce((a, b) => ({ residue: a.residue, count: a.count + b.count }))
  .uid('counts')
  .map((c) => `${c.residue} ${c.count}`)
  .print();
await env.execute('cli-counting');
