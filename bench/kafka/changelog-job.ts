// The job of the changelog and cluster benchmarks: a Kafka topic → keyBy → a running count per key (ValueState) → KafkaSink.
//
//   node --import tsx bench/kafka/changelog-job.ts <bootstrap> <job id> <input> <output> [changelog topic config JSON]
//   node --import tsx bench/kafka/changelog-job.ts <bootstrap> local:<checkpoint dir> <input> <output>
//
// With a job id it runs in cluster mode (one process of that job). With `local:<dir>` it runs the same graph in one
// process without the cluster: the keyBy is the in-process exchange, and the sink commits exactly once on
// checkpoints every 100 ms (the cluster's commit interval) stored in <dir>. Either way it runs until killed.
// With WEIR_BENCH_LMDB=<dir> in the environment, keyed state is in LMDB there (cluster mode: local task stores);
// WEIR_BENCH_STANDBYS=<n> sets the cluster's standbyReplicas.
import {
  StreamExecutionEnvironment,
  ValueStateDescriptor,
  type Collector,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type RuntimeContext,
  type ValueState,
} from '../../src/index.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../../src/connectors/kafka/index.ts';
import { LmdbStateBackend } from '../../src/state/lmdb/index.ts';

interface Event {
  readonly id: number;
  readonly key: string;
}

/** Writes `key:count` for every record: one changed state entry per record. */
class RunningCount implements KeyedProcessFunction<string, Event, string> {
  private count!: ValueState<number>;

  open(ctx: RuntimeContext): void {
    this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
  }

  processElement(e: Event, _ctx: KeyedProcessContext<string>, out: Collector<string>): void {
    const count = this.count.value()! + 1;
    this.count.update(count);
    out.collect(`${e.key}:${count}`);
  }
}

const [bootstrapServers, jobId, input, output, changelogConfig] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
];
const local = jobId.startsWith('local:');
const env = StreamExecutionEnvironment.create({
  parallelism: 4,
  metrics: false,
  ...(local
    ? {}
    : {
        cluster: {
          bootstrapServers,
          jobId,
          sessionTimeoutMs: 6_000,
          heartbeatIntervalMs: 500,
          commitIntervalMs: 100,
          standbyReplicas: Number(process.env.WEIR_BENCH_STANDBYS ?? 0),
          ...(changelogConfig === undefined
            ? {}
            : { changelogTopicConfig: JSON.parse(changelogConfig) as Record<string, string> }),
        },
      }),
});
const lmdb = process.env.WEIR_BENCH_LMDB;
if (lmdb !== undefined && lmdb !== '') env.setStateBackend(new LmdbStateBackend({ path: lmdb }));
if (local) env.enableCheckpointing(100, { storage: jobId.slice('local:'.length) });
env
  .fromSource(
    KafkaSource.builder<Event>()
      .setBootstrapServers(bootstrapServers)
      .setTopics(input)
      .setStartingOffsets(OffsetsInitializer.earliest())
      .setGroupId(output)
      .setValueOnlyDeserializer(Deserializers.json<Event>())
      .build(),
    undefined,
    'events',
  )
  .keyBy((e) => e.key)
  .process(new RunningCount(), 'count')
  .uid('count')
  .sinkTo(
    KafkaSink.builder<string>()
      .setBootstrapServers(bootstrapServers)
      .setTopic(output)
      .setRecordSerializer((line) => ({ value: line }))
      .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
      .setTransactionalIdPrefix(`${output}-unused`)
      .build(),
    'output',
  );
await env.execute('changelog-bench');
