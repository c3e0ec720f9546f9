// The repartition topic's wire format: markers and timestamps round-trip; anything else fails naming where it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMarker, decodeTimestamp, encodeMarker, encodeTimestamp } from './repartition-marker.ts';

describe('repartition wire format', () => {
  it('round-trips markers, with infinite watermarks', () => {
    for (const watermark of [
      Number.NEGATIVE_INFINITY,
      -5,
      0,
      1_700_000_000_000.5,
      Number.POSITIVE_INFINITY,
    ]) {
      const marker = {
        producer: 'parse/3',
        kind: 'watermark' as const,
        watermark,
        partitions: 4,
        maxParallelism: 128,
      };
      assert.deepEqual(decodeMarker(encodeMarker(marker), 't-0@0'), marker);
    }
    const idle = { producer: 'p', kind: 'idle' as const, partitions: 1, maxParallelism: 1 };
    assert.deepEqual(decodeMarker(encodeMarker(idle), 't-0@1'), idle);
  });

  it('round-trips timestamps Kafka itself cannot carry (0, negative, fractional) and their absence', () => {
    for (const ts of [0, -1, -86_400_000, 12.25, 1_700_000_000_000])
      assert.equal(decodeTimestamp(encodeTimestamp(ts), 'x'), ts);
    assert.equal(decodeTimestamp(encodeTimestamp(undefined), 'x'), undefined);
  });

  it('names the topic, partition and offset of what is not a marker or a timestamp', () => {
    assert.throws(
      () => decodeMarker(Buffer.from('{"producer":1}'), 'orders-rep-2@17'),
      /orders-rep-2@17 is malformed/,
    );
    assert.throws(() => decodeMarker(Buffer.from('nope'), 'orders-rep-2@18'), /orders-rep-2@18 is not JSON/);
    assert.throws(
      () => decodeTimestamp(Buffer.from('abc'), 'orders-rep-0@3'),
      /orders-rep-0@3 has a key of 3 bytes/,
    );
  });
});
