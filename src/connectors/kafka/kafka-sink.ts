// KafkaSink: Flink's KafkaSink: records to Kafka topics with delivery guarantee NONE, AT_LEAST_ONCE or EXACTLY_ONCE.
import { ConfigurationError } from '../../core/errors.ts';
import type { Sink, SinkWriter, SinkWriterContext } from '../../core/sink.ts';
import { DeliveryGuarantee } from '../../core/delivery-guarantee.ts';
import type { KafkaProperties } from './kafka-client.ts';
import { KafkaClientBuilder } from './kafka-client-builder.ts';
import type { KafkaRecordSerializationSchema } from './kafka-record-serializer.ts';
import { KafkaSinkWriter } from './kafka-sink-writer.ts';
import { KafkaTransactionalWriter } from './kafka-transactional-writer.ts';

/** The configuration a built sink hands to its writers. */
export interface KafkaSinkConfig<T> {
  readonly properties: KafkaProperties;
  readonly serializer: KafkaRecordSerializationSchema<T>;
  readonly defaultTopic: string | undefined;
  readonly deliveryGuarantee: DeliveryGuarantee;
  readonly transactionalIdPrefix: string | undefined;
  /** Records sent but not yet acknowledged per subtask before the sources upstream are paused. */
  readonly maxInFlightRecords: number;
}

/**
 * Writes a stream to Kafka (Flink's KafkaSink).
 *
 * **Exactly once.** Each sink subtask collects the records of a checkpoint interval; at the checkpoint barrier
 * they are sealed into the checkpoint (pre-commit), and when the checkpoint is durable the Kafka transaction
 * holding them (transactional id `<prefix>-<subtask>`; written as they arrived, or at commit time) commits, with a
 * marker offset (the checkpoint id) for the consumer group `<prefix>-<subtask>`. After a failure the writer of each subtask re-initialises its
 * transactional id, which aborts whatever transaction a crashed or zombie predecessor left open and fences that
 * producer off, then reads the marker and writes again, in new transactions, exactly the sealed intervals the
 * restored checkpoint holds that were not committed. A `read_committed` consumer therefore sees every record once.
 * The transactional id prefix must be unique to the job.
 *
 * @example
 * stream.sinkTo(
 *   KafkaSink.builder<Total>()
 *     .setBootstrapServers('localhost:9092')
 *     .setTopic('totals')
 *     .setRecordSerializer((t) => ({ key: t.customer, value: JSON.stringify(t) }))
 *     .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
 *     .setTransactionalIdPrefix('order-totals')
 *     .build(),
 *   'totals',
 * );
 */
export class KafkaSink<T> implements Sink<T> {
  /** At least once: every old subtask's unacknowledged records are sent again by some new subtask. */
  readonly redistributesState: boolean;
  /** On the main thread in worker mode: librdkafka's binding loads on one thread of a process (as KafkaSource). */
  readonly runsOnMainThread = true;

  /** @internal Use {@link KafkaSink.builder}. */
  constructor(/** @internal */ readonly config: KafkaSinkConfig<T>) {
    this.redistributesState = config.deliveryGuarantee === DeliveryGuarantee.AT_LEAST_ONCE;
  }

  static builder<T>(): KafkaSinkBuilder<T> {
    return new KafkaSinkBuilder<T>();
  }

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    return this.config.deliveryGuarantee === DeliveryGuarantee.EXACTLY_ONCE
      ? new KafkaTransactionalWriter(this.config, context)
      : new KafkaSinkWriter(this.config, context);
  }
}

/** Configures a {@link KafkaSink}; `build()` validates everything at once. */
export class KafkaSinkBuilder<T> extends KafkaClientBuilder {
  private serializer: KafkaRecordSerializationSchema<T> | undefined = undefined;
  private defaultTopic: string | undefined = undefined;
  private deliveryGuarantee: DeliveryGuarantee = DeliveryGuarantee.NONE;
  private transactionalIdPrefix: string | undefined = undefined;
  private maxInFlightRecords = 50_000;

  /** The topic of records whose serializer names none. */
  setTopic(topic: string): this {
    this.defaultTopic = topic;
    return this;
  }

  /** Turns a value into a record: topic, partition, key, value, headers, timestamp. */
  setRecordSerializer(serializer: KafkaRecordSerializationSchema<T>): this {
    this.serializer = serializer;
    return this;
  }

  /** NONE (the default, as in Flink), AT_LEAST_ONCE or EXACTLY_ONCE. */
  setDeliveryGuarantee(guarantee: DeliveryGuarantee): this {
    this.deliveryGuarantee = guarantee;
    return this;
  }

  /** The prefix of the transactional ids (and marker groups); required for EXACTLY_ONCE, unique per job. */
  setTransactionalIdPrefix(prefix: string): this {
    this.transactionalIdPrefix = prefix;
    return this;
  }

  /** Records in flight per subtask before the sources are paused (NONE, AT_LEAST_ONCE; default 50,000). */
  setMaxInFlightRecords(records: number): this {
    this.maxInFlightRecords = records;
    return this;
  }

  build(): KafkaSink<T> {
    const fail = (why: string): never => {
      throw new ConfigurationError(`KafkaSink: ${why}`);
    };
    const properties = this.clientProperties('KafkaSink');
    if (typeof this.serializer !== 'function') fail('the record serializer is not set (setRecordSerializer)');
    if (!Object.values(DeliveryGuarantee).includes(this.deliveryGuarantee))
      fail(`unknown delivery guarantee ${String(this.deliveryGuarantee)}`);
    if (this.deliveryGuarantee === DeliveryGuarantee.EXACTLY_ONCE) {
      const prefix = this.transactionalIdPrefix;
      if (prefix === undefined || prefix === '')
        fail('EXACTLY_ONCE needs a transactional id prefix (setTransactionalIdPrefix)');
    }
    if ('transactional.id' in properties)
      fail("set 'transactional.id' through setTransactionalIdPrefix: the sink derives one id per subtask");
    if (!(Number.isSafeInteger(this.maxInFlightRecords) && this.maxInFlightRecords >= 1))
      fail(`maxInFlightRecords must be a positive integer, got ${this.maxInFlightRecords}`);
    return new KafkaSink<T>({
      properties,
      serializer: this.serializer!,
      defaultTopic: this.defaultTopic,
      deliveryGuarantee: this.deliveryGuarantee,
      transactionalIdPrefix: this.transactionalIdPrefix,
      maxInFlightRecords: this.maxInFlightRecords,
    });
  }
}
