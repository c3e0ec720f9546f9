// The Kafka comparison on its own: Weir's and Flink's Kafka -> keyed running total -> Kafka job on one broker.
//
//   npm run bench:kafka -- [--records N] [--runs N] [--warmup N] [--partitions N] [--parallelism N]
//                          [--checkpoint-ms MS] [--guarantee exactly-once,at-least-once] [--no-flink] [--out DIR]
//                          [--latency-records N] [--latency-rate RECORDS_PER_SECOND] [--no-latency]
//
// `npm run bench:kafka` starts a broker for the run (scripts/kafka/with-broker.sh) and stops it after; with a
// broker of your own, set WEIR_KAFKA_BOOTSTRAP and run `node --import tsx bench/kafka/main.ts`. Writes
// bench/results/kafka.{json,md}. Method: docs/performance.md, section "Kafka to Kafka".
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFlink, detectToolchain } from '../runner/flink-runner.ts';
import { parseKafkaOptions, type KafkaCliOptions } from './kafka-options.ts';
import { runKafkaComparison } from './kafka-comparison.ts';
import { renderKafkaMarkdown } from './kafka-report.ts';

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Runs the comparison on the broker at `servers` and writes its report; Flink is skipped, saying why, without Java. */
export async function runKafkaBench(servers: string, options: KafkaCliOptions): Promise<string> {
  let flink = options.flink;
  if (flink) {
    const toolchain = detectToolchain();
    if (typeof toolchain === 'string') {
      log(`kafka: FLINK SKIPPED: ${toolchain}`);
      flink = false;
    } else buildFlink(log);
  }
  const comparison = await runKafkaComparison({ ...options, servers, flink }, log);
  const markdown = renderKafkaMarkdown(comparison);
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'kafka.json'), `${JSON.stringify(comparison, null, 2)}\n`);
  writeFileSync(join(options.out, 'kafka.md'), markdown);
  log(`\n${markdown}\nwrote ${join(options.out, 'kafka.{json,md}')}`);
  return markdown;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const servers = process.env.WEIR_KAFKA_BOOTSTRAP;
  if (servers === undefined || servers === '')
    throw new Error(
      'Set WEIR_KAFKA_BOOTSTRAP to a broker (npm run kafka:broker start), or run npm run bench:kafka, which starts one',
    );
  await runKafkaBench(servers, parseKafkaOptions(process.argv.slice(2)));
}
