// Kafka throughput: Weir's KafkaSource and KafkaSink against the raw client on the same broker and topic.
//
//   WEIR_KAFKA_BOOTSTRAP=127.0.0.1:<port> node --import tsx bench/kafka-throughput.ts [records] [runs]
//
// Isolates the connector overhead: raw = librdkafka through @confluentinc/kafka-javascript alone (produce and
// flush; assign and consume to the end); Weir = a GeneratorSource into KafkaSink (NONE), and a bounded KafkaSource
// into a sink that discards. ~40-byte JSON values, 4 partitions. Prints the median and range of records/s.
import { randomBytes } from 'node:crypto';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../src/connectors/generator-source.ts';
import {
  call,
  kafkaClient,
  type ClientMessage,
  type ClientMetadata,
} from '../src/connectors/kafka/kafka-client.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../src/connectors/kafka/index.ts';

const servers = process.env.WEIR_KAFKA_BOOTSTRAP;
if (servers === undefined) throw new Error('Set WEIR_KAFKA_BOOTSTRAP (npm run kafka:broker start)');
const count = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 3);
const value = (i: number) => `{"id":${i},"user":"u${i % 1000}","amount":${i % 97}}`;

async function topic(): Promise<string> {
  const name = `bench-${randomBytes(4).toString('hex')}`;
  const admin = kafkaClient().AdminClient.create({ 'bootstrap.servers': servers! });
  await call('create', (cb) =>
    admin.createTopic({ topic: name, num_partitions: 4, replication_factor: 1 }, 30_000, (e) =>
      cb(e, undefined),
    ),
  );
  admin.disconnect();
  return name;
}

async function rawProduce(name: string): Promise<number> {
  const producer = new (kafkaClient().Producer)({ 'bootstrap.servers': servers!, 'linger.ms': 5 });
  await call<ClientMetadata>('connect', (cb) => producer.connect({}, cb));
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    for (;;) {
      try {
        producer.produce(name, null, Buffer.from(value(i)), null, null);
        break;
      } catch {
        await call('flush', (cb) => producer.flush(30_000, cb));
      }
    }
  }
  await call('flush', (cb) => producer.flush(60_000, cb));
  const ms = performance.now() - start;
  await call('disconnect', (cb) => producer.disconnect(10_000, cb));
  return (count / ms) * 1000;
}

async function rawConsume(name: string): Promise<number> {
  const consumer = new (kafkaClient().KafkaConsumer)({ 'bootstrap.servers': servers!, 'group.id': name }, {});
  await call<ClientMetadata>('connect', (cb) => consumer.connect({}, cb));
  consumer.setDefaultConsumeTimeout(50);
  const start = performance.now();
  consumer.assign([0, 1, 2, 3].map((partition) => ({ topic: name, partition, offset: 0 })));
  let seen = 0;
  while (seen < count)
    seen += (await call<ClientMessage[]>('consume', (cb) => consumer.consume(2000, cb))).length;
  const ms = performance.now() - start;
  await call('disconnect', (cb) => consumer.disconnect(cb));
  return (count / ms) * 1000;
}

async function weirSink(name: string): Promise<number> {
  const env = StreamExecutionEnvironment.create({ parallelism: 1 });
  env
    .fromSource(
      GeneratorSource.of(count, (i) => i),
      undefined,
      'numbers',
    )
    .sinkTo(
      KafkaSink.builder<number>()
        .setBootstrapServers(servers!)
        .setTopic(name)
        .setRecordSerializer((i) => ({ value: value(i) }))
        .setDeliveryGuarantee(DeliveryGuarantee.NONE)
        .build(),
    );
  const start = performance.now();
  await env.execute('sink bench');
  return (count / (performance.now() - start)) * 1000;
}

async function weirSource(name: string): Promise<number> {
  const env = StreamExecutionEnvironment.create({ parallelism: 1 });
  let seen = 0;
  env
    .fromSource(
      KafkaSource.builder<string>()
        .setBootstrapServers(servers!)
        .setTopics(name)
        .setBounded(OffsetsInitializer.latest())
        .setValueOnlyDeserializer(Deserializers.string())
        .build(),
      undefined,
      'kafka',
    )
    .sinkTo({ createWriter: () => ({ write: () => void seen++ }) });
  const start = performance.now();
  await env.execute('source bench');
  if (seen !== count) throw new Error(`read ${seen} records, expected ${count}`);
  return (count / (performance.now() - start)) * 1000;
}

const results: Record<string, number[]> = {
  'raw produce': [],
  'KafkaSink NONE': [],
  'raw consume': [],
  KafkaSource: [],
};
for (let r = 0; r < runs; r++) {
  const a = await topic();
  results['raw produce']!.push(await rawProduce(a));
  results['raw consume']!.push(await rawConsume(a));
  results['KafkaSource']!.push(await weirSource(a));
  const b = await topic();
  results['KafkaSink NONE']!.push(await weirSink(b));
}
for (const [name, values] of Object.entries(results)) {
  const sorted = [...values].sort((x, y) => x - y);
  const k = (v: number) => `${Math.round(v / 1000)}k`;
  console.log(
    `${name.padEnd(16)} median ${k(sorted[Math.floor(sorted.length / 2)]!)}/s  range ${k(sorted[0]!)}-${k(sorted.at(-1)!)}/s`,
  );
}
