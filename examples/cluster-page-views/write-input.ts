// Creates the page-views example's topics and writes its sample views: the input the cluster-mode job reads.
//
//   WEIR_KAFKA_BOOTSTRAP=127.0.0.1:<port> node --import tsx examples/cluster-page-views/write-input.ts \
//     [input topic, default page-views] [output topic, default page-view-counts] [views, default 6000]
import { pathToFileURL } from 'node:url';
import { call, kafkaClient } from '../../src/connectors/kafka/kafka-client.ts';
import { SAMPLE_PARTITIONS, samplePageViews } from './page-views.ts';

/** Creates the input topic (4 partitions) and the output topic (2) unless they exist. */
export async function createTopics(servers: string, input: string, output: string): Promise<void> {
  const admin = kafkaClient().AdminClient.create({ 'bootstrap.servers': servers });
  try {
    for (const [topic, partitions] of [
      [input, SAMPLE_PARTITIONS],
      [output, 2],
    ] as const)
      await call(`creating topic ${topic}`, (cb) =>
        admin.createTopic({ topic, num_partitions: partitions, replication_factor: 1 }, 30_000, (error) =>
          // 36: TOPIC_ALREADY_EXISTS, from an earlier run.
          cb(error?.code === 36 ? null : error, undefined),
        ),
      );
  } finally {
    admin.disconnect();
  }
}

/** Writes `count` sample views, each into its partition, and waits until the broker acknowledged them. */
export async function writeSampleViews(servers: string, input: string, count: number): Promise<void> {
  const producer = new (kafkaClient().Producer)({ 'bootstrap.servers': servers, 'enable.idempotence': true });
  await call('connecting', (cb) => producer.connect({ timeout: 30_000 }, cb));
  try {
    for (const { partition, view } of samplePageViews(count))
      producer.produce(input, partition, Buffer.from(JSON.stringify(view)), view.user, view.ts);
    await call('flushing', (cb) => producer.flush(30_000, cb));
  } finally {
    await call('disconnecting', (cb) => producer.disconnect(10_000, cb));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const servers = process.env.WEIR_KAFKA_BOOTSTRAP;
  if (servers === undefined || servers === '')
    throw new Error('Set WEIR_KAFKA_BOOTSTRAP (start a broker with `npm run kafka:broker start`)');
  const [input = 'page-views', output = 'page-view-counts', views = '6000'] = process.argv.slice(2);
  await createTopics(servers, input, output);
  await writeSampleViews(servers, input, Number(views));
  console.log(`wrote ${views} page views to ${input}; the counts go to ${output}`);
}
