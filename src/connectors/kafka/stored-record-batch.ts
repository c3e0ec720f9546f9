// StoredRecordBatch: a sink's records as one block of bytes, so a checkpoint copies bytes instead of walking objects.
import { KafkaError } from './kafka-client.ts';
import type { KafkaProducerRecord } from './kafka-record-serializer.ts';
import { recordTimestamp, recordTopic, type StoredRecord } from './stored-record.ts';

/**
 * Records in the order they were added. A checkpoint holding thousands of them as objects cost a structured
 * clone at the barrier and a `v8.serialize` into the metadata, each walking every record (a sixth of the
 * exactly-once Kafka job's thread); as one Uint8Array both are a copy of its bytes.
 *
 * Each record: topic index (u32, into `topics`), partition (i32, -1: the partitioner's), timestamp (f64, -1:
 * none), key and value (i32 length, -1: null; then the bytes), header count (u32), each header's key (i32
 * length, UTF-8) and value (i32 length, bytes). Little-endian. Strings are stored as their UTF-8 bytes, which is
 * what the producer sends for them.
 */
export interface StoredRecordBatch {
  /** The topics the records name, by index; the first record's topic is topic 0. */
  readonly topics: readonly string[];
  readonly count: number;
  /** The records back to back; its ArrayBuffer is exactly this size, so a structured clone copies nothing more. */
  readonly bytes: Uint8Array;
}

const INITIAL_BYTES = 64 * 1024;
/** The most bytes one UTF-16 code unit takes in UTF-8: reserving this per unit avoids measuring a string first. */
const UTF8_PER_UNIT = 3;

/**
 * Appends records to a growing buffer; `seal` copies them out as a batch and starts over, keeping the buffer, so
 * a writer that seals one batch per checkpoint stops growing it once its largest interval fits.
 */
export class StoredRecordBatchBuilder {
  private buffer = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  private size = 0;
  private topics: string[] = [];
  private lastTopic: string | undefined = undefined;
  private lastTopicIndex = 0;
  private records = 0;
  /** Where the last record added starts. */
  private lastRecordAt = 0;

  /** The records added since the last seal. */
  get count(): number {
    return this.records;
  }

  /** Adds what a serializer returned, with the sink's default topic and the stream record's timestamp. */
  add(
    record: KafkaProducerRecord,
    defaultTopic: string | undefined,
    timestamp: number | undefined,
    sinkName: string,
  ): void {
    this.addFields(
      recordTopic(record, defaultTopic, sinkName),
      record.partition ?? -1,
      recordTimestamp(record, timestamp),
      record.key ?? null,
      // An omitted value (possible from JavaScript) was always written as an empty one, never as a tombstone.
      record.value === undefined ? '' : record.value,
      record.headers,
    );
  }

  /** Adds a record already in writer form. */
  addStored(record: StoredRecord): void {
    this.addFields(
      record.topic,
      record.partition,
      record.timestamp,
      record.key,
      record.value,
      record.headers ?? undefined,
    );
  }

  /** The record added last, with keys and values viewing the builder's buffer: to be sent at once, not kept. */
  lastRecord(): StoredRecord {
    return this.readerFrom(this.lastRecordAt, 1).next()!;
  }

  /** The records added since the last seal, viewing the builder's buffer: to be sent at once, not kept. */
  reader(): StoredRecordReader {
    return this.readerFrom(0, this.records);
  }

  private readerFrom(at: number, count: number): StoredRecordReader {
    return new StoredRecordReader({ topics: this.topics, count, bytes: this.buffer.subarray(at, this.size) });
  }

  /** The records added since the last seal, as a batch of their own; the builder is empty after. */
  seal(): StoredRecordBatch {
    const bytes = new Uint8Array(this.size);
    bytes.set(this.buffer.subarray(0, this.size));
    const batch: StoredRecordBatch = { topics: this.topics, count: this.records, bytes };
    this.size = 0;
    this.topics = [];
    this.lastTopic = undefined;
    this.lastTopicIndex = 0;
    this.records = 0;
    return batch;
  }

  private addFields(
    topic: string,
    partition: number,
    timestamp: number,
    key: string | Uint8Array | null,
    value: string | Uint8Array | null,
    headers: readonly { readonly key: string; readonly value: string | Uint8Array }[] | undefined,
  ): void {
    if (topic !== this.lastTopic) {
      let index = this.topics.indexOf(topic);
      if (index < 0) index = this.topics.push(topic) - 1;
      this.lastTopic = topic;
      this.lastTopicIndex = index;
    }
    this.reserve(16);
    this.lastRecordAt = this.size;
    const buffer = this.buffer;
    buffer.writeUInt32LE(this.lastTopicIndex, this.size);
    buffer.writeInt32LE(partition, this.size + 4);
    buffer.writeDoubleLE(timestamp, this.size + 8);
    this.size += 16;
    this.writeBytes(key, true);
    this.writeBytes(value, true);
    this.reserve(4);
    const headerCount = headers === undefined ? 0 : headers.length;
    this.buffer.writeUInt32LE(headerCount, this.size);
    this.size += 4;
    for (let i = 0; i < headerCount; i++) {
      const header = headers![i]!;
      this.writeBytes(header.key, false);
      this.writeBytes(header.value, false);
    }
    this.records++;
  }

  /** A length (-1 for null when `nullable`) and the bytes: a string as UTF-8, written in place. */
  private writeBytes(bytes: string | Uint8Array | null, nullable: boolean): void {
    if (bytes === null) {
      if (!nullable) throw new KafkaError('Kafka: a header value cannot be null');
      this.reserve(4);
      this.buffer.writeInt32LE(-1, this.size);
      this.size += 4;
      return;
    }
    const at = this.size;
    if (typeof bytes === 'string') {
      this.reserve(4 + bytes.length * UTF8_PER_UNIT);
      const length = this.buffer.write(bytes, at + 4, 'utf8');
      this.buffer.writeInt32LE(length, at);
      this.size = at + 4 + length;
    } else {
      this.reserve(4 + bytes.byteLength);
      this.buffer.writeInt32LE(bytes.byteLength, at);
      this.buffer.set(bytes, at + 4);
      this.size = at + 4 + bytes.byteLength;
    }
  }

  private reserve(bytes: number): void {
    const needed = this.size + bytes;
    if (needed <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafeSlow(capacity);
    this.buffer.copy(grown, 0, 0, this.size);
    this.buffer = grown;
  }
}

/** Whether a restored value is a batch, rather than a record (the form checkpoints held before batches). */
export function isStoredRecordBatch(value: unknown): value is StoredRecordBatch {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Partial<StoredRecordBatch>).bytes instanceof Uint8Array &&
    Array.isArray((value as Partial<StoredRecordBatch>).topics)
  );
}

/**
 * Records restored from a checkpoint as a batch: a batch as checkpoints now hold it, or an array of records, the
 * form before it. A restored batch's bytes may view the whole decoded metadata (v8.deserialize shares its
 * buffer); they are copied out, so a checkpoint taken before they are committed clones only them.
 */
export function restoredBatch(value: unknown): StoredRecordBatch {
  if (!isStoredRecordBatch(value)) return batchOf(value as StoredRecord[]);
  if (value.bytes.byteLength === value.bytes.buffer.byteLength) return value;
  return { topics: value.topics, count: value.count, bytes: value.bytes.slice() };
}

/** Every record of restored items, in order: batches (read) and records (the form before batches) alike. */
export function restoredRecords(items: readonly unknown[]): StoredRecord[] {
  const records: StoredRecord[] = [];
  for (const item of items) {
    if (!isStoredRecordBatch(item)) {
      records.push(item as StoredRecord);
      continue;
    }
    const reader = new StoredRecordReader(item);
    for (let record = reader.next(); record !== undefined; record = reader.next()) records.push(record);
  }
  return records;
}

/** A batch of the given records. */
export function batchOf(records: readonly StoredRecord[]): StoredRecordBatch {
  const builder = new StoredRecordBatchBuilder();
  for (const record of records) builder.addStored(record);
  return builder.seal();
}

/**
 * Reads a batch's records in order, one `next()` each (undefined after the last). Keys, values and header values
 * are Buffers viewing the batch's bytes, not copies; the producer copies what it sends.
 */
export class StoredRecordReader {
  private readonly bytes: Buffer;
  private at = 0;
  private remaining: number;

  constructor(private readonly batch: StoredRecordBatch) {
    const b = batch.bytes;
    this.bytes = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    this.remaining = batch.count;
  }

  next(): StoredRecord | undefined {
    if (this.remaining === 0) return undefined;
    this.remaining--;
    const bytes = this.bytes;
    const at = this.at;
    const topic = this.batch.topics[bytes.readUInt32LE(at)]!;
    const partition = bytes.readInt32LE(at + 4);
    const timestamp = bytes.readDoubleLE(at + 8);
    this.at = at + 16;
    const key = this.readBytes();
    const value = this.readBytes();
    const headerCount = bytes.readUInt32LE(this.at);
    this.at += 4;
    let headers: { key: string; value: Uint8Array }[] | null = null;
    if (headerCount > 0) {
      headers = [];
      for (let i = 0; i < headerCount; i++) {
        const headerKey = this.readBytes()!.toString('utf8');
        headers.push({ key: headerKey, value: this.readBytes()! });
      }
    }
    return { topic, partition, key, value, timestamp, headers };
  }

  /** Moves past the next `count` records without reading them. */
  skip(count: number): void {
    const bytes = this.bytes;
    for (let n = Math.min(count, this.remaining); n > 0; n--) {
      this.remaining--;
      this.at += 16;
      this.skipBytes();
      this.skipBytes();
      const headerCount = bytes.readUInt32LE(this.at);
      this.at += 4;
      for (let i = 0; i < headerCount * 2; i++) this.skipBytes();
    }
  }

  private skipBytes(): void {
    const length = this.bytes.readInt32LE(this.at);
    this.at += 4 + Math.max(length, 0);
  }

  private readBytes(): Buffer | null {
    const bytes = this.bytes;
    const length = bytes.readInt32LE(this.at);
    this.at += 4;
    if (length < 0) return null;
    const view = bytes.subarray(this.at, this.at + length);
    this.at += length;
    return view;
  }
}
