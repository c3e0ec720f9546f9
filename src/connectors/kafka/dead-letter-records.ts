// deadLetterRecords: the serializer that writes a Kafka source's malformed records to a dead-letter topic.
import type { KafkaProducerRecord, KafkaRecordSerializationSchema } from './kafka-record-serializer.ts';
import type { MalformedKafkaRecord } from './malformed-kafka-record.ts';

/**
 * The headers a dead-letter record carries, named as Kafka Streams' dead-letter queue names them (KIP-1034), so
 * tools that read one read the other.
 */
export const DeadLetterHeaders = {
  /** The kind of failure: `KafkaDeserializationError`. */
  EXCEPTION: '__streams.errors.exception',
  /** The deserializer's error message. */
  MESSAGE: '__streams.errors.message',
  /** Where the record was read: topic, partition (decimal) and offset (decimal). */
  TOPIC: '__streams.errors.topic',
  PARTITION: '__streams.errors.partition',
  OFFSET: '__streams.errors.offset',
} as const;

/**
 * A record serializer for a `KafkaSink` fed by the malformed-records side output of a `KafkaSource`
 * (`setMalformedRecords(tag)`): every malformed record goes to `topic` byte for byte (same key, same value, same
 * Kafka timestamp), with headers naming where it was read and why it was rejected. With `EXACTLY_ONCE` on the
 * dead-letter sink, a restore neither loses nor repeats a dead letter, as for any other output.
 *
 * @example
 * const bad = new OutputTag<MalformedKafkaRecord>('bad-orders');
 * const orders = env.fromSource(source, strategy, 'orders'); // source built with .setMalformedRecords(bad)
 * orders.getSideOutput(bad).sinkTo(
 *   KafkaSink.builder<MalformedKafkaRecord>()
 *     .setBootstrapServers('localhost:9092')
 *     .setRecordSerializer(deadLetterRecords('orders-dlq'))
 *     .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
 *     .setTransactionalIdPrefix('orders-dlq')
 *     .build(),
 *   'orders dead letters',
 * );
 */
export function deadLetterRecords(topic: string): KafkaRecordSerializationSchema<MalformedKafkaRecord> {
  return (record): KafkaProducerRecord => ({
    topic,
    key: record.key,
    value: record.value,
    ...(record.timestamp === undefined ? {} : { timestamp: record.timestamp }),
    headers: [
      { key: DeadLetterHeaders.EXCEPTION, value: 'KafkaDeserializationError' },
      { key: DeadLetterHeaders.MESSAGE, value: record.error },
      { key: DeadLetterHeaders.TOPIC, value: record.topic },
      { key: DeadLetterHeaders.PARTITION, value: String(record.partition) },
      { key: DeadLetterHeaders.OFFSET, value: String(record.offset) },
    ],
  });
}
