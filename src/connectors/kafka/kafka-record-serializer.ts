// KafkaRecordSerializationSchema: how a value of the stream becomes a Kafka record.

/** The record a serializer returns (Flink's ProducerRecord). */
export interface KafkaProducerRecord {
  /** The topic; the sink's default topic (`setTopic`) when omitted. */
  readonly topic?: string;
  /** The partition; when omitted, librdkafka's partitioner picks it from the key (murmur2, as Java's client). */
  readonly partition?: number;
  readonly key?: string | Buffer | null;
  /** The value; a string is written as UTF-8. `null` writes a tombstone. */
  readonly value: string | Buffer | null;
  /** Headers in order (a key may repeat). */
  readonly headers?: readonly { readonly key: string; readonly value: string | Buffer }[];
  /** The Kafka timestamp (ms); by default the stream record's timestamp, else the time of sending. */
  readonly timestamp?: number;
}

/**
 * Turns a value into a Kafka record (Flink's KafkaRecordSerializationSchema). Called synchronously per record
 * with the record's event timestamp (undefined if it has none).
 *
 * @example
 * const serializer: KafkaRecordSerializationSchema<Order> = (order) => ({
 *   key: order.customer,
 *   value: JSON.stringify(order),
 *   headers: [{ key: 'schema', value: 'order-v2' }],
 * });
 */
export type KafkaRecordSerializationSchema<T> = (
  element: T,
  timestamp: number | undefined,
) => KafkaProducerRecord;
