// Cluster mode's throughput: the same job as 1 process and as 2 processes, over one preloaded Kafka topic.
//
//   WEIR_KAFKA_BOOTSTRAP=<broker> node --import tsx bench/kafka/cluster-throughput.ts [records] [runs]
//
// The job is bench/kafka/changelog-job.ts (a 4-partition topic → keyBy → a running count per key, its state in
// the changelog → KafkaSink exactly once, 8 tasks, 100 ms commits), started as child processes
// (UV_THREADPOOL_SIZE=32). Each run uses a fresh job id and
// output topic over the same input; the figure is records over the time from the first output record a
// read_committed reader sees to the last (process start and the group's first rebalance left out). Runs of 1 and
// 2 processes alternate; the machine's load is printed with the results.
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  call,
  kafkaClient,
  type ClientMessage,
  type ClientMetadata,
} from '../../src/connectors/kafka/kafka-client.ts';
import { bootstrapServers, createTopic, produce, uniqueTopic } from '../../test/kafka/kafka-test-cluster.ts';

const jobFile = fileURLToPath(new URL('./changelog-job.ts', import.meta.url));
const records = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 3);
const PARTITIONS = 4;

/** Reads the output topic with read_committed until `count` records arrived; first and last arrival times. */
async function tail(topic: string, count: number): Promise<{ first: number; last: number }> {
  const { KafkaConsumer } = kafkaClient();
  const consumer = new KafkaConsumer(
    {
      'bootstrap.servers': bootstrapServers(),
      'group.id': uniqueTopic('bench-tail'),
      'enable.auto.commit': false,
      'isolation.level': 'read_committed',
    },
    { 'auto.offset.reset': 'earliest' },
  );
  await call<ClientMetadata>('connecting', (cb) => consumer.connect({ timeout: 30_000 }, cb));
  consumer.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, offset: 0 })));
  consumer.setDefaultConsumeTimeout(50);
  let seen = 0;
  let first = 0;
  let last = 0;
  const deadline = performance.now() + 600_000;
  while (seen < count) {
    if (performance.now() > deadline) throw new Error(`saw ${seen} of ${count} records in 10 minutes`);
    const batch = await call<ClientMessage[]>('tailing', (cb) => consumer.consume(5_000, cb));
    if (batch.length === 0) continue;
    if (seen === 0) first = performance.now();
    seen += batch.length;
    last = performance.now();
  }
  await call('disconnecting', (cb) => consumer.disconnect(cb));
  return { first, last };
}

async function run(input: string, processes: number): Promise<number> {
  const output = uniqueTopic('bench-cluster-out');
  const jobId = uniqueTopic('bench-cluster');
  await createTopic(output, PARTITIONS);
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i++)
    children.push(
      spawn(process.execPath, ['--import', 'tsx', jobFile, bootstrapServers(), jobId, input, output], {
        stdio: 'ignore',
        env: { ...process.env, UV_THREADPOOL_SIZE: '32', WEIR_LOG_LEVEL: 'warn' },
      }),
    );
  try {
    const { first, last } = await tail(output, records);
    return records / ((last - first) / 1000);
  } finally {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const input = uniqueTopic('bench-cluster-in');
await createTopic(input, PARTITIONS);
for (let from = 0; from < records; from += 50_000) {
  const batch = Array.from({ length: Math.min(50_000, records - from) }, (_, i) => {
    const id = from + i;
    return { partition: (id % 1000) % PARTITIONS, value: JSON.stringify({ id, key: `k${id % 1000}` }) };
  });
  await produce(input, batch);
}
const rates: Record<number, number[]> = { 1: [], 2: [] };
for (let r = 0; r < runs; r++)
  for (const processes of [1, 2]) {
    const rate = await run(input, processes);
    rates[processes]!.push(rate);
    process.stdout.write(`run ${r + 1}, ${processes} process(es): ${Math.round(rate)} records/s\n`);
  }
const [one, two] = [median(rates[1]!), median(rates[2]!)];
process.stdout.write(
  `${records} records, ${runs} runs each, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n` +
    `1 process: median ${Math.round(one)}/s (${rates[1]!.map(Math.round).join(', ')})\n` +
    `2 processes: median ${Math.round(two)}/s (${rates[2]!.map(Math.round).join(', ')}), ratio ${(two / one).toFixed(2)}\n`,
);
