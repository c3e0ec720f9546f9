// A cluster task run by hand, outside a process's group membership: a one-partition job whose source task the tests
// start and stop as its owners would, and what its repartition topic holds.
import { StreamExecutionEnvironment, type WatermarkStrategy } from '../../src/index.ts';
import type { ManualClock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/core/logger.ts';
import { Deserializers, KafkaSource, OffsetsInitializer } from '../../src/connectors/kafka/index.ts';
import { RepartitionReader, type RepartitionOutput } from '../../src/connectors/kafka/repartition-reader.ts';
import { cutIntoSubTopologies, type TaskTopology } from '../../src/graph/sub-topologies.ts';
import { ClusterTask, type ClusterTaskContext } from '../../src/execution/cluster/cluster-task.ts';
import {
  bootstrapServers,
  createTopic,
  highWatermarks,
  produce,
  uniqueTopic,
  type TestRecord,
} from './kafka-test-cluster.ts';

/** How often an owner's periodic watermark is emitted, in its clock's time. */
export const EMIT_INTERVAL_MS = 200;

/**
 * A job reading one partition of a new topic holding `records` (with `strategy`, if any), keyed into a second
 * stage: task 0_0 reads the topic and writes the repartition topic.
 */
export async function oneSourceTaskJob(
  name: string,
  records: readonly TestRecord[],
  strategy?: WatermarkStrategy<string>,
): Promise<{ topology: TaskTopology; jobId: string }> {
  const input = uniqueTopic(`${name}-in`);
  const jobId = uniqueTopic(`${name}-job`);
  await createTopic(input, 1);
  const env = StreamExecutionEnvironment.create({ parallelism: 1, metrics: false });
  env
    .fromSource(
      KafkaSource.builder<string>()
        .setBootstrapServers(bootstrapServers())
        .setTopics(input)
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setValueOnlyDeserializer(Deserializers.string())
        .build(),
      strategy,
      'events',
    )
    .uid('events')
    .keyBy((v) => v)
    .map((v) => v, 'same')
    .uid('same')
    .print();
  const topology = cutIntoSubTopologies(env.buildGraph(), { jobId, sourcePartitions: () => 1 });
  for (const topic of topology.repartitionTopics) await createTopic(topic.name, topic.partitions);
  await produce(input, records);
  return { topology, jobId };
}

/** An owner of task 0_0 on its own manual clock; it commits every `commitIntervalMs` of that clock. */
export function taskOwner(
  topology: TaskTopology,
  jobId: string,
  clock: ManualClock,
  commitIntervalMs: number,
  closingInBackground?: (closing: Promise<void>) => void,
): ClusterTask {
  const context: ClusterTaskContext = {
    jobId,
    bootstrapServers: bootstrapServers(),
    properties: {},
    topology,
    commitIntervalMs,
    clock,
    logger: createLogger({ level: 'error' }),
    emission: { mode: 'processing-time', intervalMs: EMIT_INTERVAL_MS, everyRecords: 100 },
    ...(closingInBackground === undefined ? {} : { closingInBackground }),
  };
  return new ClusterTask('0_0', context, (_task, error) => {
    throw error;
  });
}

/**
 * Everything committed into the job's repartition topic, as its reader (expecting task 0_0's producer) emits it:
 * `value@timestamp` for a record, `W<watermark>`, `idle`, `active`.
 */
export async function repartitionEvents(topology: TaskTopology): Promise<string[]> {
  const topic = topology.repartitionTopics[0]!;
  const reader = await RepartitionReader.open<string>({
    bootstrapServers: bootstrapServers(),
    topic: topic.name,
    partitions: [0],
    producers: topic.producers,
  });
  try {
    const events: string[] = [];
    const out: RepartitionOutput<string> = {
      collect: (value, timestamp) => events.push(`${value}@${timestamp}`),
      emitWatermark: (watermark) => events.push(`W${watermark}`),
      markIdle: (idle) => events.push(idle ? 'idle' : 'active'),
    };
    const end = (await highWatermarks(topic.name)).get(0)!;
    const deadline = Date.now() + 60_000;
    while (reader.positions()[0]!.offset < end) {
      if (Date.now() > deadline) throw new Error(`the reader did not reach offset ${end}`);
      await reader.poll(out);
    }
    return events;
  } finally {
    await reader.close();
  }
}
