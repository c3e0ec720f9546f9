// StoredRecord: a serialized Kafka record in a form checkpoints can hold, and how it is sent.
import { KafkaError, type ClientProducer } from './kafka-client.ts';
import type { KafkaProducerRecord } from './kafka-record-serializer.ts';

/**
 * A record as kept in writer state: plain data, compact under structured cloning (Buffers are copied out of
 * Node's shared pool, which would otherwise be cloned whole with each small Buffer).
 */
export interface StoredRecord {
  readonly topic: string;
  /** -1: let the partitioner choose. */
  readonly partition: number;
  readonly key: string | Uint8Array | null;
  readonly value: string | Uint8Array | null;
  /** -1: none (the producer's send time). */
  readonly timestamp: number;
  readonly headers: { readonly key: string; readonly value: string | Uint8Array }[] | null;
}

/** librdkafka's "local queue full": wait for deliveries, then send again. */
const QUEUE_FULL = -184;

function own(bytes: string | Buffer | Uint8Array): string | Uint8Array {
  return typeof bytes === 'string' ? bytes : new Uint8Array(bytes);
}

/** The topic a serializer's record goes to: its own, else the sink's default; a record with neither is refused. */
export function recordTopic(
  record: KafkaProducerRecord,
  defaultTopic: string | undefined,
  sinkName: string,
): string {
  const topic = record.topic ?? defaultTopic;
  if (topic === undefined || topic === '') {
    throw new KafkaError(
      `KafkaSink '${sinkName}': the serializer returned a record without a topic and the sink has no default topic (setTopic)`,
    );
  }
  return topic;
}

/** The record's timestamp, else the stream record's; -1 (none) when neither is a valid one. */
export function recordTimestamp(record: KafkaProducerRecord, timestamp: number | undefined): number {
  const ts = record.timestamp ?? timestamp;
  return ts === undefined || !Number.isFinite(ts) || ts < 0 ? -1 : ts;
}

/** Converts what a serializer returned, with the sink's default topic and the stream record's timestamp. */
export function storeRecord(
  record: KafkaProducerRecord,
  defaultTopic: string | undefined,
  timestamp: number | undefined,
  sinkName: string,
): StoredRecord {
  return {
    topic: recordTopic(record, defaultTopic, sinkName),
    partition: record.partition ?? -1,
    key: record.key === undefined || record.key === null ? null : own(record.key),
    value: record.value === null ? null : own(record.value),
    timestamp: recordTimestamp(record, timestamp),
    headers:
      record.headers === undefined || record.headers.length === 0
        ? null
        : record.headers.map((h) => ({ key: h.key, value: own(h.value) })),
  };
}

function toBuffer(bytes: string | Uint8Array): Buffer {
  return typeof bytes === 'string'
    ? Buffer.from(bytes)
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Hands one record to librdkafka; false when its local queue is full (nothing was queued), so a caller on the hot
 * path can decide what to do without waiting.
 */
export function trySend(producer: ClientProducer, record: StoredRecord, opaque: unknown): boolean {
  try {
    producer.produce(
      record.topic,
      record.partition < 0 ? null : record.partition,
      record.value === null ? null : toBuffer(record.value),
      // The client copies a string key to UTF-8 itself: no Buffer per record for it (a value must be a Buffer).
      record.key === null || typeof record.key === 'string' ? record.key : toBuffer(record.key),
      record.timestamp < 0 ? null : record.timestamp,
      opaque,
      record.headers === null ? undefined : record.headers.map((h) => ({ [h.key]: toBuffer(h.value) })),
    );
    return true;
  } catch (error) {
    if ((error as { code?: number }).code === QUEUE_FULL) return false;
    throw new KafkaError(
      `Kafka: sending a record to topic '${record.topic}' failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Sends one record; when librdkafka's local queue is full, waits for it to drain (flush) and sends again, which
 * is the writer's backpressure. Returns a Promise only in that case.
 */
export function send(producer: ClientProducer, record: StoredRecord, opaque: unknown): void | Promise<void> {
  if (trySend(producer, record, opaque)) return undefined;
  return new Promise<void>((resolve, reject) => {
    producer.flush(60_000, (flushError) => {
      if (flushError)
        reject(new KafkaError(`Kafka: flushing to topic '${record.topic}' failed: ${flushError.message}`));
      else resolve(send(producer, record, opaque));
    });
  });
}
