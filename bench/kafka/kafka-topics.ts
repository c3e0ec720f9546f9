// The Kafka comparison's topic chores with the raw client: create and delete topics, fill the input, and read an
// output topic back with read_committed into a count and checksum.
import { randomBytes } from 'node:crypto';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type ClientProducer,
} from '../../src/connectors/kafka/kafka-client.ts';
import { hashValue, orderAt, partitionOf, type TopicChecksum } from './kafka-records.ts';

export async function createTopic(servers: string, topic: string, partitions: number): Promise<void> {
  const admin = kafkaClient().AdminClient.create({ 'bootstrap.servers': servers });
  try {
    await call(`creating topic ${topic}`, (cb) =>
      admin.createTopic({ topic, num_partitions: partitions, replication_factor: 1 }, 30_000, (e) =>
        cb(e, undefined),
      ),
    );
  } finally {
    admin.disconnect();
  }
}

/** Deletes a topic, so repeated runs do not fill the broker's disk (an output of 1M records is ~80 MB). */
export async function deleteTopic(servers: string, topic: string): Promise<void> {
  const admin = kafkaClient().AdminClient.create({ 'bootstrap.servers': servers });
  try {
    await call(`deleting topic ${topic}`, (cb) => admin.deleteTopic(topic, 30_000, (e) => cb(e, undefined)));
  } finally {
    admin.disconnect();
  }
}

/** Writes orders 0 … count-1 (see kafka-records.ts) and waits until the broker acknowledged all of them. */
export async function fillOrders(
  servers: string,
  topic: string,
  count: number,
  partitions: number,
): Promise<void> {
  const producer: ClientProducer = new (kafkaClient().Producer)({
    'bootstrap.servers': servers,
    'enable.idempotence': true,
    'linger.ms': 20,
    dr_cb: true,
  });
  await call<ClientMetadata>('connecting the input producer', (cb) =>
    producer.connect({ timeout: 30_000 }, cb),
  );
  try {
    let failed: Error | undefined;
    producer.on('delivery-report', (error) => {
      if (error) failed ??= error;
    });
    for (let i = 0; i < count; i++) {
      const order = orderAt(i);
      const value = Buffer.from(JSON.stringify(order));
      for (;;) {
        try {
          producer.produce(topic, partitionOf(i, partitions), value, order.user, null);
          break;
        } catch {
          // librdkafka's local queue is full: let it drain to the broker, then go on.
          await call('flushing the input producer', (cb) => producer.flush(60_000, cb));
        }
      }
    }
    await call('flushing the input producer', (cb) => producer.flush(120_000, cb));
    if (failed !== undefined) throw failed;
  } finally {
    await call('disconnecting the input producer', (cb) => producer.disconnect(10_000, cb));
  }
}

async function connectConsumer(servers: string, isolation: string): Promise<ClientConsumer> {
  const consumer: ClientConsumer = new (kafkaClient().KafkaConsumer)(
    {
      'bootstrap.servers': servers,
      'group.id': `bench-reader-${randomBytes(4).toString('hex')}`,
      'enable.auto.commit': false,
      'isolation.level': isolation,
    },
    { 'auto.offset.reset': 'earliest' },
  );
  await call<ClientMetadata>('connecting the reader', (cb) => consumer.connect({ timeout: 30_000 }, cb));
  return consumer;
}

/** The high watermark of every partition (the offset after its last record or transaction marker). */
async function highWatermarks(servers: string, topic: string): Promise<Map<number, number>> {
  const consumer = await connectConsumer(servers, 'read_uncommitted');
  try {
    const metadata = await call<ClientMetadata>('reading metadata', (cb) =>
      consumer.getMetadata({ topic, timeout: 30_000 }, cb),
    );
    const ends = new Map<number, number>();
    const found = metadata.topics.find((t) => t.name === topic);
    if (found === undefined) throw new Error(`topic ${topic} does not exist`);
    for (const p of found.partitions) {
      const w = await call<{ lowOffset: number; highOffset: number }>('querying offsets', (cb) =>
        consumer.queryWatermarkOffsets(topic, p.id, 30_000, cb),
      );
      ends.set(p.id, w.highOffset);
    }
    return ends;
  } finally {
    await call('disconnecting the reader', (cb) => consumer.disconnect(cb));
  }
}

/**
 * Reads a topic to its current end with isolation.level=read_committed, as a consumer downstream of an
 * exactly-once job would (open and aborted transactions stay invisible), into a count and checksum.
 */
export async function readChecksum(servers: string, topic: string): Promise<TopicChecksum> {
  const ends = await highWatermarks(servers, topic);
  const consumer = await connectConsumer(servers, 'read_committed');
  try {
    const partitions = [...ends.keys()];
    consumer.assign(partitions.map((partition) => ({ topic, partition, offset: 0 })));
    consumer.setDefaultConsumeTimeout(100);
    const position = () => consumer.position(partitions.map((partition) => ({ topic, partition })));
    // An empty partition has no position before its first fetch: it is done at once.
    const done = () => position().every((p) => Math.max(p.offset ?? 0, 0) >= ends.get(p.partition)!);
    let count = 0;
    let checksum = 0;
    let lastProgress = Date.now();
    while (!done()) {
      const batch = await call<ClientMessage[]>('consuming', (cb) => consumer.consume(5_000, cb));
      for (const m of batch) {
        count++;
        checksum = (checksum + hashValue(m.value === null ? '' : m.value.toString())) | 0;
      }
      if (batch.length > 0) lastProgress = Date.now();
      else if (Date.now() - lastProgress > 60_000)
        throw new Error(
          `reading ${topic} stalled for 60 s at ${JSON.stringify(position())}, end ${JSON.stringify([...ends])}`,
        );
    }
    return { count, checksum: checksum >>> 0 };
  } finally {
    await call('disconnecting the reader', (cb) => consumer.disconnect(cb));
  }
}
