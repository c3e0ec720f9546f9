// ThreadExchange over a real MessageChannel (one thread, two exchanges): order, credits, congestion, bad records.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Transformation } from '../graph/transformation.ts';
import { StreamGraph } from '../graph/stream-graph.ts';
import type { InputChannel } from './input-channel.ts';
import { findUnencodable, RecordSerializationError, ThreadExchange } from './thread-exchange.ts';
import { threadExchangeFigures } from './thread-exchange-figures.ts';
import type { Subtask } from './subtask.ts';
import { waitTurns } from '../../test/support/wait-for.ts';

/** A two-node graph (source → map over a rebalance edge): the exchange only needs its edges. */
function graph(): StreamGraph {
  const source = new Transformation('source', 'numbers', []);
  const rebalanced = new Transformation('partition', 'rebalance', [source]);
  rebalanced.partitioning = { kind: 'rebalance' };
  const map = new Transformation('operator', 'double', [rebalanced]);
  const sink = new Transformation('sink', 'out', [map]);
  return new StreamGraph([sink], { defaultParallelism: 2 });
}

/** Records every call the consumer's channel receives, as text; its consumer has reached `reached` in event time. */
function recordingChannel(
  log: string[],
  blocked = { value: false },
  values: unknown[] = [],
  reached = { currentWatermark: Number.NEGATIVE_INFINITY },
): InputChannel {
  const channel = {
    get blocked() {
      return blocked.value;
    },
    consumer: reached,
    remote: undefined as { released(): void } | undefined,
    process: (value: unknown, ts: number) => {
      values.push(value);
      log.push(`record ${JSON.stringify(value)} @${ts}`);
    },
    watermark: (w: number) => log.push(`watermark ${w}`),
    status: (idle: boolean) => log.push(`idle ${idle}`),
    endOfInput: () => log.push('end'),
    barrier: (b: { id: number }) => log.push(`barrier ${b.id}`),
    describe: () => 'channel',
  };
  return channel as unknown as InputChannel;
}

/** A producer-side exchange (host 1) and a consumer-side one (host 2) joined by a MessageChannel. */
function pair(batchSize: number, credits: number) {
  const g = graph();
  const edge = g.nodes[0]!.outputs[0]!;
  const { port1, port2 } = new MessageChannel();
  const failures: unknown[] = [];
  const producer = new ThreadExchange(g, new Map([[2, port1]]), (e) => failures.push(e), batchSize, credits);
  const consumer = new ThreadExchange(g, new Map([[1, port2]]), (e) => failures.push(e), batchSize, credits);
  opened.push(producer, consumer);
  return { g, edge, producer, consumer, failures, close: () => (producer.close(), consumer.close()) };
}

/** Lets the event loop run `n` turns: a message between two ports of this thread arrives within a turn or two. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Exchanges and ports a test opened, closed after it even when it fails (an open port keeps the process alive). */
const opened: { close(): void }[] = [];
afterEach(() => {
  for (const x of opened.splice(0)) x.close();
});

describe('ThreadExchange', () => {
  it('delivers records, watermarks, idleness, barriers and end of input in order, in batches', async () => {
    const { edge, producer, consumer, close } = pair(3, 4);
    const log: string[] = [];
    const values: unknown[] = [];
    consumer.openInbound(edge, 0, 1, 1, recordingChannel(log, { value: false }, values));
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    out.process({ n: 1 }, 10);
    out.process({ n: 2, tags: new Set(['a']) }, 11);
    out.watermark(9);
    out.status(true);
    out.barrier({ id: 7, timestamp: 0, kind: 'checkpoint' });
    out.process(new Map([['k', 1n]]), 12);
    out.endOfInput();
    await waitTurns('the seven events', () => log.length === 7);
    assert.deepEqual(log, [
      'record {"n":1} @10',
      // Sets and Maps print as {} in JSON: their contents are checked below.
      'record {"n":2,"tags":{}} @11',
      'watermark 9',
      'idle true',
      'barrier 7',
      'record {} @12',
      'end',
    ]);
    assert.deepEqual((values[1] as { tags: Set<string> }).tags, new Set(['a']));
    assert.deepEqual(values[2], new Map([['k', 1n]]));
    close();
  });

  it('holds back sources and withholds credit upstream while a channel has no credit, and releases both', async () => {
    const { edge, producer, consumer, close } = pair(1, 2);
    const log: string[] = [];
    const blocked = { value: true };
    consumer.openInbound(edge, 0, 1, 1, recordingChannel(log, blocked));
    const out = producer.openOutbound(edge, 0, 1, 2);
    let holds = 0;
    const source = { holdBack: () => holds++, releaseHold: () => holds-- } as unknown as Subtask;
    producer.wireCongestion(out, [source], []);
    producer.start();
    consumer.start();
    // Batches of one event, two credits: the third waits, and the source is held back.
    out.process(1, 1);
    out.process(2, 2);
    out.process(3, 3);
    assert.equal(out.congested, true);
    assert.equal(holds, 1);
    await waitTurns('the first two records', () => log.length === 2);
    // The consumer's channel is blocked (aligning): the two batches were taken, but their credits are owed.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.congested, true);
    blocked.value = false;
    (consumer as unknown as { inbound: Map<number, { channel: InputChannel }> }).inbound
      .values()
      .next()
      .value!.channel.remote!.released();
    await waitTurns('the third record and the credit after it', () => log.length === 3 && !out.congested);
    assert.equal(holds, 0);
    assert.deepEqual(log, ['record 1 @1', 'record 2 @2', 'record 3 @3']);
    close();
  });

  it("counts batches, waits for credit and how far a channel's watermark runs ahead of its consumer's", async () => {
    const { edge, producer, consumer, close } = pair(1, 1);
    const log: string[] = [];
    const reached = { currentWatermark: Number.NEGATIVE_INFINITY };
    consumer.openInbound(edge, 0, 1, 1, recordingChannel(log, { value: false }, [], reached));
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    const before = { ...threadExchangeFigures() };
    // Batches of one event and one credit: the second batch waits for the credit of the first.
    out.watermark(5);
    out.process(1, 1);
    assert.equal(out.congested, true);
    await waitTurns('both batches', () => log.length === 2 && !out.congested);
    // The consumer had no watermark yet: nothing to compare with.
    const first = threadExchangeFigures();
    assert.equal(first.watermarkSamples, before.watermarkSamples);
    reached.currentWatermark = 100;
    out.watermark(150);
    out.watermark(160);
    await waitTurns('the next two batches', () => log.length === 4 && !out.congested);
    const after = threadExchangeFigures();
    // This thread runs both ends: four batches sent and received, two of them with a wait for credit.
    assert.equal(after.batchesSent - before.batchesSent, 4);
    assert.equal(after.batchesReceived - before.batchesReceived, 4);
    assert.equal(after.congestions - before.congestions, 2);
    assert.ok(after.congestedMs - before.congestedMs >= 0);
    // Each batch's last watermark against what the consumer reached (the fake consumer stays at 100).
    assert.equal(after.watermarkSamples - before.watermarkSamples, 2);
    assert.equal(after.watermarkLeadMs - before.watermarkLeadMs, 50 + 60);
    close();
  });

  it('keeps the credits of a channel while an operator it reaches is at capacity, and returns them on release', async () => {
    const { edge, producer, consumer, close } = pair(1, 2);
    const log: string[] = [];
    const channel = recordingChannel(log);
    consumer.openInbound(edge, 0, 1, 1, channel);
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    // An asynchronous operator downstream of the channel is at capacity (held twice, as two of them may be).
    consumer.withhold([channel], true);
    consumer.withhold([channel], true);
    out.process(1, 1);
    out.process(2, 2);
    out.process(3, 3);
    await waitTurns('the first two records', () => log.length >= 2);
    // Both batches were processed, but their credits stay with the consumer: the third batch waits.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.congested, true);
    assert.equal(out.waitingBatches, 1);
    consumer.withhold([channel], false);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.waitingBatches, 1);
    // The last hold released: the owed credits go back and the third batch crosses.
    consumer.withhold([channel], false);
    await waitTurns('the third record and the credit after it', () => log.length === 3 && !out.congested);
    assert.deepEqual(log, ['record 1 @1', 'record 2 @2', 'record 3 @3']);
    close();
  });

  it('fails a record that cannot be encoded with the operator, the edge and the field path', () => {
    const { edge, producer, close } = pair(10, 4);
    const out = producer.openOutbound(edge, 1, 0, 2);
    out.process({ id: 1, nested: { handler: () => 1 } }, 5);
    assert.throws(
      () => out.flush(),
      (error: unknown) =>
        error instanceof RecordSerializationError &&
        error.message ===
          "A record emitted by 'numbers' (subtask 2/2) cannot cross threads on edge 'numbers' → 'double' (rebalance), subtask 2 → 1: record.nested.handler is a function" &&
        (error.cause as Error).message === 'a function cannot cross threads',
    );
    close();
  });

  it('names the first record that cannot be encoded past the events before it in the batch', () => {
    const { edge, producer } = pair(10, 4);
    const out = producer.openOutbound(edge, 1, 0, 2);
    out.process({ id: 1 }, 4);
    out.watermark(4);
    out.process({ id: 2, handler: () => 2 }, 5);
    assert.throws(
      () => out.flush(),
      (error: unknown) =>
        error instanceof RecordSerializationError &&
        error.message ===
          "A record emitted by 'numbers' (subtask 2/2) cannot cross threads on edge 'numbers' → 'double' (rebalance), subtask 2 → 1: record.handler is a function",
    );
  });

  it('says why the encoder failed when no record holds what cannot cross', () => {
    const { edge, producer } = pair(10, 4);
    const out = producer.openOutbound(edge, 1, 0, 2);
    // A getter that fails once: the encoder meets the failure, the search for its field after it does not.
    const failingOnce = (thrown: unknown) => {
      let reads = 0;
      return {
        get id() {
          if (reads++ === 0) throw thrown;
          return 1;
        },
      };
    };
    const cause = new RangeError('offset out of range');
    out.process(failingOnce(cause), 5);
    assert.throws(
      () => out.flush(),
      (error: unknown) =>
        error instanceof RecordSerializationError &&
        error.message ===
          "A batch on edge 'numbers' → 'double' (rebalance), subtask 2 → 1 could not be encoded to cross threads: offset out of range" &&
        error.cause === cause,
    );
    // What was thrown need not be an Error.
    out.process(failingOnce(undefined), 6);
    assert.throws(
      () => out.flush(),
      (error: unknown) =>
        error instanceof RecordSerializationError &&
        error.message.endsWith('could not be encoded to cross threads: undefined'),
    );
  });

  it('finds the path of what cannot be encoded: functions, symbols, cycles; data types pass', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.equal(
      findUnencodable({ a: [1, { b: Symbol('x') }] }, 'record', new Set()),
      'record.a[1].b is a symbol',
    );
    assert.equal(
      findUnencodable(cyclic, 'record', new Set()),
      'record.self refers back to an enclosing object (a cycle)',
    );
    assert.equal(
      findUnencodable(new Map([['k', () => 0]]), 'record', new Set()),
      'record.get(k) is a function',
    );
    const shared = { x: 1 };
    assert.equal(
      findUnencodable(
        { d: new Date(0), t: new Float64Array(2), s: new Set([1]), m: new Map(), p: shared, q: shared },
        'record',
        new Set(),
      ),
      undefined,
    );
  });

  it('numbers channels from the edge, producer and consumer alone', () => {
    const { g, edge, producer, close } = pair(1, 1);
    assert.equal(producer.channelId(edge, 0, 0), 0);
    assert.equal(producer.channelId(edge, 1, 2), 65_536 + 2);
    assert.equal(producer.channelId(g.nodes[1]!.outputs[0]!, 0, 1), 65_536 * 65_536 + 1);
    close();
  });

  it('names the channels that wait for credit', async () => {
    const { edge, producer, consumer, close } = pair(1, 1);
    consumer.openInbound(edge, 0, 1, 1, recordingChannel([], { value: true }));
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    assert.deepEqual(producer.describeCongestion(), []);
    out.process(1, 1);
    out.process(2, 2);
    out.process(3, 3);
    assert.deepEqual(producer.describeCongestion(), [
      "channel 'numbers' → 'double' (rebalance), subtask 1 → 2 waits for credit (2 batch(es) held)",
    ]);
    close();
  });

  it('refuses a thread without a port and a channel not fed from another thread', () => {
    const { edge, producer, close } = pair(1, 1);
    assert.throws(() => producer.openOutbound(edge, 0, 0, 5), /^WeirError: No port to thread 5$/);
    assert.throws(
      () => producer.withhold([recordingChannel([])], true),
      /^WeirError: Channel channel is not fed from another thread$/,
    );
    close();
  });

  it('fails the job on a batch or a credit for a channel it does not know', async () => {
    const g = graph();
    const { port1, port2 } = new MessageChannel();
    const failures: unknown[] = [];
    const exchange = new ThreadExchange(g, new Map([[2, port1]]), (e) => failures.push(e), 4, 4);
    opened.push(exchange, port2);
    exchange.start();
    port2.postMessage([77, new Uint8Array(1)]);
    await waitTurns('the first failure', () => failures.length === 1);
    port2.postMessage([78, 1, 0, []]);
    await waitTurns('the second failure', () => failures.length === 2);
    assert.deepEqual(
      failures.map((e) => String(e)),
      [
        'WeirError: A batch arrived for unknown channel 77',
        'WeirError: A credit arrived for unknown channel 78',
      ],
    );
    exchange.close();
    port2.close();
  });

  it('names a map key, a set element and an array element that cannot be encoded', () => {
    assert.equal(findUnencodable(new Map([[() => 0, 1]]), 'record', new Set()), 'record key is a function');
    assert.equal(
      findUnencodable(new Set([1, Symbol('s')]), 'record', new Set()),
      'record element is a symbol',
    );
    assert.equal(findUnencodable([1, 2, () => 3], 'record', new Set()), 'record[2] is a function');
    assert.equal(findUnencodable(new Map([[1, { f: () => 0 }]]), 'r', new Set()), 'r.get(1).f is a function');
    assert.equal(
      findUnencodable(
        new Map<number, unknown>([
          [1, 1],
          [2, () => 0],
        ]),
        'record',
        new Set(),
      ),
      'record.get(2) is a function',
    );
    assert.equal(findUnencodable({ r: /x/, n: null, u: undefined, s: 'a' }, 'record', new Set()), undefined);
    assert.equal(findUnencodable([new Set([1]), new Map([[1, 2]])], 'record', new Set()), undefined);
  });

  it('sends nothing once closed: a batch is neither encoded nor posted', async () => {
    const { edge, producer, consumer, failures } = pair(10, 4);
    const log: string[] = [];
    consumer.openInbound(edge, 0, 1, 1, recordingChannel(log));
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    out.process(1, 1);
    out.flush();
    await waitTurns('the record sent before closing', () => log.length === 1);
    producer.close();
    out.process({ f: () => 1 }, 2);
    out.flush();
    out.process(3, 3);
    await turns(20);
    assert.deepEqual(log, ['record 1 @1']);
    assert.deepEqual(failures, []);
  });

  it('handles nothing more once closed, even batches that arrived with the one that closed it', async () => {
    const { edge, producer, consumer, failures } = pair(1, 4);
    const log: string[] = [];
    const channel = recordingChannel(log);
    const process = channel.process.bind(channel);
    // The first record fails the job, whose attempt closes the exchange.
    channel.process = (value: unknown, ts: number) => {
      process(value, ts);
      consumer.close();
    };
    consumer.openInbound(edge, 0, 1, 1, channel);
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    // Batches of one: two messages, delivered in one go.
    out.process(1, 1);
    out.process(2, 2);
    await waitTurns('the first record', () => log.length === 1);
    await turns(20);
    assert.deepEqual(log, ['record 1 @1']);
    assert.deepEqual(failures, []);
  });

  it('transfers the buffer of every batch it posts instead of copying it', () => {
    const g = graph();
    const edge = g.nodes[0]!.outputs[0]!;
    const { port1, port2 } = new MessageChannel();
    opened.push(port1, port2);
    const posted: { message: unknown[]; transfer: readonly unknown[] }[] = [];
    const post = port1.postMessage.bind(port1);
    port1.postMessage = (message: unknown[], transfer: readonly ArrayBuffer[]) => {
      post(message, transfer);
      posted.push({ message, transfer });
    };
    const producer = new ThreadExchange(g, new Map([[2, port1]]), () => {}, 10, 4);
    const out = producer.openOutbound(edge, 0, 1, 2);
    out.process({ id: 1 }, 1);
    out.flush();
    const numbers = new Float64Array([0, 1, 7]);
    producer.send(out, { numbers, strings: undefined, barriers: undefined });
    // Transferred: the sender's views of both buffers are detached (a copy would leave them as they were).
    assert.equal(posted.length, 2);
    assert.equal((posted[0]!.message[1] as Uint8Array).byteLength, 0);
    assert.equal(posted[0]!.transfer.length, 1);
    assert.equal(numbers.byteLength, 0);
    assert.equal(posted[1]!.transfer.length, 1);
  });

  it('returns owed credits only once the channel is neither blocked nor held, and no empty grant', async () => {
    const { edge, producer, consumer } = pair(1, 1);
    const log: string[] = [];
    const blocked = { value: false };
    const channel = recordingChannel(log, blocked);
    consumer.openInbound(edge, 0, 1, 1, channel);
    const out = producer.openOutbound(edge, 0, 1, 2);
    const grants: unknown[] = [];
    const port = (consumer as unknown as { peers: Map<number, { port: MessagePort }> }).peers.get(1)!.port;
    const post = port.postMessage.bind(port);
    port.postMessage = (message: unknown, transfer: readonly ArrayBuffer[]) => {
      grants.push(message);
      post(message, transfer);
    };
    producer.start();
    consumer.start();
    // Nothing owed: a release sends nothing.
    channel.remote!.released();
    assert.deepEqual(grants, []);
    blocked.value = true;
    consumer.withhold([channel], true);
    out.process(1, 1);
    await waitTurns('the first record', () => log.length === 1);
    // Still blocked when the hold ends, then still held when unblocked: the credit stays owed.
    consumer.withhold([channel], false);
    consumer.withhold([channel], true);
    blocked.value = false;
    channel.remote!.released();
    await turns(20);
    assert.deepEqual(grants, []);
    consumer.withhold([channel], false);
    await waitTurns('the credit', () => !out.congested && grants.length === 1);
    assert.deepEqual(grants, [[producer.channelId(edge, 0, 1), 1, 0, []]]);
    // Once closed, an owed credit is not sent.
    blocked.value = true;
    out.process(2, 2);
    await waitTurns('the second record', () => log.length === 2);
    consumer.close();
    blocked.value = false;
    channel.remote!.released();
    assert.equal(grants.length, 1);
  });

  it('withholds only the credits of the channel it is told to', async () => {
    const { edge, producer, consumer } = pair(1, 1);
    const first: string[] = [];
    const second: string[] = [];
    const fromFirst = recordingChannel(first);
    const fromSecond = recordingChannel(second);
    consumer.openInbound(edge, 0, 1, 1, fromFirst);
    consumer.openInbound(edge, 1, 1, 1, fromSecond);
    const out0 = producer.openOutbound(edge, 0, 1, 2);
    const out1 = producer.openOutbound(edge, 1, 1, 2);
    producer.start();
    consumer.start();
    consumer.withhold([fromSecond], true);
    out0.process(1, 1);
    out1.process(1, 1);
    await waitTurns('a record on each channel', () => first.length === 1 && second.length === 1);
    // Granted, a credit would be back within these turns: only the first channel's comes back.
    await turns(20);
    out0.process(2, 2);
    out1.process(2, 2);
    assert.equal(out0.waitingBatches, 0);
    assert.equal(out1.waitingBatches, 1);
  });

  it('fails the job when a batch sent at the end of the turn cannot be encoded', async () => {
    const { edge, producer, failures, close } = pair(10, 4);
    const out = producer.openOutbound(edge, 0, 1, 2);
    out.process({ id: 1, f: () => 1 }, 5);
    await waitTurns('the first failure', () => failures.length === 1);
    assert.ok(failures[0] instanceof RecordSerializationError);
    assert.match(String(failures[0]), /record\.f is a function$/);
    close();
  });

  it('withholds the credits of a channel from another thread while what it feeds waits for credit', async () => {
    const g = graph();
    const first = g.nodes[0]!.outputs[0]!;
    const second = g.nodes[1]!.outputs[0]!;
    const ab = new MessageChannel();
    const bc = new MessageChannel();
    const failures: unknown[] = [];
    const a = new ThreadExchange(g, new Map([[2, ab.port1]]), (e) => failures.push(e), 1, 1);
    const b = new ThreadExchange(
      g,
      new Map([
        [1, ab.port2],
        [3, bc.port1],
      ]),
      (e) => failures.push(e),
      1,
      1,
    );
    const c = new ThreadExchange(g, new Map([[2, bc.port2]]), (e) => failures.push(e), 1, 1);
    opened.push(a, b, c);
    // Thread c's channel is blocked (aligning): it owes the credit of every batch it takes.
    const log: string[] = [];
    const blocked = { value: true };
    const end = recordingChannel(log, blocked);
    c.openInbound(second, 0, 0, 2, end);
    // Thread b forwards what arrives from a to c.
    const toC = b.openOutbound(second, 0, 0, 3);
    const middle = {
      blocked: false,
      remote: undefined as { released(): void } | undefined,
      process: (value: unknown, ts: number) => toC.process(value, ts),
      describe: () => 'middle',
    } as unknown as InputChannel;
    b.openInbound(first, 0, 0, 1, middle);
    b.wireCongestion(toC, [], [middle]);
    const fromA = a.openOutbound(first, 0, 0, 2);
    for (const x of [a, b, c]) x.start();
    fromA.process(1, 1);
    await waitTurns('the first record', () => log.length === 1);
    fromA.process(2, 2);
    await waitTurns("b's channel to c out of credit", () => toC.congested);
    // b took 2 but holds its credit back while its channel to c waits (granted, it would be back within these
    // turns): a's third batch waits.
    await turns(20);
    fromA.process(3, 3);
    assert.equal(fromA.waitingBatches, 1);
    assert.equal(fromA.congested, true);
    blocked.value = false;
    (end as unknown as { remote: { released(): void } }).remote.released();
    await waitTurns(
      'the third record and both credits back',
      () => log.length === 3 && !fromA.congested && !toC.congested,
    );
    assert.deepEqual(log, ['record 1 @1', 'record 2 @2', 'record 3 @3']);
    assert.deepEqual(failures, []);
    for (const x of [a, b, c]) x.close();
  });

  it('sends a batch by default once it holds 16,384 events, and the rest at the end of the turn', async () => {
    const g = graph();
    const edge = g.nodes[0]!.outputs[0]!;
    const { port1, port2 } = new MessageChannel();
    opened.push(port1, port2);
    const posted: unknown[][] = [];
    port1.postMessage = (message: unknown[]) => {
      posted.push(message);
    };
    const producer = new ThreadExchange(g, new Map([[2, port1]]), () => {});
    const out = producer.openOutbound(edge, 0, 1, 2);
    for (let i = 0; i < 16_383; i++) out.process(i, i);
    assert.equal(posted.length, 0);
    out.process(16_383, 16_383);
    assert.equal(posted.length, 1);
    out.process(16_384, 16_384);
    assert.equal(posted.length, 1);
    await turns(1);
    assert.equal(posted.length, 2);
  });

  it('sends a batch that is not full at the end of every turn', async () => {
    const { edge, producer, consumer, close } = pair(100, 4);
    const log: string[] = [];
    consumer.openInbound(edge, 0, 1, 1, recordingChannel(log));
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    out.process(1, 1);
    await waitTurns('the first record', () => log.length === 1);
    out.process(2, 2);
    out.watermark(3);
    await waitTurns('the second record and the watermark', () => log.length === 3);
    assert.deepEqual(log, ['record 1 @1', 'record 2 @2', 'watermark 3']);
    close();
  });
});
