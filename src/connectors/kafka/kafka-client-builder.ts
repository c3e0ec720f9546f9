// KafkaClientBuilder: what the KafkaSource and KafkaSink builders share: brokers, client properties, TLS, SASL.
import { existsSync } from 'node:fs';
import { ConfigurationError } from '../../core/errors.ts';
import type { KafkaProperties } from './kafka-client.ts';

/** TLS to the brokers (librdkafka's `ssl.*` properties), for {@link KafkaClientBuilder.setTls}. */
export interface KafkaTlsOptions {
  /**
   * PEM file of the certificate authorities that signed the brokers' certificates (`ssl.ca.location`); the
   * system's trust store when omitted.
   */
  readonly caLocation?: string;
  /** Mutual TLS: the client's PEM certificate (`ssl.certificate.location`). */
  readonly certificateLocation?: string;
  /** Mutual TLS: the client's PEM private key (`ssl.key.location`). */
  readonly keyLocation?: string;
  /** The private key's password, if it is encrypted (`ssl.key.password`). */
  readonly keyPassword?: string;
  /** Whether the broker's certificate must name the host connected to (default true, as librdkafka's). */
  readonly verifyHostname?: boolean;
}

/** SASL authentication (librdkafka's `sasl.*` properties), for {@link KafkaClientBuilder.setSasl}. */
export interface KafkaSaslOptions {
  /** The SASL mechanism (`sasl.mechanisms`). */
  readonly mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER' | 'GSSAPI';
  /** The user name for PLAIN and SCRAM (`sasl.username`). */
  readonly username?: string;
  /** The password for PLAIN and SCRAM (`sasl.password`). */
  readonly password?: string;
}

/**
 * The client settings of a Kafka source or sink builder. Everything ends up as librdkafka properties; `setTls`
 * and `setSasl` are typed shortcuts for the security ones, checked when the source or sink is built (files
 * exist, a key comes with its certificate) and combined into the right `security.protocol`.
 */
export abstract class KafkaClientBuilder {
  /** The librdkafka properties set so far, by name. */
  protected readonly properties: KafkaProperties = {};
  private tls: KafkaTlsOptions | undefined = undefined;
  private sasl: KafkaSaslOptions | undefined = undefined;

  /** `host:port[,host:port...]` of the brokers to bootstrap from. */
  setBootstrapServers(servers: string): this {
    this.properties['bootstrap.servers'] = servers;
    return this;
  }

  /**
   * A client property, passed to librdkafka as is (fetch and batch sizes, `linger.ms`, `compression.type`,
   * `isolation.level`, or any `ssl.*` / `sasl.*` setting the typed shortcuts do not cover).
   */
  setProperty(name: string, value: string | number | boolean): this {
    this.properties[name] = value;
    return this;
  }

  /** Several client properties at once (see {@link setProperty}). */
  setProperties(properties: KafkaProperties): this {
    Object.assign(this.properties, properties);
    return this;
  }

  /**
   * Connects over TLS: `security.protocol` becomes `SSL` (`SASL_SSL` with {@link setSasl}).
   *
   * @example
   * builder.setTls({ caLocation: '/etc/kafka/ca.pem' });
   * // mutual TLS
   * builder.setTls({ caLocation: 'ca.pem', certificateLocation: 'client.pem', keyLocation: 'client.key' });
   */
  setTls(options: KafkaTlsOptions = {}): this {
    this.tls = { ...options };
    return this;
  }

  /**
   * Authenticates with SASL: `security.protocol` becomes `SASL_PLAINTEXT` (`SASL_SSL` with {@link setTls}).
   *
   * @example
   * builder.setTls({}).setSasl({ mechanism: 'SCRAM-SHA-512', username: 'weir', password: secret });
   */
  setSasl(options: KafkaSaslOptions): this {
    this.sasl = { ...options };
    return this;
  }

  /**
   * The client properties, validated: the bootstrap servers are set, the TLS files exist, and TLS and SASL are
   * either set with the shortcuts or with raw properties, not both. `component` names the source or sink in
   * errors (`KafkaSource`, `KafkaSink`).
   */
  protected clientProperties(component: string): KafkaProperties {
    const fail = (why: string): never => {
      throw new ConfigurationError(`${component}: ${why}`);
    };
    const properties: KafkaProperties = { ...this.properties };
    const servers = properties['bootstrap.servers'];
    if (typeof servers !== 'string' || servers === '')
      fail('the bootstrap servers are not set (setBootstrapServers)');
    const { tls, sasl } = this;
    if (tls === undefined && sasl === undefined) return properties;
    if (properties['security.protocol'] !== undefined)
      fail(
        `'security.protocol' is set as a property (${String(properties['security.protocol'])}) and through setTls/setSasl; use one`,
      );
    properties['security.protocol'] =
      tls !== undefined && sasl !== undefined ? 'sasl_ssl' : tls !== undefined ? 'ssl' : 'sasl_plaintext';
    if (tls !== undefined) {
      const files: [keyof KafkaTlsOptions, string][] = [
        ['caLocation', 'ssl.ca.location'],
        ['certificateLocation', 'ssl.certificate.location'],
        ['keyLocation', 'ssl.key.location'],
      ];
      for (const [option, property] of files) {
        const file = tls[option];
        if (file === undefined) continue;
        if (typeof file !== 'string' || !existsSync(file))
          fail(`setTls: ${option} ${JSON.stringify(file)} is not a readable file`);
        properties[property] = file;
      }
      if ((tls.certificateLocation === undefined) !== (tls.keyLocation === undefined))
        fail('setTls: mutual TLS needs both certificateLocation and keyLocation');
      if (tls.keyPassword !== undefined) properties['ssl.key.password'] = tls.keyPassword;
      if (tls.verifyHostname === false) properties['ssl.endpoint.identification.algorithm'] = 'none';
    }
    if (sasl !== undefined) {
      properties['sasl.mechanisms'] = sasl.mechanism;
      if (sasl.username !== undefined) properties['sasl.username'] = sasl.username;
      if (sasl.password !== undefined) properties['sasl.password'] = sasl.password;
    }
    return properties;
  }
}
