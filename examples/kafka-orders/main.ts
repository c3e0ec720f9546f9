// Kafka -> Weir -> Kafka, exactly once: per-customer order totals per 10 s of event time, from topic to topic;
// orders that are not JSON go to a dead-letter topic instead of failing the job.
//
//   npm run kafka:broker start                      # prints the bootstrap address
//   WEIR_KAFKA_BOOTSTRAP=127.0.0.1:<port> node --import tsx examples/kafka-orders/main.ts [workers]
//   npm run kafka:broker stop
//
// It creates the topics `orders-<run>` (4 partitions, 10,000 orders written by a plain producer, every 2,500th
// of them garbled), `totals-<run>` and `orders-dlq-<run>`, and runs the job bounded (to the end of what the topic
// holds). With `workers` 2 its subtasks run on two worker threads; the Kafka source and sinks stay on the main
// thread (the Kafka client loads on one thread of a process) and the windows run in the workers.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OutputTag,
  StreamExecutionEnvironment,
  Time,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from '../../src/index.ts';
import {
  deadLetterRecords,
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
  type MalformedKafkaRecord,
} from '../../src/connectors/kafka/index.ts';
import { call, kafkaClient } from '../../src/connectors/kafka/kafka-client.ts';

interface Order {
  readonly customer: string;
  readonly cents: number;
}
interface Total {
  readonly customer: string;
  readonly cents: number;
  readonly orders: number;
}

const servers = process.env.WEIR_KAFKA_BOOTSTRAP;
if (servers === undefined)
  throw new Error('Set WEIR_KAFKA_BOOTSTRAP (start a broker with `npm run kafka:broker start`)');
// In worker mode every worker loads this module again to build the same job: the run's name is kept in the
// environment, which workers inherit, so they name the same topics.
const run = (process.env.WEIR_KAFKA_ORDERS_RUN ??= randomBytes(3).toString('hex'));
const ordersTopic = `orders-${run}`;
const totalsTopic = `totals-${run}`;
const deadLetterTopic = `orders-dlq-${run}`;

// Set-up, on the main thread only (a worker builds the job and attaches to its slot).
if (!StreamExecutionEnvironment.isJobWorker()) {
  // Three topics, and 10,000 orders whose Kafka timestamps step 10 ms from a fixed start.
  const admin = kafkaClient().AdminClient.create({ 'bootstrap.servers': servers });
  for (const [topic, partitions] of [
    [ordersTopic, 4],
    [totalsTopic, 2],
    [deadLetterTopic, 1],
  ] as const)
    await call(`creating ${topic}`, (cb) =>
      admin.createTopic({ topic, num_partitions: partitions, replication_factor: 1 }, 30_000, (e) =>
        cb(e, undefined),
      ),
    );
  admin.disconnect();
  const producer = new (kafkaClient().Producer)({ 'bootstrap.servers': servers });
  await call('connecting', (cb) => producer.connect({}, cb));
  for (let i = 0; i < 10_000; i++) {
    const order: Order = { customer: `c${i % 50}`, cents: 100 + ((i * 37) % 900) };
    producer.produce(
      ordersTopic,
      null,
      Buffer.from(i % 2_500 === 1_234 ? `{"customer": "c${i % 50}", "cents": ` : JSON.stringify(order)),
      order.customer,
      1_700_000_000_000 + i * 10,
    );
  }
  await call('flushing', (cb) => producer.flush(30_000, cb));
  await call('disconnecting', (cb) => producer.disconnect(10_000, cb));
}

// The job.
const garbled = new OutputTag<MalformedKafkaRecord>('garbled orders');
const env = StreamExecutionEnvironment.create({ parallelism: 2, workers: Number(process.argv[2] ?? 1) });
env.enableCheckpointing(1_000, { storage: mkdtempSync(join(tmpdir(), 'weir-kafka-orders-')) });
const orders = env.fromSource(
  KafkaSource.builder<Order>()
    .setBootstrapServers(servers)
    .setTopics(ordersTopic)
    .setGroupId(`order-totals-${run}`)
    .setStartingOffsets(OffsetsInitializer.earliest())
    .setBounded(OffsetsInitializer.latest())
    .setValueOnlyDeserializer(Deserializers.json<Order>())
    .setMalformedRecords(garbled)
    .build(),
  // The Kafka timestamp is the event time; each partition has its own watermark. Alignment keeps the two source
  // subtasks within 2 s of event time of each other, so the windows downstream do not hold the leader's orders
  // while the other catches up (it changes no result, only how much waits).
  WatermarkStrategy.forBoundedOutOfOrderness<Order>(1_000)
    .withIdleness(5_000)
    .withWatermarkAlignment('orders', 2_000, 100),
  'orders',
);
orders
  .map((o): Total => ({ customer: o.customer, cents: o.cents, orders: 1 }))
  .keyBy((t) => t.customer)
  .window(TumblingEventTimeWindows.of(Time.seconds(10)))
  .reduce((a, b) => ({ customer: a.customer, cents: a.cents + b.cents, orders: a.orders + b.orders }))
  .sinkTo(
    KafkaSink.builder<Total>()
      .setBootstrapServers(servers)
      .setTopic(totalsTopic)
      .setRecordSerializer((t) => ({ key: t.customer, value: JSON.stringify(t) }))
      .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
      .setTransactionalIdPrefix(`order-totals-${run}`)
      .build(),
    'totals',
  );
// The orders that are not JSON, byte for byte, with where they were read and why they failed in their headers.
orders
  .getSideOutput(garbled)
  .sinkTo(
    KafkaSink.builder<MalformedKafkaRecord>()
      .setBootstrapServers(servers)
      .setRecordSerializer(deadLetterRecords(deadLetterTopic))
      .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
      .setTransactionalIdPrefix(`order-dead-letters-${run}`)
      .build(),
    'dead letters',
  );
const result = await env.execute('kafka order totals');
console.log(
  `job finished in ${result.netRuntimeMs} ms; totals are committed to ${totalsTopic}, the garbled orders to ${deadLetterTopic}`,
);
