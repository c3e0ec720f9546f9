// The job of the cluster-mode tests: a Kafka topic → map → keyBy → map → KafkaSink (exactly once), in one process or many.
import { pathToFileURL } from 'node:url';
import { StreamExecutionEnvironment } from '../../src/index.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../../src/connectors/kafka/index.ts';

/** One input record: its key picks the input partition, so each key's records are in order in one partition. */
export interface ClusterTestEvent {
  readonly id: number;
  readonly key: string;
}

/** What varies between the single-process reference run and a process of the cluster. */
export interface ClusterTestJob {
  readonly bootstrapServers: string;
  readonly input: string;
  readonly output: string;
  /** Bounded (read what the topic holds now) for the reference run; the cluster runs until stopped. */
  readonly bounded: boolean;
  /** Milliseconds each record waits in the first map (so a process can be killed while it works). */
  readonly slowMs?: number;
}

/** The job: double each id, key by key, describe each record as `key:id:double`, write it keyed by key. */
export function buildClusterTestJob(env: StreamExecutionEnvironment, job: ClusterTestJob): void {
  let source = KafkaSource.builder<ClusterTestEvent>()
    .setBootstrapServers(job.bootstrapServers)
    .setTopics(job.input)
    .setStartingOffsets(OffsetsInitializer.earliest())
    .setValueOnlyDeserializer(Deserializers.json<ClusterTestEvent>());
  if (job.bounded) source = source.setBounded(OffsetsInitializer.latest());
  const sink = KafkaSink.builder<string>()
    .setBootstrapServers(job.bootstrapServers)
    .setTopic(job.output)
    .setRecordSerializer((line) => ({ key: line.slice(0, line.indexOf(':')), value: line }))
    .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
    .setTransactionalIdPrefix(`${job.output}-reference`)
    .build();
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const slowMs = job.slowMs ?? 0;
  env
    .fromSource(source.build(), undefined, 'events')
    .map((e) => {
      if (slowMs > 0) Atomics.wait(wait, 0, 0, slowMs);
      return { key: e.key, id: e.id, double: e.id * 2 };
    }, 'double')
    .keyBy((e) => e.key)
    .map((e) => `${e.key}:${e.id}:${e.double}`, 'describe')
    .sinkTo(sink, 'output');
}

// As a process of the cluster: node --import tsx cluster-job.ts <bootstrap> <job id> <input> <output> <slow ms>
if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [bootstrapServers, jobId, input, output, slowMs] = process.argv.slice(2);
  const env = StreamExecutionEnvironment.create({
    parallelism: 4,
    metrics: false,
    cluster: {
      bootstrapServers: bootstrapServers!,
      jobId: jobId!,
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
      commitIntervalMs: 100,
    },
  });
  buildClusterTestJob(env, {
    bootstrapServers: bootstrapServers!,
    input: input!,
    output: output!,
    bounded: false,
    slowMs: Number(slowMs ?? 0),
  });
  await env.execute('cluster-test');
  process.stdout.write('LEFT\n');
}
