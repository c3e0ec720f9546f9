// StoredRecordBatch: records in, the same records out, as bytes a checkpoint copies without walking them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import {
  batchOf,
  isStoredRecordBatch,
  restoredBatch,
  restoredRecords,
  StoredRecordBatchBuilder,
  StoredRecordReader,
  type StoredRecordBatch,
} from './stored-record-batch.ts';
import { storeRecord, type StoredRecord } from './stored-record.ts';
import type { KafkaProducerRecord } from './kafka-record-serializer.ts';

/** A record with every byte field as bytes, as the reader returns them. */
function asBytes(record: StoredRecord): StoredRecord {
  const bytes = (b: string | Uint8Array) => new Uint8Array(typeof b === 'string' ? Buffer.from(b) : b);
  return {
    topic: record.topic,
    partition: record.partition,
    key: record.key === null ? null : bytes(record.key),
    value: record.value === null ? null : bytes(record.value),
    timestamp: record.timestamp,
    headers:
      record.headers === null ? null : record.headers.map((h) => ({ key: h.key, value: bytes(h.value) })),
  };
}

function readAll(batch: StoredRecordBatch): StoredRecord[] {
  const reader = new StoredRecordReader(batch);
  const records: StoredRecord[] = [];
  for (let r = reader.next(); r !== undefined; r = reader.next()) records.push(asBytes(r));
  assert.equal(reader.next(), undefined);
  return records;
}

const produced: [KafkaProducerRecord, number | undefined][] = [
  [{ key: 'u1', value: '{"id":1,"user":"u1"}' }, 5],
  [{ topic: 'other', partition: 2, key: null, value: Buffer.from([0, 1, 255]), timestamp: 42 }, 7],
  [
    {
      value: null,
      headers: [
        { key: 'schema', value: 'v2' },
        { key: 'raw', value: Buffer.from([9]) },
      ],
    },
    undefined,
  ],
  [{ key: 'ключ', value: 'värde ✓ 🌊', timestamp: Number.NaN }, -3],
  [{ key: '', value: '' }, 0],
];

describe('StoredRecordBatch', () => {
  it('reads back exactly what storeRecord keeps for each record: topics, partitions, timestamps, nulls, headers', () => {
    const builder = new StoredRecordBatchBuilder();
    for (const [record, timestamp] of produced) builder.add(record, 'orders', timestamp, 'sink');
    assert.equal(builder.count, produced.length);
    const batch = builder.seal();
    assert.equal(batch.count, produced.length);
    assert.deepEqual(batch.topics, ['orders', 'other']);
    assert.deepEqual(
      readAll(batch),
      produced.map(([record, timestamp]) => asBytes(storeRecord(record, 'orders', timestamp, 'sink'))),
    );
  });

  it('owns an ArrayBuffer of exactly its size, and survives a structured clone and v8.serialize', () => {
    const builder = new StoredRecordBatchBuilder();
    for (const [record, timestamp] of produced) builder.add(record, 'orders', timestamp, 'sink');
    const batch = builder.seal();
    assert.equal(batch.bytes.buffer.byteLength, batch.bytes.byteLength);
    const expected = readAll(batch);
    assert.deepEqual(readAll(structuredClone(batch)), expected);
    assert.deepEqual(readAll(deserialize(serialize({ batch })).batch as StoredRecordBatch), expected);
  });

  it('starts over after a seal; a sealed batch is not changed by what is added after it', () => {
    const builder = new StoredRecordBatchBuilder();
    builder.add({ value: 'a' }, 'one', 1, 'sink');
    const first = builder.seal();
    assert.equal(builder.count, 0);
    // Enough to outgrow the builder's first buffer, so its bytes move.
    const big = 'x'.repeat(100_000);
    builder.add({ value: big }, 'two', 2, 'sink');
    builder.add({ value: 'b' }, 'one', 3, 'sink');
    const second = builder.seal();
    assert.deepEqual(readAll(first), [asBytes(storeRecord({ value: 'a' }, 'one', 1, 'sink'))]);
    assert.deepEqual(second.topics, ['two', 'one']);
    assert.deepEqual(readAll(second), [
      asBytes(storeRecord({ value: big }, 'two', 2, 'sink')),
      asBytes(storeRecord({ value: 'b' }, 'one', 3, 'sink')),
    ]);
    assert.deepEqual(builder.seal(), { topics: [], count: 0, bytes: new Uint8Array(0) });
  });

  it('gives the last record added and those not yet sealed, and skips records without reading them', () => {
    const builder = new StoredRecordBatchBuilder();
    const expected: StoredRecord[] = [];
    for (const [record, timestamp] of produced) {
      builder.add(record, 'orders', timestamp, 'sink');
      expected.push(asBytes(storeRecord(record, 'orders', timestamp, 'sink')));
      assert.deepEqual(asBytes(builder.lastRecord()), expected.at(-1));
    }
    const unsealed = builder.reader();
    const read: StoredRecord[] = [];
    for (let r = unsealed.next(); r !== undefined; r = unsealed.next()) read.push(asBytes(r));
    assert.deepEqual(read, expected);
    const batch = builder.seal();
    for (let skipped = 0; skipped <= produced.length + 1; skipped++) {
      const reader = new StoredRecordReader(batch);
      reader.skip(skipped);
      const rest: StoredRecord[] = [];
      for (let r = reader.next(); r !== undefined; r = reader.next()) rest.push(asBytes(r));
      assert.deepEqual(rest, expected.slice(skipped));
    }
  });

  it('names the sink when a record has no topic and the sink no default topic', () => {
    assert.throws(() => new StoredRecordBatchBuilder().add({ value: 'a' }, undefined, 1, 'totals'), {
      name: 'KafkaError',
      message:
        "KafkaSink 'totals': the serializer returned a record without a topic and the sink has no default topic (setTopic)",
    });
  });

  it('restores records checkpointed as an array of records, the form before batches', () => {
    const records = produced.map(([record, timestamp]) => storeRecord(record, 'orders', timestamp, 'sink'));
    // What a checkpoint of that form holds after a round trip through the metadata.
    const restored = deserialize(serialize(records)) as unknown;
    assert.deepEqual(readAll(restoredBatch(restored)), records.map(asBytes));
    assert.deepEqual(readAll(batchOf(records)), records.map(asBytes));
  });

  it('restores records from concatenated writer states: batches and records (the form before) alike, in order', () => {
    const records = produced.map(([record, timestamp]) => storeRecord(record, 'orders', timestamp, 'sink'));
    const [a, b, c, d, e] = records;
    const items = deserialize(serialize([batchOf([a!, b!]), c, batchOf([d!]), e])) as unknown[];
    assert.deepEqual(items.map(isStoredRecordBatch), [true, false, true, false]);
    assert.deepEqual(restoredRecords(items).map(asBytes), records.map(asBytes));
    assert.deepEqual(restoredRecords([]), []);
  });

  it('copies a restored batch out of the decoded metadata it views, so later checkpoints clone only its bytes', () => {
    const builder = new StoredRecordBatchBuilder();
    builder.add({ key: 'k', value: 'v' }, 'orders', 1, 'sink');
    const batch = builder.seal();
    const metadata = deserialize(serialize({ padding: 'p'.repeat(10_000), batch })) as {
      batch: StoredRecordBatch;
    };
    assert.ok(metadata.batch.bytes.buffer.byteLength > metadata.batch.bytes.byteLength);
    const restored = restoredBatch(metadata.batch);
    assert.equal(restored.bytes.buffer.byteLength, restored.bytes.byteLength);
    assert.deepEqual(readAll(restored), readAll(batch));
    // A batch that owns its bytes is kept as it is.
    assert.equal(restoredBatch(batch), batch);
  });
});
