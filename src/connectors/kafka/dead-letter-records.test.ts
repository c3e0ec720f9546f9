// deadLetterRecords: a malformed record becomes a dead-letter record, byte for byte, with where and why in headers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeadLetterHeaders, deadLetterRecords } from './dead-letter-records.ts';

describe('deadLetterRecords', () => {
  it('keeps key, value and timestamp and names topic, partition, offset and error in headers', () => {
    const serialize = deadLetterRecords('orders-dlq');
    const value = Buffer.from([0x7b, 0xff, 0x00]);
    const record = serialize(
      {
        topic: 'orders',
        partition: 3,
        offset: 1_234,
        timestamp: 1_700_000_000_000,
        key: Buffer.from('k1'),
        value,
        error: 'Unexpected token',
      },
      undefined,
    );
    assert.deepEqual(record, {
      topic: 'orders-dlq',
      key: Buffer.from('k1'),
      value,
      timestamp: 1_700_000_000_000,
      headers: [
        { key: '__streams.errors.exception', value: 'KafkaDeserializationError' },
        { key: '__streams.errors.message', value: 'Unexpected token' },
        { key: '__streams.errors.topic', value: 'orders' },
        { key: '__streams.errors.partition', value: '3' },
        { key: '__streams.errors.offset', value: '1234' },
      ],
    });
    assert.equal(DeadLetterHeaders.OFFSET, '__streams.errors.offset');
  });

  it('leaves the timestamp to the sink when the record had none, and keeps a null key and value', () => {
    const record = deadLetterRecords('dlq')(
      { topic: 't', partition: 0, offset: 0, timestamp: undefined, key: null, value: null, error: 'e' },
      undefined,
    );
    assert.equal('timestamp' in record, false);
    assert.equal(record.key, null);
    assert.equal(record.value, null);
  });
});
