// The job of the cluster failure test: a Kafka topic → keyBy → a running count, an event-time window and a CEP pattern → KafkaSink (exactly once).
import { pathToFileURL } from 'node:url';
import {
  CEP,
  OutputTag,
  Pattern,
  StreamExecutionEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from '../../src/index.ts';
import { Deserializers, KafkaSource, OffsetsInitializer } from '../../src/connectors/kafka/index.ts';
import { RunningCount, lineSink, windowSum } from './keyed-test-functions.ts';

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
  const sink = (name: string) => lineSink(job.bootstrapServers, job.output, name);
  const keyed = env
    .fromSource(
      source.build(),
      WatermarkStrategy.forMonotonousTimestamps<ChaosEvent>().withTimestampAssigner((e) => e.id * MS_PER_ID),
      'events',
    )
    .keyBy((e) => e.key);

  keyed
    .process(new RunningCount<ChaosEvent>((e, count) => `${e.key}:${e.id}:${count}`), 'count')
    .uid('count')
    .sinkTo(sink('count'), 'count-output');

  keyed
    .window(TumblingEventTimeWindows.of(WINDOW_MS))
    .aggregate(windowSum<ChaosEvent>(MS_PER_ID, WINDOW_MS))
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
