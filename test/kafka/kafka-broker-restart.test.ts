// Broker outages: a restart mid-run, a broker down when the job starts, and one that never answers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../../src/connectors/kafka/index.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';
import { CollectSink } from '../../src/connectors/collect-sink.ts';
import { waitFor } from '../support/wait-for.ts';
import {
  bootstrapServers,
  createTopic,
  produce,
  readAll,
  uniqueTopic,
  type TestRecord,
} from './kafka-test-cluster.ts';

const broker = fileURLToPath(new URL('../../scripts/kafka/broker.sh', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weir-kafka-restart-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const PER_PARTITION = 1_000;
/** Records `from` to `to` (exclusive) of both partitions: value "p<partition>-<i>". */
function records(from: number, to: number): TestRecord[] {
  const out: TestRecord[] = [];
  for (let i = from; i < to; i++) for (let p = 0; p < 2; p++) out.push({ partition: p, value: `p${p}-${i}` });
  return out;
}

const run = promisify(execFile);

/** A port nothing listens on: bound by the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * An EXACTLY_ONCE job at parallelism 2 that copies both partitions of `input`, upper-cased, into `output` and ends
 * at offset `perPartition` of each; it restarts up to 5 times and checkpoints every 100 ms.
 */
function copyJob(input: string, output: string, perPartition: number): StreamExecutionEnvironment {
  const env = StreamExecutionEnvironment.create({ parallelism: 2 });
  env.enableCheckpointing(100, { storage: join(dir, uniqueTopic('checkpoints')) });
  env.setRestartStrategy(RestartStrategies.fixedDelay(5, 500));
  const source = KafkaSource.builder<string>()
    .setBootstrapServers(bootstrapServers())
    .setTopics(input)
    .setGroupId(uniqueTopic('restart-group'))
    .setBounded(OffsetsInitializer.offsets({ [`${input}-0`]: perPartition, [`${input}-1`]: perPartition }))
    .setValueOnlyDeserializer(Deserializers.string())
    .build();
  env
    .fromSource(source, undefined, 'in')
    .map((v) => v.toUpperCase())
    .sinkTo(
      KafkaSink.builder<string>()
        .setBootstrapServers(bootstrapServers())
        .setTopic(output)
        .setRecordSerializer((v) => ({ key: v.slice(0, 2), value: v }))
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(uniqueTopic('restart-txn'))
        .build(),
      'out',
    );
  return env;
}

describe('Kafka broker restart (real broker)', { timeout: 480_000 }, () => {
  it('a job reading and writing with EXACTLY_ONCE loses and repeats nothing when the broker restarts mid-run', async () => {
    const input = uniqueTopic('restart-in');
    const output = uniqueTopic('restart-out');
    await createTopic(input, 2);
    await createTopic(output, 2);
    // The first half is there at the start; the job is bounded at the second half's end, so it is still running
    // (reading, checkpointing, committing) while the broker goes down and comes back.
    await produce(input, records(0, PER_PARTITION / 2));
    const env = copyJob(input, output, PER_PARTITION);
    const job = env.execute('broker restart');
    let failed: unknown;
    job.catch((error) => (failed = error));

    // Mid-run: some of the first half is committed downstream.
    await waitFor(
      'the first committed records',
      async () => failed !== undefined || (await readAll(output)).length > 0,
      120_000,
      200,
    );
    assert.equal(failed, undefined);
    // The same broker (ports, data) stops and starts again, while the job keeps running in this process.
    await run('bash', [broker, 'restart'], { env: process.env });
    await produce(input, records(PER_PARTITION / 2, PER_PARTITION));
    await job;

    const got = (await readAll(output)).map((r) => r.value).sort();
    const expected = records(0, PER_PARTITION)
      .map((r) => String(r.value).toUpperCase())
      .sort();
    assert.equal(got.length, expected.length, 'committed record count');
    assert.deepEqual(got, expected);
  });
  it('a job started while the broker is down waits for it, then commits every record once', async () => {
    const input = uniqueTopic('down-in');
    const output = uniqueTopic('down-out');
    await createTopic(input, 2);
    await createTopic(output, 2);
    await produce(input, records(0, 200));
    // The broker process goes away (its ports and data stay); the job starts against it, and only then does the
    // broker start again, which takes seconds of JVM start-up: the clients' first attempts meet a closed port.
    await run('bash', [broker, 'down'], { env: process.env });
    const env = copyJob(input, output, 200);
    const job = env.execute('broker down at start');
    let settled = false;
    void job.then(
      () => (settled = true),
      () => (settled = true),
    );
    await run('bash', [broker, 'up'], { env: process.env });
    assert.equal(settled, false, 'the job ended before the broker was up');
    await job;
    const got = (await readAll(output)).map((r) => r.value).sort();
    assert.deepEqual(
      got,
      records(0, 200)
        .map((r) => String(r.value).toUpperCase())
        .sort(),
    );
  });

  it(
    'a job whose broker never answers fails naming the bootstrap servers and the source',
    { timeout: 120_000 },
    async () => {
      const servers = `127.0.0.1:${await closedPort()}`;
      const env = StreamExecutionEnvironment.create({ parallelism: 1 });
      env.setRestartStrategy(RestartStrategies.noRestart());
      env
        .fromSource(
          KafkaSource.builder<string>()
            .setBootstrapServers(servers)
            .setTopics('anything')
            .setValueOnlyDeserializer(Deserializers.string())
            .build(),
          undefined,
          'orders',
        )
        .sinkTo(new CollectSink<string>());
      await assert.rejects(env.execute('no broker'), (error: Error) => {
        assert.match(
          error.message,
          new RegExp(`Kafka: connecting to ${servers.replace(/\./g, '\\.')} \\(source 'orders'\\) failed`),
        );
        return true;
      });
    },
  );
});
