// TLS against a real broker: KafkaSink and KafkaSource over a mutual-TLS listener with certificates made at start.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { CollectionSource } from '../../src/connectors/collection-source.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../../src/connectors/kafka/index.ts';
import { createTopic, readAll, tlsListener, uniqueTopic } from './kafka-test-cluster.ts';

describe('Kafka over TLS (real broker)', { timeout: 120_000 }, () => {
  it('writes with EXACTLY_ONCE and reads back through setTls, the broker checking the client certificate', async () => {
    const { bootstrap, dir } = tlsListener();
    const tls = {
      caLocation: join(dir, 'ca.pem'),
      certificateLocation: join(dir, 'client.pem'),
      keyLocation: join(dir, 'client.key'),
    };
    const topic = uniqueTopic('tls');
    await createTopic(topic, 2);

    const write = StreamExecutionEnvironment.create({ parallelism: 1 });
    write.fromSource(new CollectionSource(['alpha', 'beta', 'gamma', 'delta']), undefined, 'words').sinkTo(
      KafkaSink.builder<string>()
        .setBootstrapServers(bootstrap)
        .setTls(tls)
        .setTopic(topic)
        .setRecordSerializer((word) => ({ key: word, value: word.toUpperCase() }))
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(uniqueTopic('tls-txn'))
        .build(),
      'kafka',
    );
    await write.execute('write over TLS');
    // Read back over the plaintext listener: what went through TLS is on the broker, committed.
    assert.deepEqual((await readAll(topic)).map((r) => `${r.key}=${r.value}`).sort(), [
      'alpha=ALPHA',
      'beta=BETA',
      'delta=DELTA',
      'gamma=GAMMA',
    ]);

    const read = StreamExecutionEnvironment.create({ parallelism: 2 });
    const source = KafkaSource.builder<string>()
      .setBootstrapServers(bootstrap)
      .setTls(tls)
      .setTopics(topic)
      .setGroupId(uniqueTopic('tls-group'))
      .setBounded(OffsetsInitializer.latest())
      .setValueOnlyDeserializer(Deserializers.string())
      .build();
    const values = await read.fromSource(source, undefined, 'kafka').executeAndCollect();
    assert.deepEqual(values.sort(), ['ALPHA', 'BETA', 'DELTA', 'GAMMA']);
  });
});
