// The Kafka crash test's job: the crash job's keyed state, windows and CEP from a Kafka topic into one, exactly once.
import { type DataStream } from '../../src/api/data-stream.ts';
import type { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../../src/connectors/kafka/index.ts';
import { SeededRandom } from '../../src/connectors/seeded-random.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { buildCrashPipeline, crashTransaction, type Tx } from '../crash/crash-job.ts';
import type { KillSwitch } from '../crash/kill-switch.ts';
import type { TestRecord } from './kafka-test-cluster.ts';

/** Partitions of the input topic; each holds its transactions in timestamp order. */
export const INPUT_PARTITIONS = 4;
const SEED = 42;

/** The input topic's records: transaction i in partition i % 4, as JSON, the same on every run. */
export function crashInput(count: number): TestRecord[] {
  const random = new SeededRandom();
  const records: TestRecord[] = [];
  for (let i = 0; i < count; i++) {
    random.setSeed(SeededRandom.seedFor(SEED, i));
    const tx = crashTransaction(i, random);
    records.push({ partition: i % INPUT_PARTITIONS, key: tx.card, value: JSON.stringify(tx) });
  }
  return records;
}

/** Where the job reads and writes, and under which transactional id prefix. */
export interface KafkaCrashTopics {
  readonly bootstrap: string;
  readonly input: string;
  readonly output: string;
  readonly transactionalIdPrefix: string;
}

/**
 * Reads the input topic (bounded at its end when the job first starts, event time from `ts` per partition), runs
 * the crash pipeline, and writes every output into the output topic with EXACTLY_ONCE: key = the output's name,
 * value = the record as JSON. `killSwitch` sees every input record and the sink's pre-commits and commits.
 */
export async function buildKafkaCrashJob(
  env: StreamExecutionEnvironment,
  topics: KafkaCrashTopics,
  killSwitch: KillSwitch,
): Promise<void> {
  const source = KafkaSource.builder<Tx>()
    .setBootstrapServers(topics.bootstrap)
    .setTopics(topics.input)
    .setBounded(OffsetsInitializer.latest())
    .setValueOnlyDeserializer(Deserializers.json<Tx>())
    .setBatchSize(200)
    // Small fetches interleave the partitions a subtask reads, so no partition runs far ahead of the others and
    // holds back the watermark (the operators would buffer all it read meanwhile).
    .setProperty('max.partition.fetch.bytes', 4_096)
    .build();
  const tx = env
    .fromSource(
      source,
      WatermarkStrategy.forBoundedOutOfOrderness<Tx>(50).withTimestampAssigner((t) => t.ts),
      'transactions',
    )
    .uid('transactions')
    .map((t) => {
      killSwitch.event('read');
      return t;
    }, 'kill-switch')
    .uid('kill-switch');
  const tagged: DataStream<{ output: string; value: unknown }>[] = [];
  await buildCrashPipeline(tx, (output, stream) => {
    tagged.push(
      stream
        .map((value: unknown) => ({ output: output as string, value }), `tag-${output}`)
        .uid(`tag-${output}`),
    );
  });
  const sink = KafkaSink.builder<{ output: string; value: unknown }>()
    .setBootstrapServers(topics.bootstrap)
    .setTopic(topics.output)
    .setRecordSerializer((r) => ({ key: r.output, value: JSON.stringify(r.value) }))
    .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
    .setTransactionalIdPrefix(topics.transactionalIdPrefix)
    .build();
  tagged[0]!
    .union(...tagged.slice(1))
    .sinkTo(killSwitch.around(sink), 'outputs')
    .uid('outputs');
}
