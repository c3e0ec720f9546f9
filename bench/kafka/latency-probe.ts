// The latency probe, a process of its own so its timing never waits on the job's event loop: it writes the orders
// of kafka-records.ts to the input topic at a fixed rate while a job runs, and reads the job's output topic with
// read_committed, timing each output record from its Kafka timestamp (the input record's send time, which both
// sinks carry over) to the moment this consumer holds it.
//
//   node --import tsx bench/kafka/latency-probe.ts <servers> <input> <output> <records> <rate/s> <partitions> <warm>
//
// The first <warm> orders are written at once; the paced stream starts when the first output arrives (the job is
// up), and only its records are timed, so job start-up is not counted as latency. Prints one JSON line at the end.
import { randomBytes } from 'node:crypto';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type ClientProducer,
} from '../../src/connectors/kafka/kafka-client.ts';
import { orderAt, partitionOf } from './kafka-records.ts';

const [servers, input, output, recordsArg, rateArg, partitionsArg, warmArg] = process.argv.slice(2);
if (warmArg === undefined)
  throw new Error('usage: latency-probe.ts servers input output records rate partitions warm');
const records = Number(recordsArg);
const rate = Number(rateArg);
const partitions = Number(partitionsArg);
const warm = Number(warmArg);

const producer: ClientProducer = new (kafkaClient().Producer)({
  'bootstrap.servers': servers!,
  'enable.idempotence': true,
  // Each record leaves at once: the latency measured starts at the send.
  'linger.ms': 0,
  dr_cb: true,
});
const consumer: ClientConsumer = new (kafkaClient().KafkaConsumer)(
  {
    'bootstrap.servers': servers!,
    'group.id': `bench-latency-${randomBytes(4).toString('hex')}`,
    'enable.auto.commit': false,
    'isolation.level': 'read_committed',
  },
  { 'auto.offset.reset': 'earliest' },
);
await call<ClientMetadata>('connecting the probe producer', (cb) =>
  producer.connect({ timeout: 30_000 }, cb),
);
await call<ClientMetadata>('connecting the probe consumer', (cb) =>
  consumer.connect({ timeout: 30_000 }, cb),
);
let failed: Error | undefined;
producer.on('delivery-report', (error) => {
  if (error) failed ??= error;
});
consumer.assign(
  Array.from({ length: partitions }, (_, partition) => ({ topic: output!, partition, offset: 0 })),
);
consumer.setDefaultConsumeTimeout(5);
// By default a batch waits up to the timeout for each further record, so at a trickle it fills for a whole batch
// of arrivals before returning; the probe must hand each record over as soon as it is there.
consumer.setDefaultIsTimeoutOnlyForFirstMessage(true);

let sent = 0;
const send = (until: number): void => {
  for (; sent < until; sent++) {
    const order = orderAt(sent);
    // The timestamp is the send time; the job's sink writes it on the output record.
    producer.produce(
      input!,
      partitionOf(sent, partitions),
      Buffer.from(JSON.stringify(order)),
      order.user,
      Date.now(),
    );
  }
};
send(warm);
process.stdout.write(`${JSON.stringify({ type: 'ready' })}\n`);

let pacedFrom: number | undefined;
let pacer: NodeJS.Timeout | undefined;
const latencies = new Float64Array(records - warm);
let timed = 0;
let seen = 0;
let lastProgress = Date.now();
while (seen < records) {
  const batch = await call<ClientMessage[]>('consuming the output', (cb) => consumer.consume(1_000, cb));
  const now = Date.now();
  for (const m of batch) {
    seen++;
    const id = (JSON.parse(m.value!.toString()) as { id: number }).id;
    if (id >= warm && m.timestamp !== undefined) latencies[timed++] = now - m.timestamp;
  }
  if (batch.length > 0) lastProgress = now;
  else if (now - lastProgress > 120_000)
    throw new Error(`no output for 120 s after ${seen} of ${records} records`);
  if (failed !== undefined) throw failed;
  if (pacedFrom === undefined && seen > 0) {
    // The job is up: pace the rest at `rate` records/s from now, catching up on the clock, not on the timer.
    const start = Date.now();
    pacedFrom = start;
    pacer = setInterval(() => {
      send(Math.min(records, warm + Math.floor(((Date.now() - start) * rate) / 1000)));
      if (sent >= records) clearInterval(pacer);
    }, 5);
  }
}
clearInterval(pacer);
await call('flushing the probe producer', (cb) => producer.flush(30_000, cb));
await call('disconnecting the probe producer', (cb) => producer.disconnect(10_000, cb));
await call('disconnecting the probe consumer', (cb) => consumer.disconnect(cb));
const sorted = latencies.subarray(0, timed).sort();
const at = (q: number): number => sorted[Math.min(timed - 1, Math.floor(q * timed))]!;
process.stdout.write(
  `${JSON.stringify({ type: 'latency', timed, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[timed - 1] })}\n`,
);
