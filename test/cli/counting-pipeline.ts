// The job the `weir run` tests submit: numbers counted per residue mod 3, every running count printed.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';

/**
 * A fresh environment whose job counts `count` numbers (Infinity: unbounded) at `rate` per second (0: unlimited)
 * and prints `<residue> <count>` for each, prefixed by `label` and a space when given.
 */
export function countingJob(count: number, rate: number, label?: string): StreamExecutionEnvironment {
  const prefix = label === undefined ? '' : `${label} `;
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
    .map((c) => `${prefix}${c.residue} ${c.count}`)
    .print();
  return env;
}
