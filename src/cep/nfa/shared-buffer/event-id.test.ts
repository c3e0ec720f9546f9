// EventId: ordered by timestamp, then arrival; equal by both; printed as timestamp#id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareEventIds, eventIdEquals, eventIdToString } from './event-id.ts';

describe('EventId', () => {
  it('orders by timestamp first, then by id', () => {
    assert.equal(compareEventIds({ id: 5, timestamp: 1 }, { id: 0, timestamp: 2 }), -1);
    assert.equal(compareEventIds({ id: 0, timestamp: 2 }, { id: 5, timestamp: 1 }), 1);
    assert.equal(compareEventIds({ id: 2, timestamp: 3 }, { id: 7, timestamp: 3 }), -5);
    assert.equal(compareEventIds({ id: 7, timestamp: 3 }, { id: 7, timestamp: 3 }), 0);
  });

  it('equal by id and timestamp; null equals only null', () => {
    assert.equal(eventIdEquals({ id: 1, timestamp: 2 }, { id: 1, timestamp: 2 }), true);
    assert.equal(eventIdEquals({ id: 1, timestamp: 2 }, { id: 1, timestamp: 3 }), false);
    assert.equal(eventIdEquals({ id: 1, timestamp: 2 }, { id: 2, timestamp: 2 }), false);
    assert.equal(eventIdEquals(null, null), true);
    assert.equal(eventIdEquals(null, { id: 0, timestamp: 0 }), false);
    assert.equal(eventIdEquals({ id: 0, timestamp: 0 }, null), false);
  });

  it('prints timestamp#id', () => {
    assert.equal(eventIdToString({ id: 3, timestamp: 1000 }), '1000#3');
  });
});
