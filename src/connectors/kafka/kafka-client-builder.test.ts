// KafkaClientBuilder: the client settings both Kafka builders share, validated when the source or sink is built.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigurationError } from '../../core/errors.ts';
import { Deserializers } from './kafka-record-deserializer.ts';
import { KafkaSink } from './kafka-sink.ts';
import { KafkaSource } from './kafka-source.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-kafka-tls-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => {
  const path = join(dir, name);
  writeFileSync(path, '-----BEGIN CERTIFICATE-----\n');
  return path;
};
const ca = file('ca.pem');
const cert = file('client.pem');
const key = file('client.key');

const source = () =>
  KafkaSource.builder<string>().setTopics('t').setValueOnlyDeserializer(Deserializers.string());
const sink = () =>
  KafkaSink.builder<string>()
    .setTopic('t')
    .setRecordSerializer((v) => ({ value: v }));

describe('KafkaClientBuilder', () => {
  it('source and sink both refuse to build without bootstrap servers, naming themselves', () => {
    assert.throws(() => source().build(), /KafkaSource: the bootstrap servers are not set/);
    assert.throws(() => sink().build(), /KafkaSink: the bootstrap servers are not set/);
  });

  it('passes properties through unchanged when no TLS or SASL shortcut is used', () => {
    const built = source()
      .setBootstrapServers('b:9092')
      .setProperties({ 'security.protocol': 'ssl', 'ssl.ca.location': ca })
      .setProperty('fetch.min.bytes', 1)
      .build();
    assert.deepEqual(built.config.properties, {
      'bootstrap.servers': 'b:9092',
      'security.protocol': 'ssl',
      'ssl.ca.location': ca,
      'fetch.min.bytes': 1,
    });
  });

  it('setTls: SSL with the CA, the client certificate and key, and hostname verification off on request', () => {
    for (const builder of [source(), sink()]) {
      const built = builder
        .setBootstrapServers('b:9093')
        .setTls({ caLocation: ca, certificateLocation: cert, keyLocation: key, keyPassword: 'pw' })
        .build();
      assert.deepEqual(built.config.properties, {
        'bootstrap.servers': 'b:9093',
        'security.protocol': 'ssl',
        'ssl.ca.location': ca,
        'ssl.certificate.location': cert,
        'ssl.key.location': key,
        'ssl.key.password': 'pw',
      });
    }
    const unverified = sink().setBootstrapServers('b').setTls({ verifyHostname: false }).build();
    assert.equal(unverified.config.properties['ssl.endpoint.identification.algorithm'], 'none');
    assert.equal(unverified.config.properties['security.protocol'], 'ssl');
  });

  it('setSasl alone is SASL_PLAINTEXT; with setTls, SASL_SSL', () => {
    const plain = source()
      .setBootstrapServers('b')
      .setSasl({ mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' })
      .build();
    assert.deepEqual(plain.config.properties, {
      'bootstrap.servers': 'b',
      'security.protocol': 'sasl_plaintext',
      'sasl.mechanisms': 'SCRAM-SHA-512',
      'sasl.username': 'u',
      'sasl.password': 'p',
    });
    const both = sink()
      .setBootstrapServers('b')
      .setSasl({ mechanism: 'PLAIN', username: 'u', password: 'p' })
      .setTls({ caLocation: ca })
      .build();
    assert.equal(both.config.properties['security.protocol'], 'sasl_ssl');
    assert.equal(both.config.properties['ssl.ca.location'], ca);
  });

  it('refuses a missing certificate file, a key without its certificate, and two ways of setting the protocol', () => {
    const missing = join(dir, 'nope.pem');
    assert.throws(
      () => source().setBootstrapServers('b').setTls({ caLocation: missing }).build(),
      (error: Error) =>
        error instanceof ConfigurationError &&
        error.message === `KafkaSource: setTls: caLocation ${JSON.stringify(missing)} is not a readable file`,
    );
    assert.throws(
      () => sink().setBootstrapServers('b').setTls({ keyLocation: key }).build(),
      /KafkaSink: setTls: mutual TLS needs both certificateLocation and keyLocation/,
    );
    assert.throws(
      () =>
        sink()
          .setBootstrapServers('b')
          .setProperty('security.protocol', 'plaintext')
          .setTls({ caLocation: ca })
          .build(),
      /KafkaSink: 'security.protocol' is set as a property \(plaintext\) and through setTls\/setSasl; use one/,
    );
  });
});
