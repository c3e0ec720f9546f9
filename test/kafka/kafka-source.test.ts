// KafkaSource against a real broker: bounded reads, bad records, per-partition watermarks, restore and rescale.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OutputTag } from '../../src/core/output-tag.ts';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { loadSavepoint } from '../../src/execution/checkpoint-storage.ts';
import { CollectSink } from '../../src/connectors/collect-sink.ts';
import {
  deadLetterRecords,
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
  type MalformedKafkaRecord,
} from '../../src/connectors/kafka/index.ts';
import { kafkaClient, type ClientConsumer } from '../../src/connectors/kafka/kafka-client.ts';
import type { KafkaSplitPosition } from '../../src/connectors/kafka/kafka-source-reader.ts';
import type { Sink, SinkWriter } from '../../src/core/sink.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import {
  addPartitions,
  bootstrapServers,
  createTopic,
  produce,
  readAll,
  uniqueTopic,
  type TestRecord,
} from './kafka-test-cluster.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-kafka-source-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A record's identity in these tests: "p<partition>-<n>" where n is its index within the partition. */
interface Tagged {
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

function source(topic: string, bounded: boolean, group?: string): KafkaSource<Tagged> {
  const builder = KafkaSource.builder<Tagged>()
    .setBootstrapServers(bootstrapServers())
    .setTopics(topic)
    .setDeserializer((r) => ({ partition: r.partition, offset: r.offset, value: r.value!.toString() }))
    .setBatchSize(50);
  if (group !== undefined) builder.setGroupId(group);
  if (bounded) builder.setBounded(OffsetsInitializer.latest());
  return builder.build();
}

/** Kafka reads a timestamp of 0 as "now": test timestamps start later. */
const T0 = 1_000_000;

/** `perPartition` records in each of `partitions` partitions, value "p<partition>-<i>", timestamp T0 + 1000 * i + partition. */
function records(partitions: number, perPartition: number): TestRecord[] {
  const out: TestRecord[] = [];
  for (let i = 0; i < perPartition; i++)
    for (let p = 0; p < partitions; p++)
      out.push({ partition: p, value: `p${p}-${i}`, timestamp: T0 + 1000 * i + p });
  return out;
}

const byPartitionAndOffset = (a: Tagged, b: Tagged) => a.partition - b.partition || a.offset - b.offset;

/** Waits (on the event loop, not a timer) until `condition` holds, failing after `ms`. */
async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A bounded source of `{ n }` JSON values from `topic`, its malformed records to `malformed` when given. */
function jsonNumbers(topic: string, malformed?: OutputTag<MalformedKafkaRecord>): KafkaSource<{ n: number }> {
  const builder = KafkaSource.builder<{ n: number }>()
    .setBootstrapServers(bootstrapServers())
    .setTopics(topic)
    .setBounded(OffsetsInitializer.latest())
    .setValueOnlyDeserializer(Deserializers.json<{ n: number }>());
  return (malformed === undefined ? builder : builder.setMalformedRecords(malformed)).build();
}

describe('KafkaSource (real broker)', { timeout: 600_000 }, () => {
  it('reads a bounded topic to its end with the Kafka timestamps, at parallelism 2 over 3 partitions', async () => {
    const topic = uniqueTopic('bounded');
    await createTopic(topic, 3);
    await produce(topic, records(3, 40));
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const sink = new CollectSink<Tagged>();
    env.fromSource(source(topic, true), undefined, 'kafka').sinkTo(sink);
    await env.execute('bounded read');
    const got = sink.records.map((r) => ({ ...r.value, timestamp: r.timestamp }));
    got.sort(byPartitionAndOffset);
    const expected: (Tagged & { timestamp: number })[] = [];
    for (let p = 0; p < 3; p++)
      for (let i = 0; i < 40; i++)
        expected.push({ partition: p, offset: i, value: `p${p}-${i}`, timestamp: T0 + 1000 * i + p });
    assert.deepEqual(got, expected);
  });

  it('asks the client for the next batch before processing a full one, and emits every record once in order', async () => {
    const topic = uniqueTopic('prefetch');
    await createTopic(topic, 1);
    await produce(topic, records(1, 400));
    const sink = new CollectSink<Tagged>();
    // What the sink held when each batch was asked for and when it came back.
    const asked: number[] = [];
    const returned: { readonly held: number; readonly size: number }[] = [];
    const prototype = kafkaClient().KafkaConsumer.prototype as ClientConsumer;
    const consume = prototype.consume;
    prototype.consume = function (this: ClientConsumer, count, cb) {
      asked.push(sink.records.length);
      consume.call(this, count, (error, messages) => {
        if (!error) returned.push({ held: sink.records.length, size: messages.length });
        cb(error, messages);
      });
    };
    try {
      const env = StreamExecutionEnvironment.create({ parallelism: 1 });
      env.fromSource(source(topic, true), undefined, 'kafka').sinkTo(sink);
      await env.execute('prefetch');
    } finally {
      prototype.consume = consume;
    }
    assert.deepEqual(
      sink.records.map((r) => r.value.value),
      Array.from({ length: 400 }, (_, i) => `p0-${i}`),
    );
    // After a full batch (50) the next one is asked for before any of its records reaches the sink.
    const full = returned.flatMap((r, i) => (r.size === 50 ? [i] : []));
    assert.ok(full.length >= 2, `full batches: ${JSON.stringify(returned)}`);
    for (const i of full)
      assert.equal(asked[i + 1], returned[i]!.held, `batch ${i}: ${JSON.stringify({ asked, returned })}`);
  });

  it('stops at the offsets resolved when the job started, not at records written later', async () => {
    const topic = uniqueTopic('bounded-later');
    await createTopic(topic, 1);
    await produce(topic, [
      { partition: 0, value: 'a' },
      { partition: 0, value: 'b' },
    ]);
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const src = KafkaSource.builder<string>()
      .setBootstrapServers(bootstrapServers())
      .setTopics(topic)
      .setStartingOffsets(OffsetsInitializer.offsets({ [`${topic}-0`]: 1 }))
      .setBounded(OffsetsInitializer.latest())
      .setValueOnlyDeserializer(Deserializers.string())
      .build();
    assert.deepEqual(await env.fromSource(src, undefined, 'kafka').executeAndCollect(), ['b']);
  });

  it('fails the job naming topic, partition and offset of a record that cannot be deserialized', async () => {
    const topic = uniqueTopic('malformed');
    await createTopic(topic, 2);
    await produce(topic, [
      { partition: 1, value: '{"n":1}' },
      { partition: 1, value: '{"n":2}' },
      { partition: 1, value: 'not json' },
    ]);
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const src = jsonNumbers(topic);
    env.fromSource(src, undefined, 'events').sinkTo(new CollectSink());
    await assert.rejects(env.execute('malformed'), (error: Error) => {
      assert.match(error.message, new RegExp(`Kafka record ${topic}-1@2 could not be deserialized: .*JSON`));
      return true;
    });
  });

  it('sends records that cannot be deserialized to the malformed-records side output', async () => {
    const topic = uniqueTopic('malformed-side');
    await createTopic(topic, 1);
    await produce(topic, [
      { partition: 0, value: '{"n":1}' },
      { partition: 0, value: '{oops', key: 'k', timestamp: 5 },
      { partition: 0, value: '{"n":3}' },
    ]);
    const bad = new OutputTag<MalformedKafkaRecord>('bad');
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const src = jsonNumbers(topic, bad);
    const good = new CollectSink<{ n: number }>();
    const rejected = new CollectSink<MalformedKafkaRecord>();
    const events = env.fromSource(src, undefined, 'events');
    events.sinkTo(good);
    events.getSideOutput(bad).sinkTo(rejected);
    await env.execute('malformed side output');
    assert.deepEqual(good.values, [{ n: 1 }, { n: 3 }]);
    assert.equal(rejected.values.length, 1);
    const r = rejected.values[0]!;
    assert.deepEqual(
      {
        topic: r.topic,
        partition: r.partition,
        offset: r.offset,
        timestamp: r.timestamp,
        key: r.key?.toString(),
        value: r.value?.toString(),
      },
      { topic, partition: 0, offset: 1, timestamp: 5, key: 'k', value: '{oops' },
    );
    assert.match(r.error, /JSON/);
  });

  it('writes records that cannot be deserialized to a dead-letter topic, exactly once, naming where and why', async () => {
    const topic = uniqueTopic('dlq-in');
    const dlq = uniqueTopic('dlq');
    await createTopic(topic, 2);
    await createTopic(dlq, 1);
    await produce(topic, [
      { partition: 0, value: '{"n":1}', timestamp: 1_000 },
      { partition: 0, value: '{oops', key: 'k0', timestamp: 2_000 },
      { partition: 1, value: '{"n":2}', timestamp: 3_000 },
      { partition: 1, value: 'not json', key: 'k1', timestamp: 4_000 },
      { partition: 1, value: '{"n":3}', timestamp: 5_000 },
    ]);
    const bad = new OutputTag<MalformedKafkaRecord>('bad');
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(20, { storage: join(dir, uniqueTopic('checkpoints')) });
    const src = jsonNumbers(topic, bad);
    const good = new CollectSink<{ n: number }>();
    const events = env.fromSource(src, undefined, 'events');
    events.sinkTo(good);
    events
      .getSideOutput(bad)
      .sinkTo(
        KafkaSink.builder<MalformedKafkaRecord>()
          .setBootstrapServers(bootstrapServers())
          .setRecordSerializer(deadLetterRecords(dlq))
          .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
          .setTransactionalIdPrefix(uniqueTopic('dlq-txn'))
          .build(),
        'dead letters',
      );
    await env.execute('dead-letter topic');
    assert.deepEqual(good.values.map((v) => v.n).sort(), [1, 2, 3]);
    const letters = (await readAll(dlq)).map((r) => ({
      key: r.key,
      value: r.value,
      timestamp: r.timestamp,
      headers: r.headers.filter(([k]) => k !== '__streams.errors.message'),
      message: r.headers.find(([k]) => k === '__streams.errors.message')?.[1],
    }));
    letters.sort((a, b) => a.timestamp! - b.timestamp!);
    const origin = (partition: number, offset: number) => [
      ['__streams.errors.exception', 'KafkaDeserializationError'],
      ['__streams.errors.topic', topic],
      ['__streams.errors.partition', String(partition)],
      ['__streams.errors.offset', String(offset)],
    ];
    assert.deepEqual(
      letters.map(({ message: _, ...rest }) => rest),
      [
        { key: 'k0', value: '{oops', timestamp: 2_000, headers: origin(0, 1) },
        { key: 'k1', value: 'not json', timestamp: 4_000, headers: origin(1, 1) },
      ],
    );
    for (const l of letters) assert.match(l.message!, /JSON/);
  });

  it('tracks event time per partition; an idle partition stops holding the watermark back', async () => {
    const topic = uniqueTopic('watermarks');
    await createTopic(topic, 2);
    // Partition 0 runs ahead; partition 1 has one early record and then goes quiet.
    await produce(topic, [
      { partition: 0, value: 'a', timestamp: 1000 },
      { partition: 0, value: 'b', timestamp: 3000 },
      { partition: 1, value: 'x', timestamp: 100 },
    ]);
    const seen: string[] = [];
    const watermarks: number[] = [];
    const sink: Sink<string> = {
      createWriter(): SinkWriter<string> {
        return { write: (v) => void seen.push(v), writeWatermark: (w) => void watermarks.push(w) };
      },
    };
    // Processing time (periodic emission every 200 ms, the idleness timeout) is stepped by hand.
    const clock = new ManualClock(0);
    const env = StreamExecutionEnvironment.create({ parallelism: 1, clock });
    const src = KafkaSource.builder<string>()
      .setBootstrapServers(bootstrapServers())
      .setTopics(topic)
      .setValueOnlyDeserializer(Deserializers.string())
      .build();
    env
      .fromSource(src, WatermarkStrategy.forMonotonousTimestamps<string>().withIdleness(1_000), 'kafka')
      .sinkTo(sink);
    const client = await env.executeAsync('per-partition watermarks');
    try {
      await until(() => seen.length === 3, 'the first three records');
      clock.advanceTo(200);
      // The subtask's watermark is the minimum over partitions: partition 1's 100 - 1, not partition 0's 2999.
      assert.deepEqual(watermarks, [99]);
      await produce(topic, [{ partition: 0, value: 'c', timestamp: 5000 }]);
      await until(() => seen.length === 4, 'record c');
      // Partition 1 has been quiet since time 0: idle at 1000; partition 0 (active at 200) alone sets it.
      clock.advanceTo(800);
      assert.deepEqual(watermarks, [99]);
      clock.advanceTo(1000);
      assert.deepEqual(watermarks, [99, 4999]);
      // Partition 1 wakes up at 6000, partition 0 moves to 7000: the minimum leads again.
      await produce(topic, [
        { partition: 1, value: 'y', timestamp: 6000 },
        { partition: 0, value: 'd', timestamp: 7000 },
      ]);
      await until(() => seen.length === 6, 'records y and d');
      clock.advanceTo(1200);
      assert.deepEqual(watermarks, [99, 4999, 5999]);
    } finally {
      await client.cancel();
    }
  });

  it('restores from a savepoint mid-topic at another parallelism (2 -> 1, 3, 6), with nothing lost or repeated', async () => {
    const topic = uniqueTopic('rescale');
    await createTopic(topic, 5);
    await produce(topic, records(5, 200));
    const first = StreamExecutionEnvironment.create({ parallelism: 2 });
    const seen = new CollectSink<Tagged>();
    first
      .fromSource(source(topic, false, uniqueTopic('group')), undefined, 'kafka')
      .uid('kafka')
      .sinkTo(seen);
    const client = await first.executeAsync('before the savepoint');
    await until(() => seen.records.length >= 300, '300 records before the savepoint');
    const savepoint = await client.triggerSavepoint(join(dir, 'savepoints'));
    await client.cancel();

    // The savepoint's offsets, per partition: the second run must start exactly there.
    const states = loadSavepoint(savepoint).operators['kafka']!.operatorState as KafkaSplitPosition[][];
    const offsets = new Map<number, number>();
    for (const s of states) for (const split of s) offsets.set(split.partition, split.offset);
    assert.equal(offsets.size, 5);
    assert.ok(
      [...offsets.values()].some((o) => o > 0 && o < 200),
      `a mid-topic savepoint, got ${[...offsets]}`,
    );

    const before = seen.values.filter((r) => r.offset < offsets.get(r.partition)!);
    const expected: Tagged[] = [];
    for (let p = 0; p < 5; p++)
      for (let i = 0; i < 200; i++) expected.push({ partition: p, offset: i, value: `p${p}-${i}` });
    // Fewer, more and more subtasks than partitions: each partition goes to exactly one subtask.
    for (const parallelism of [1, 3, 6]) {
      const second = StreamExecutionEnvironment.create({ parallelism });
      const rest = new CollectSink<Tagged>();
      second.fromSource(source(topic, true), undefined, 'kafka').uid('kafka').sinkTo(rest);
      await second.execute(`after the savepoint at ${parallelism}`, { savepointPath: savepoint });
      const all = [...before, ...rest.values].sort(byPartitionAndOffset);
      assert.deepEqual(all, expected, `restored at parallelism ${parallelism}`);
      for (const r of rest.values)
        assert.ok(r.offset >= offsets.get(r.partition)!, `record ${r.value} read twice at ${parallelism}`);
    }
  });

  it('discovers partitions added while it runs and reads them from their beginning', async () => {
    const topic = uniqueTopic('discovery');
    await createTopic(topic, 1);
    await produce(topic, [{ partition: 0, value: 'p0-0' }]);
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const src = KafkaSource.builder<string>()
      .setBootstrapServers(bootstrapServers())
      .setTopics(topic)
      .setValueOnlyDeserializer(Deserializers.string())
      .setPartitionDiscoveryInterval(100)
      .build();
    const sink = new CollectSink<string>();
    env.fromSource(src, undefined, 'kafka').sinkTo(sink);
    const client = await env.executeAsync('discovery');
    try {
      await until(() => sink.values.includes('p0-0'), 'the first record');
      await addPartitions(topic, 3);
      await produce(topic, [
        { partition: 1, value: 'p1-0' },
        { partition: 2, value: 'p2-0' },
        { partition: 2, value: 'p2-1' },
      ]);
      await until(() => sink.values.length >= 4, 'the records of the new partitions');
      assert.deepEqual([...sink.values].sort(), ['p0-0', 'p1-0', 'p2-0', 'p2-1']);
    } finally {
      await client.cancel();
    }
  });
});
