// A broker restart mid-run: the job rides it out (the clients reconnect) and commits every record exactly once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

describe('Kafka broker restart (real broker)', () => {
  it('a job reading and writing with EXACTLY_ONCE loses and repeats nothing when the broker restarts mid-run', async () => {
    const input = uniqueTopic('restart-in');
    const output = uniqueTopic('restart-out');
    await createTopic(input, 2);
    await createTopic(output, 2);
    // The first half is there at the start; the job is bounded at the second half's end, so it is still running
    // (reading, checkpointing, committing) while the broker goes down and comes back.
    await produce(input, records(0, PER_PARTITION / 2));
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(100, { storage: join(dir, 'checkpoints') });
    env.setRestartStrategy(RestartStrategies.fixedDelay(5, 500));
    const source = KafkaSource.builder<string>()
      .setBootstrapServers(bootstrapServers())
      .setTopics(input)
      .setGroupId(uniqueTopic('restart-group'))
      .setBounded(
        OffsetsInitializer.offsets({ [`${input}-0`]: PER_PARTITION, [`${input}-1`]: PER_PARTITION }),
      )
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
    await promisify(execFile)('bash', [broker, 'restart'], { env: process.env });
    await produce(input, records(PER_PARTITION / 2, PER_PARTITION));
    await job;

    const got = (await readAll(output)).map((r) => r.value).sort();
    const expected = records(0, PER_PARTITION)
      .map((r) => String(r.value).toUpperCase())
      .sort();
    assert.equal(got.length, expected.length, 'committed record count');
    assert.deepEqual(got, expected);
  });
});
