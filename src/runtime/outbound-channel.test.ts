// OutboundChannel: batching by size and by turn, credits, congestion and the names in its messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamEdge } from '../graph/stream-graph.ts';
import { OutboundChannel, type OutboundBatch, type OutboundLink } from './outbound-channel.ts';
import type { TypedBatchMessage } from './typed-record-batch.ts';
import { Types } from '../core/record-type.ts';

const edge = {
  source: { name: 'keyBy' },
  target: { name: 'window' },
  partitioning: { kind: 'hash' },
} as unknown as StreamEdge;

/** A link that records what the channel sends and when it asks to be flushed. */
class Link implements OutboundLink {
  readonly sent: OutboundBatch[] = [];
  dirty = 0;
  send(_channel: OutboundChannel, batch: OutboundBatch): void {
    this.sent.push(batch);
  }
  markDirty(): void {
    this.dirty++;
  }
  mismatch(_channel: OutboundChannel, value: unknown): Error {
    return new Error(`does not fit: ${JSON.stringify(value)}`);
  }
}

function open(
  credits: number,
  batchSize: number,
): { link: Link; channel: OutboundChannel; congestion: boolean[] } {
  const link = new Link();
  const channel = new OutboundChannel(link, 5, edge, 0, 1, 2, credits, batchSize);
  const congestion: boolean[] = [];
  channel.onCongestion = (c) => congestion.push(c);
  return { link, channel, congestion };
}

describe('OutboundChannel', () => {
  it('writes every event kind as (kind, a, b) triples and sends a full batch at once', () => {
    const { link, channel } = open(4, 3);
    channel.process('a', 10);
    assert.equal(link.dirty, 1, 'the first event of a batch asks for a flush at the end of the turn');
    channel.processKeyed('b', 11);
    assert.deepEqual(link.sent, []);
    channel.watermark(9);
    assert.deepEqual(link.sent, [[0, 'a', 10, 0, 'b', 11, 1, 9, 0]]);
    channel.status(true);
    assert.equal(link.dirty, 2);
    channel.barrier({ id: 3, timestamp: 0, kind: 'checkpoint' });
    channel.endOfInput();
    assert.deepEqual(link.sent[1], [2, true, 0, 4, { id: 3, timestamp: 0, kind: 'checkpoint' }, 0, 3, 0, 0]);
    assert.equal(channel.credits, 2);
  });

  it('flush sends the open batch, and nothing when it is empty', () => {
    const { link, channel } = open(4, 100);
    channel.flush();
    assert.deepEqual(link.sent, []);
    channel.process('a', 1);
    channel.flush();
    channel.flush();
    assert.deepEqual(link.sent, [[0, 'a', 1]]);
    channel.process('b', 2);
    channel.flush();
    assert.deepEqual(link.sent, [
      [0, 'a', 1],
      [0, 'b', 2],
    ]);
  });

  it('parks batches without credit, is congested until a grant sends them all, in order', () => {
    const { link, channel, congestion } = open(1, 1);
    channel.process('a', 1);
    assert.equal(channel.congested, false);
    channel.process('b', 2);
    channel.process('c', 3);
    assert.deepEqual(link.sent, [[0, 'a', 1]]);
    assert.equal(channel.congested, true);
    assert.deepEqual(congestion, [true], 'congestion is reported once');
    assert.equal(channel.waitingBatches, 2);
    channel.grant(1);
    assert.deepEqual(link.sent, [
      [0, 'a', 1],
      [0, 'b', 2],
    ]);
    assert.equal(channel.congested, true, 'one batch still waits');
    assert.equal(channel.credits, 0);
    channel.grant(3);
    assert.deepEqual(link.sent, [
      [0, 'a', 1],
      [0, 'b', 2],
      [0, 'c', 3],
    ]);
    assert.equal(channel.congested, false);
    assert.deepEqual(congestion, [true, false]);
    assert.equal(channel.credits, 2);
    assert.equal(channel.waitingBatches, 0);
    channel.grant(1);
    assert.deepEqual(congestion, [true, false], 'a grant while not congested reports nothing');
  });

  it('keeps the order: a new batch waits behind parked ones even when credit came back', () => {
    const { link, channel } = open(0, 1);
    channel.process('a', 1);
    assert.deepEqual(link.sent, []);
    channel.credits = 1;
    channel.process('b', 2);
    assert.deepEqual(link.sent, [], 'b must not overtake a');
    channel.grant(0);
    assert.deepEqual(link.sent, [[0, 'a', 1]]);
  });

  it('with a declared record type, writes a typed batch and refuses a record that does not fit', () => {
    const link = new Link();
    const type = Types.record({ n: 'number' });
    const channel = new OutboundChannel(link, 5, edge, 0, 1, 2, 4, 2, type as never);
    channel.process({ n: 1 }, 10);
    channel.watermark(7);
    assert.equal(link.sent.length, 1);
    const batch = link.sent[0] as TypedBatchMessage;
    assert.equal(Array.isArray(batch), false);
    assert.ok(batch.numbers instanceof Float64Array);
    assert.throws(() => channel.process({ n: 'x' }, 11), /does not fit: \{"n":"x"\}/);
    channel.status(false);
    channel.barrier({ id: 1, timestamp: 0, kind: 'savepoint' });
    channel.endOfInput();
    assert.equal(link.sent.length, 2);
  });

  it('names its edge and subtasks from 1', () => {
    const { channel } = open(1, 1);
    assert.equal(channel.describe(), "'keyBy' → 'window' (hash), subtask 1 → 2");
    assert.equal(channel.id, 5);
    assert.equal(channel.host, 2);
  });

  it('works without a congestion listener', () => {
    const link = new Link();
    const channel = new OutboundChannel(link, 5, edge, 0, 1, 2, 0, 1);
    channel.process('a', 1);
    assert.equal(channel.congested, true);
    channel.grant(1);
    assert.equal(channel.congested, false);
    assert.deepEqual(link.sent, [[0, 'a', 1]]);
    channel.recycle(new ArrayBuffer(8));
  });

  it('writes the next typed batch into a buffer the consumer gave back', () => {
    const link = new Link();
    const type = Types.record({ n: 'number' });
    const channel = new OutboundChannel(link, 5, edge, 0, 1, 2, 4, 1, type as never);
    channel.process({ n: 1 }, 10);
    const first = (link.sent[0] as TypedBatchMessage).numbers.buffer;
    channel.process({ n: 2 }, 11);
    assert.notEqual((link.sent[1] as TypedBatchMessage).numbers.buffer, first, 'no buffer came back yet');
    channel.recycle(first);
    // The third batch was already open in a new buffer; the one after it takes the buffer given back.
    channel.process({ n: 3 }, 12);
    channel.process({ n: 4 }, 13);
    assert.equal((link.sent[3] as TypedBatchMessage).numbers.buffer, first);
    assert.deepEqual(Array.from((link.sent[3] as TypedBatchMessage).numbers), [0, 13, 4]);
  });
});
