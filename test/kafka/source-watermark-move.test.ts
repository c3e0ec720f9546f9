// A cluster task that reads a Kafka topic, moved between owners by hand: its watermark and idleness move with it.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment, WatermarkStrategy } from '../../src/index.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/core/logger.ts';
import { Deserializers, KafkaSource, OffsetsInitializer } from '../../src/connectors/kafka/index.ts';
import { RepartitionReader, type RepartitionOutput } from '../../src/connectors/kafka/repartition-reader.ts';
import { cutIntoSubTopologies, type TaskTopology } from '../../src/graph/sub-topologies.ts';
import { ClusterTask, type ClusterTaskContext } from '../../src/execution/cluster/cluster-task.ts';
import { bootstrapServers, createTopic, highWatermarks, produce, uniqueTopic } from './kafka-test-cluster.ts';

const BOUND_MS = 1_000;
const IDLE_MS = 5_000;
const INTERVAL_MS = 200;

/** What the repartition topic's reader emitted: `value@timestamp` for a record, `W<watermark>`, `idle`, `active`. */
class Recorder implements RepartitionOutput<string> {
  readonly events: string[] = [];
  collect(value: string, timestamp: number | undefined): void {
    this.events.push(`${value}@${timestamp}`);
  }
  emitWatermark(watermark: number): void {
    this.events.push(`W${watermark}`);
  }
  markIdle(idle: boolean): void {
    this.events.push(idle ? 'idle' : 'active');
  }
}

/** Resolves once `ready()` holds, checking every few milliseconds (a condition, not a fixed sleep). */
async function until(what: string, ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A job reading one partition of `input` with bounded out-of-orderness (and idleness), keyed into a second stage. */
async function setUp(idleness: boolean): Promise<{ input: string; topology: TaskTopology; jobId: string }> {
  const input = uniqueTopic('source-wm-in');
  const jobId = uniqueTopic('source-wm-job');
  await createTopic(input, 1);
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<string>(BOUND_MS);
  const env = StreamExecutionEnvironment.create({ parallelism: 1, metrics: false });
  env
    .fromSource(
      KafkaSource.builder<string>()
        .setBootstrapServers(bootstrapServers())
        .setTopics(input)
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setValueOnlyDeserializer(Deserializers.string())
        .build(),
      idleness ? strategy.withIdleness(IDLE_MS) : strategy,
      'events',
    )
    .uid('events')
    .keyBy((v) => v)
    .map((v) => v, 'same')
    .uid('same')
    .print();
  const topology = cutIntoSubTopologies(env.buildGraph(), { jobId, sourcePartitions: () => 1 });
  for (const topic of topology.repartitionTopics) await createTopic(topic.name, topic.partitions);
  await produce(input, [
    { partition: 0, value: 'a', timestamp: 1_000 },
    { partition: 0, value: 'b', timestamp: 5_000 },
    { partition: 0, value: 'c', timestamp: 3_000 },
  ]);
  return { input, topology, jobId };
}

/** One owner of task 0_0: its own manual clock (no periodic watermark unless the test moves it), no timed commit. */
function owner(topology: TaskTopology, jobId: string, clock: ManualClock): ClusterTask {
  const context: ClusterTaskContext = {
    jobId,
    bootstrapServers: bootstrapServers(),
    properties: {},
    topology,
    commitIntervalMs: Number.MAX_SAFE_INTEGER,
    clock,
    logger: createLogger({ level: 'error' }),
    emission: { mode: 'processing-time', intervalMs: INTERVAL_MS, everyRecords: 100 },
  };
  return new ClusterTask('0_0', context, (_task, error) => {
    throw error;
  });
}

/** Everything committed into the repartition topic, as its reader (expecting task 0_0's producer) emits it. */
async function readRepartition(topology: TaskTopology): Promise<string[]> {
  const topic = topology.repartitionTopics[0]!;
  const reader = await RepartitionReader.open<string>({
    bootstrapServers: bootstrapServers(),
    topic: topic.name,
    partitions: [0],
    producers: topic.producers,
  });
  readers.push(reader);
  const out = new Recorder();
  const end = (await highWatermarks(topic.name)).get(0)!;
  const deadline = Date.now() + 60_000;
  while (reader.positions()[0]!.offset < end) {
    if (Date.now() > deadline) throw new Error(`the reader did not reach offset ${end}`);
    await reader.poll(out);
  }
  return out.events;
}

const readers: RepartitionReader<string>[] = [];
after(async () => {
  for (const reader of readers) await reader.close();
});

describe('a cluster task reading a Kafka topic, moved to a new owner (Kafka)', { timeout: 180_000 }, () => {
  it('commits the watermark of what it read with its offsets; the new owner, with nothing left to read, keeps it', async () => {
    const { topology, jobId } = await setUp(false);
    const first = owner(topology, jobId, new ManualClock(0));
    await first.start();
    await until('the first owner read the 3 records', () => first.inputPosition === 3);
    // Moved before any periodic watermark (the clock never moved): the stop commits what was read.
    await first.stop(false);
    const second = owner(topology, jobId, new ManualClock(0));
    await second.start();
    await second.stop(false);
    // 5,000 - 1,000 - 1: without it, the watermark of the records the first owner read is lost for good.
    assert.deepEqual(await readRepartition(topology), ['a@1000', 'b@5000', 'c@3000', 'W3999']);
  });

  it('passes idleness on; an owner with nothing to read goes idle, and a new owner resumes idle', async () => {
    const { topology, jobId } = await setUp(true);
    const first = owner(topology, jobId, new ManualClock(0));
    await first.start();
    await until('the first owner read the 3 records', () => first.inputPosition === 3);
    await first.stop(false);
    // The second owner reads nothing: after the idle timeout it is idle.
    const clock = new ManualClock(0);
    const second = owner(topology, jobId, clock);
    await second.start();
    clock.advanceTo(IDLE_MS + INTERVAL_MS);
    await second.stop(false);
    assert.deepEqual(await readRepartition(topology), ['a@1000', 'b@5000', 'c@3000', 'W3999', 'idle']);
    // A third owner starts idle at 3999: its own periodic emits know nothing and do not make it active again.
    const third = owner(topology, jobId, clock);
    await third.start();
    clock.advanceTo(IDLE_MS + 3 * INTERVAL_MS);
    await third.stop(false);
    assert.deepEqual(await readRepartition(topology), [
      'a@1000',
      'b@5000',
      'c@3000',
      'W3999',
      'idle',
      // The third owner's producer announces itself (active at 3999), then restates where it resumed: idle.
      'active',
      'idle',
    ]);
  });
});
