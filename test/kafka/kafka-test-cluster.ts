// The Kafka broker the integration tests run against, and small helpers to create, fill and read topics.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type ClientProducer,
} from '../../src/connectors/kafka/kafka-client.ts';

const execFileAsync = promisify(execFile);
const brokerScript = fileURLToPath(new URL('../../scripts/kafka/broker.sh', import.meta.url));

/**
 * Runs `action` with the test broker paused (`scripts/kafka/broker.sh pause`: it keeps its connections and
 * answers nothing, as a hung broker), and resumes it afterwards, also when `action` fails.
 */
export async function whileBrokerPaused<R>(action: () => Promise<R>): Promise<R> {
  await execFileAsync('bash', [brokerScript, 'pause'], { env: process.env });
  try {
    return await action();
  } finally {
    await execFileAsync('bash', [brokerScript, 'resume'], { env: process.env });
  }
}

/**
 * The broker's address, from WEIR_KAFKA_BOOTSTRAP (set by `npm run test:kafka`, which starts a real Apache Kafka
 * broker with scripts/kafka/broker.sh). Without it the tests fail at once, saying how to run them.
 */
export function bootstrapServers(): string {
  const servers = process.env.WEIR_KAFKA_BOOTSTRAP;
  if (servers === undefined || servers === '') {
    throw new Error(
      'The Kafka integration tests need a broker: run them with `npm run test:kafka` (it starts and stops one), ' +
        'or start one with `npm run kafka:broker start` and set WEIR_KAFKA_BOOTSTRAP to the address it prints.',
    );
  }
  return servers;
}

/**
 * The broker's TLS listener (mutual TLS) and the directory of the certificates generated when it started: ca.pem,
 * client.pem, client.key (WEIR_KAFKA_TLS_BOOTSTRAP and WEIR_KAFKA_TLS_DIR, set by `npm run test:kafka`).
 */
export function tlsListener(): { readonly bootstrap: string; readonly dir: string } {
  const bootstrap = process.env.WEIR_KAFKA_TLS_BOOTSTRAP;
  const dir = process.env.WEIR_KAFKA_TLS_DIR;
  if (bootstrap === undefined || bootstrap === '' || dir === undefined || dir === '') {
    throw new Error(
      'The TLS test needs the broker started by `npm run test:kafka` (or `npm run kafka:broker start`, then set ' +
        'WEIR_KAFKA_TLS_BOOTSTRAP and WEIR_KAFKA_TLS_DIR to what `npm run kafka:broker tls` prints).',
    );
  }
  return { bootstrap, dir };
}

/** A topic name no other test (or earlier run) uses. */
export function uniqueTopic(name: string): string {
  return `${name}-${randomBytes(4).toString('hex')}`;
}

/** Creates a topic (one replica, on the test broker, unless told otherwise). */
export async function createTopic(
  topic: string,
  partitions: number,
  on: { readonly servers?: string; readonly replicationFactor?: number } = {},
): Promise<void> {
  const admin = kafkaClient().AdminClient.create({ 'bootstrap.servers': on.servers ?? bootstrapServers() });
  try {
    await call(`creating topic ${topic}`, (cb) =>
      admin.createTopic(
        { topic, num_partitions: partitions, replication_factor: on.replicationFactor ?? 1 },
        30_000,
        (e) => cb(e, undefined),
      ),
    );
  } finally {
    admin.disconnect();
  }
}

/** Adds partitions to a topic (for discovery tests). */
export async function addPartitions(topic: string, total: number): Promise<void> {
  const admin = kafkaClient().AdminClient.create({ 'bootstrap.servers': bootstrapServers() });
  try {
    await call(`growing topic ${topic}`, (cb) =>
      admin.createPartitions(topic, total, 30_000, (e) => cb(e, undefined)),
    );
  } finally {
    admin.disconnect();
  }
}

/** A record to write with {@link produce}. */
export interface TestRecord {
  readonly partition: number;
  readonly value: string | Buffer;
  readonly key?: string | Buffer;
  readonly timestamp?: number;
}

/**
 * A connected producer for the tests. Connecting reads metadata from one broker; one just killed (the cluster
 * failure test kills brokers) can leave that read waiting out its timeout, so a failed connect is tried again, on
 * a new client, up to 3 times.
 */
async function connectedProducer(servers: string): Promise<ClientProducer> {
  const { Producer } = kafkaClient();
  for (let attempt = 1; ; attempt++) {
    const producer: ClientProducer = new Producer({
      'bootstrap.servers': servers,
      'enable.idempotence': true,
      'linger.ms': 5,
      dr_cb: true,
    });
    try {
      await call<ClientMetadata>('connecting the test producer', (cb) =>
        producer.connect({ timeout: 30_000 }, cb),
      );
      return producer;
    } catch (error) {
      await call('disconnecting the test producer', (cb) => producer.disconnect(1_000, cb)).catch(() => {});
      if (attempt === 3) throw error;
    }
  }
}

/** Writes records (in order, per partition) and waits until the broker acknowledged all of them. */
export async function produce(
  topic: string,
  records: readonly TestRecord[],
  servers = bootstrapServers(),
): Promise<void> {
  const producer = await connectedProducer(servers);
  try {
    let failed: Error | undefined;
    producer.on('delivery-report', (error) => {
      if (error) failed ??= error;
    });
    for (const r of records) {
      producer.produce(
        topic,
        r.partition,
        typeof r.value === 'string' ? Buffer.from(r.value) : r.value,
        r.key ?? null,
        r.timestamp ?? null,
      );
    }
    // As long as librdkafka's own bound on a message (message.timeout.ms, 300 s) allows, within reason: a write
    // just after a broker died waits for the partitions' new leaders.
    await call('flushing the test producer', (cb) => producer.flush(120_000, cb));
    if (failed !== undefined) throw failed;
  } finally {
    await call('disconnecting the test producer', (cb) => producer.disconnect(10_000, cb));
  }
}

/** One record as read back. */
export interface ReadRecord {
  readonly partition: number;
  readonly offset: number;
  readonly key: string | null;
  readonly value: string;
  readonly timestamp: number | undefined;
  /** Headers in order, values as UTF-8 text. */
  readonly headers: readonly (readonly [string, string])[];
}

/**
 * Reads every record of a topic up to its current end with `isolation.level=read_committed`, as a downstream
 * consumer of an exactly-once sink would: aborted and open transactions stay invisible.
 */
export async function readAll(
  topic: string,
  isolation = 'read_committed',
  servers = bootstrapServers(),
): Promise<ReadRecord[]> {
  // The end is the high watermark as a read_uncommitted client sees it: reading to there with read_committed
  // waits until every transaction in the topic is decided (its markers written), which a commit returns before.
  return readTo(topic, isolation, servers, await highWatermarks(topic, servers));
}

/**
 * What a read_committed consumer can read now, without waiting for transactions still open: the records up to
 * each partition's last stable offset. A transaction just committed may not be readable yet (its markers are
 * written after the commit returns).
 */
export async function readStable(topic: string, servers = bootstrapServers()): Promise<ReadRecord[]> {
  return readTo(topic, 'read_committed', servers, await highWatermarks(topic, servers, 'read_committed'));
}

async function readTo(
  topic: string,
  isolation: string,
  servers: string,
  ends: Map<number, number>,
): Promise<ReadRecord[]> {
  const consumer = await connectConsumer(isolation, servers);
  try {
    const partitions = [...ends.keys()];
    consumer.assign(partitions.map((partition) => ({ topic, partition, offset: 0 })));
    consumer.setDefaultConsumeTimeout(100);
    const records: ReadRecord[] = [];
    const deadline = Date.now() + 60_000;
    const position = () => consumer.position(partitions.map((partition) => ({ topic, partition })));
    // Before its first fetch a partition has no position (an empty partition is done at once).
    const done = () => position().every((pos) => Math.max(pos.offset ?? 0, 0) >= ends.get(pos.partition)!);
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(
          `reading ${topic} did not reach its end within 60 s: at ${JSON.stringify(position())}, end ${JSON.stringify([...ends])}`,
        );
      const batch = await call<ClientMessage[]>('consuming', (cb) => consumer.consume(1000, cb));
      for (const m of batch) {
        records.push({
          partition: m.partition,
          offset: m.offset,
          key: m.key === null || m.key === undefined ? null : m.key.toString(),
          value: m.value === null ? '' : m.value.toString(),
          timestamp: m.timestamp,
          headers: (m.headers ?? []).flatMap((h) =>
            Object.entries(h).map(([k, v]) => [k, v.toString()] as const),
          ),
        });
      }
    }
    return records;
  } finally {
    await call('disconnecting the test consumer', (cb) => consumer.disconnect(cb));
  }
}

async function connectConsumer(isolation: string, servers: string): Promise<ClientConsumer> {
  const { KafkaConsumer } = kafkaClient();
  const consumer: ClientConsumer = new KafkaConsumer(
    {
      'bootstrap.servers': servers,
      'group.id': `reader-${randomBytes(4).toString('hex')}`,
      'enable.auto.commit': false,
      'isolation.level': isolation,
    },
    { 'auto.offset.reset': 'earliest' },
  );
  await call<ClientMetadata>('connecting the test consumer', (cb) =>
    consumer.connect({ timeout: 30_000 }, cb),
  );
  return consumer;
}

/**
 * The high watermark of every partition of a topic (the offset after its last record or marker); with
 * `read_committed`, the last stable offset instead (the first offset of the oldest transaction still open).
 */
export async function highWatermarks(
  topic: string,
  servers = bootstrapServers(),
  isolation = 'read_uncommitted',
): Promise<Map<number, number>> {
  const consumer = await connectConsumer(isolation, servers);
  try {
    const metadata = await call<ClientMetadata>('reading metadata', (cb) =>
      consumer.getMetadata({ topic, timeout: 30_000 }, cb),
    );
    const ends = new Map<number, number>();
    for (const p of metadata.topics.find((t) => t.name === topic)!.partitions) {
      const w = await call<{ lowOffset: number; highOffset: number }>('querying offsets', (cb) =>
        consumer.queryWatermarkOffsets(topic, p.id, 30_000, cb),
      );
      ends.set(p.id, w.highOffset);
    }
    return ends;
  } finally {
    await call('disconnecting the test consumer', (cb) => consumer.disconnect(cb));
  }
}
