// The job of the cluster failure test: a Kafka topic → keyBy → a running count, an event-time window and a CEP pattern → KafkaSink (exactly once).
import { pathToFileURL } from 'node:url';
import {
  CEP,
  OutputTag,
  Pattern,
  StreamExecutionEnvironment,
  TumblingEventTimeWindows,
  ValueStateDescriptor,
  WatermarkStrategy,
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

/** One input record. `level` drives the pattern: low (< 20) followed by high (> 80) within {@link WITHIN_MS}. */
export interface ChaosEvent {
  readonly id: number;
  readonly key: string;
  readonly level: number;
}

/** Event time: 10 ms per id. */
export const MS_PER_ID = 10;
/** Tumbling windows of 2 s of event time: 200 ids. */
export const WINDOW_MS = 2_000;
/** A low level must be followed by a high one of the same key within 1 s of event time. */
export const WITHIN_MS = 1_000;

/** What varies between the single-process reference run and a process of the cluster. */
export interface ChaosJob {
  readonly bootstrapServers: string;
  readonly input: string;
  readonly output: string;
  /** Bounded (read what the topic holds now) for the reference run; the cluster runs until stopped. */
  readonly bounded: boolean;
}

/** Writes each record as `<key>:<id>:<count>`, with the running count of its key (keyed state). */
class RunningCount implements KeyedProcessFunction<string, ChaosEvent, string> {
  private count!: ValueState<number>;

  open(ctx: RuntimeContext): void {
    this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
  }

  processElement(e: ChaosEvent, _ctx: KeyedProcessContext<string>, out: Collector<string>): void {
    const count = this.count.value()! + 1;
    this.count.update(count);
    out.collect(`${e.key}:${e.id}:${count}`);
  }
}

interface WindowSum {
  key: string;
  first: number;
  count: number;
  sum: number;
}

const timedOut = new OutputTag<string>('timed-out');

/**
 * The job, every keyed operator after one keyBy and with a uid: `count` (keyed state), `window` (count and sum of
 * the ids of each key per 2 s window, `W<key>:<window>:<count>:<sum>`) and `pattern` (CEP in event time: a low
 * level followed by a high one within 1 s, `P<key>:<low id>:<high id>`, and each low level that timed out,
 * `T<key>:<low id>`), all into one output topic keyed by what precedes the first ':'.
 */
export function buildChaosJob(env: StreamExecutionEnvironment, job: ChaosJob): void {
  let source = KafkaSource.builder<ChaosEvent>()
    .setBootstrapServers(job.bootstrapServers)
    .setTopics(job.input)
    .setStartingOffsets(OffsetsInitializer.earliest())
    .setValueOnlyDeserializer(Deserializers.json<ChaosEvent>());
  if (job.bounded) source = source.setBounded(OffsetsInitializer.latest());
  // One transactional id prefix per sink operator in the single-process run: two sinks sharing one would fence
  // each other. In the cluster every sink writes into its task's transaction instead.
  const sink = (name: string) =>
    KafkaSink.builder<string>()
      .setBootstrapServers(job.bootstrapServers)
      .setTopic(job.output)
      .setRecordSerializer((line) => ({ key: line.slice(0, line.indexOf(':')), value: line }))
      .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
      .setTransactionalIdPrefix(`${job.output}-reference-${name}`)
      .build();
  const keyed = env
    .fromSource(
      source.build(),
      WatermarkStrategy.forMonotonousTimestamps<ChaosEvent>().withTimestampAssigner((e) => e.id * MS_PER_ID),
      'events',
    )
    .keyBy((e) => e.key);

  keyed.process(new RunningCount(), 'count').uid('count').sinkTo(sink('count'), 'count-output');

  keyed
    .window(TumblingEventTimeWindows.of(WINDOW_MS))
    .aggregate({
      createAccumulator: (): WindowSum => ({ key: '', first: Infinity, count: 0, sum: 0 }),
      add: (e: ChaosEvent, acc: WindowSum) => {
        acc.key = e.key;
        acc.first = Math.min(acc.first, e.id);
        acc.count++;
        acc.sum += e.id;
        return acc;
      },
      getResult: (acc: WindowSum) =>
        `W${acc.key}:${Math.floor((acc.first * MS_PER_ID) / WINDOW_MS)}:${acc.count}:${acc.sum}`,
      merge: (a: WindowSum, b: WindowSum) => ({
        key: a.key,
        first: Math.min(a.first, b.first),
        count: a.count + b.count,
        sum: a.sum + b.sum,
      }),
    })
    .uid('window')
    .sinkTo(sink('window'), 'window-output');

  const pattern = Pattern.begin<ChaosEvent, 'low'>('low')
    .where((e) => e.level < 20)
    .followedBy('high')
    .where((e) => e.level > 80)
    .within(WITHIN_MS);
  const matches = CEP.pattern(keyed, pattern)
    .select(
      timedOut,
      (m) => `T${m.low![0]!.key}:${m.low![0]!.id}`,
      (m) => `P${m.low[0]!.key}:${m.low[0]!.id}:${m.high[0]!.id}`,
    )
    .uid('pattern');
  matches.sinkTo(sink('pattern'), 'pattern-output');
  matches.getSideOutput(timedOut).sinkTo(sink('timed-out'), 'timed-out-output');
}

// As a process of the cluster: node --import tsx chaos-job.ts <bootstrap> <job id> <input> <output>
if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [bootstrapServers, jobId, input, output] = process.argv.slice(2);
  const env = StreamExecutionEnvironment.create({
    // The keyed sub-topologies' tasks: 2 each, as the 2-partition input topic gives the source's.
    parallelism: 2,
    metrics: false,
    cluster: {
      bootstrapServers: bootstrapServers!,
      jobId: jobId!,
      // The cluster of scripts/kafka/cluster.sh allows sessions down to 2 s: a killed process's tasks move 3 s
      // after its last heartbeat.
      sessionTimeoutMs: 3_000,
      heartbeatIntervalMs: 300,
      commitIntervalMs: 100,
    },
  });
  buildChaosJob(env, {
    bootstrapServers: bootstrapServers!,
    input: input!,
    output: output!,
    bounded: false,
  });
  await env.execute('chaos-test');
}
