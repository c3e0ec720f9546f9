// KafkaRecordDeserializationSchema: how a consumed Kafka record becomes a value of the stream.

/** A consumed record, as a full deserializer sees it (Flink's ConsumerRecord). */
export interface KafkaConsumerRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The record's Kafka timestamp (ms), or undefined if it has none. */
  readonly timestamp: number | undefined;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /** Headers in order; a key may repeat. */
  readonly headers: readonly { readonly key: string; readonly value: Buffer }[];
}

/**
 * Turns a record into a value (Flink's KafkaRecordDeserializationSchema). Called synchronously per record; an
 * exception sends the record to the malformed-records side output or fails the job with its topic, partition
 * and offset.
 *
 * @example
 * const withKey: KafkaRecordDeserializationSchema<{ user: string; clicks: number }> = (record) => ({
 *   user: record.key!.toString(),
 *   clicks: Number(record.value!.toString()),
 * });
 */
export type KafkaRecordDeserializationSchema<T> = (record: KafkaConsumerRecord) => T;

/**
 * Turns a record's value bytes into a value (Flink's DeserializationSchema, used by
 * `setValueOnlyDeserializer`). A record with a null value (a tombstone) reaches it as an empty buffer.
 */
export type DeserializationSchema<T> = (value: Buffer) => T;

/** Ready-made value deserializers. */
export const Deserializers = {
  /** UTF-8 text (Flink's SimpleStringSchema). */
  string(): DeserializationSchema<string> {
    return (value) => value.toString('utf8');
  },
  /** One JSON document per record (Flink's JsonDeserializationSchema). */
  json<T>(): DeserializationSchema<T> {
    return (value) => JSON.parse(value.toString('utf8')) as T;
  },
};
