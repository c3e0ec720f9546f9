// A cluster task lost while its commit waits on a broker that does not answer: its stop does not wait for the commit.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { ManualClock } from '../../src/core/clock.ts';
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
  whileBrokerPaused,
} from './kafka-test-cluster.ts';

const COMMIT_INTERVAL_MS = 1_000;

/** Resolves once `ready()` holds, checking every few milliseconds (a condition, not a fixed sleep). */
async function until(what: string, ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A job reading one partition of a topic holding `a`, `b`, `c`, keyed into a second stage. */
async function setUp(): Promise<{ topology: TaskTopology; jobId: string }> {
  const input = uniqueTopic('lost-stop-in');
  const jobId = uniqueTopic('lost-stop-job');
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
      undefined,
      'events',
    )
    .uid('events')
    .keyBy((v) => v)
    .map((v) => v, 'same')
    .uid('same')
    .print();
  const topology = cutIntoSubTopologies(env.buildGraph(), { jobId, sourcePartitions: () => 1 });
  for (const topic of topology.repartitionTopics) await createTopic(topic.name, topic.partitions);
  await produce(
    input,
    ['a', 'b', 'c'].map((value) => ({ partition: 0, value })),
  );
  return { topology, jobId };
}

/** An owner of task 0_0 on `clock`, committing every {@link COMMIT_INTERVAL_MS} of it. */
function owner(
  topology: TaskTopology,
  jobId: string,
  clock: ManualClock,
  background: Promise<void>[],
): ClusterTask {
  const context: ClusterTaskContext = {
    jobId,
    bootstrapServers: bootstrapServers(),
    properties: {},
    topology,
    commitIntervalMs: COMMIT_INTERVAL_MS,
    clock,
    logger: createLogger({ level: 'error' }),
    emission: { mode: 'processing-time', intervalMs: 200, everyRecords: 100 },
    closingInBackground: (closing) => background.push(closing),
  };
  return new ClusterTask('0_0', context, (_task, error) => {
    throw error;
  });
}

/** The values committed into the repartition topic. */
async function committedValues(topology: TaskTopology): Promise<string[]> {
  const topic = topology.repartitionTopics[0]!;
  const reader = await RepartitionReader.open<string>({
    bootstrapServers: bootstrapServers(),
    topic: topic.name,
    partitions: [0],
    producers: topic.producers,
  });
  readers.push(reader);
  const values: string[] = [];
  const out: RepartitionOutput<string> = {
    collect: (value) => values.push(value),
    emitWatermark: () => {},
    markIdle: () => {},
  };
  const end = (await highWatermarks(topic.name)).get(0)!;
  const deadline = Date.now() + 60_000;
  while (reader.positions()[0]!.offset < end) {
    if (Date.now() > deadline) throw new Error(`the reader did not reach offset ${end}`);
    await reader.poll(out);
  }
  return values;
}

const readers: RepartitionReader<string>[] = [];
after(async () => {
  for (const reader of readers) await reader.close();
});

describe('a cluster task lost during a commit (Kafka)', { timeout: 180_000 }, () => {
  it('stops without waiting for a commit the broker does not answer; its producer closes once the commit returned', async () => {
    const { topology, jobId } = await setUp();
    const clock = new ManualClock(0);
    const background: Promise<void>[] = [];
    const lost = owner(topology, jobId, clock, background);
    await lost.start();
    await until('the task read the 3 records', () => lost.inputPosition === 3);
    await whileBrokerPaused(async () => {
      // The commit interval passes: the task's next commit waits on the paused broker.
      clock.advanceTo(COMMIT_INTERVAL_MS);
      await until('the task waits on its commit', () => lost.waitingOnBrokers);
      // The group gave the task away (its process missed its session timeout): the stop does not wait for the
      // commit, which would hold up the group's rebalance for as long as the broker does not answer.
      await lost.stop(true);
      assert.equal(lost.waitingOnBrokers, true, 'stopped while its commit still waited');
      assert.equal(background.length, 1, "the producer's closing, left to the process");
    });
    await Promise.all(background);
    // The next owner fences the lost one and resumes at the last commit: each record downstream once.
    const next = owner(topology, jobId, new ManualClock(0), []);
    await next.start();
    await until('the next owner read to the end', () => next.inputPosition === 3);
    await next.stop(false);
    assert.deepEqual((await committedValues(topology)).sort(), ['a', 'b', 'c']);
  });
});
