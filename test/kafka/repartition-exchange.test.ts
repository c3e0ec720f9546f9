// The repartition exchange against the real broker: records by key group, merged watermarks, idleness, transactions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonCodec } from '../../src/connectors/kafka/repartition-codec.ts';
import { RepartitionReader, type RepartitionOutput } from '../../src/connectors/kafka/repartition-reader.ts';
import { RepartitionWriter } from '../../src/connectors/kafka/repartition-writer.ts';
import { bootstrapServers, createTopic, highWatermarks, readAll, uniqueTopic } from './kafka-test-cluster.ts';

interface Keyed {
  readonly key: string;
  readonly n: number;
}

/**
 * Keys whose key group (max parallelism 128) lies in each partition of a 4-partition topic: 'b' is key group 3
 * (partition 0), 'c' 61 (partition 1), 'f' 91 (partition 2), 'a' 117 (partition 3).
 */
const PARTITION_OF: Record<string, number> = { b: 0, c: 1, f: 2, a: 3 };

/** What a reader emitted, as text: `key/n@timestamp` for a record, `W<watermark>`, `idle` and `active`. */
class Recorder implements RepartitionOutput<Keyed> {
  events: string[] = [];
  collect(value: Keyed, timestamp: number | undefined): void {
    this.events.push(`${value.key}/${value.n}@${timestamp ?? 'none'}`);
  }
  emitWatermark(watermark: number): void {
    this.events.push(`W${watermark}`);
  }
  markIdle(idle: boolean): void {
    this.events.push(idle ? 'idle' : 'active');
  }
  /**
   * What was emitted since the last take. Records read within one step may come from several partitions in any
   * order, so a step's run of records is sorted; watermarks and idleness stay where they were emitted.
   */
  take(): string[] {
    const out: string[] = [];
    let run: string[] = [];
    for (const e of this.events) {
      if (e.includes('@')) run.push(e);
      else {
        out.push(...run.sort(), e);
        run = [];
      }
    }
    out.push(...run.sort());
    this.events = [];
    return out;
  }
}

/** Polls until the reader has read every partition up to the topic's current end (an observable point). */
async function drain(reader: RepartitionReader<Keyed>, output: Recorder): Promise<string[]> {
  const ends = await highWatermarks(reader.topic);
  const deadline = Date.now() + 60_000;
  const caughtUp = () => reader.positions().every((p) => p.offset >= ends.get(p.partition)!);
  while (!caughtUp()) {
    if (Date.now() > deadline)
      throw new Error(
        `reader did not reach ${JSON.stringify([...ends])}: at ${JSON.stringify(reader.positions())}`,
      );
    await reader.poll(output);
  }
  return output.take();
}

function writer(
  topic: string,
  producerId: string,
  transactionalId?: string,
): Promise<RepartitionWriter<Keyed>> {
  return RepartitionWriter.open<Keyed>({
    bootstrapServers: bootstrapServers(),
    topic,
    producerId,
    keySelector: (r) => r.key,
    codec: jsonCodec(),
    ...(transactionalId === undefined ? {} : { transactionalId }),
  });
}

function reader(
  topic: string,
  producers: string[],
  partitions = [0, 1, 2, 3],
): Promise<RepartitionReader<Keyed>> {
  return RepartitionReader.open<Keyed>({
    bootstrapServers: bootstrapServers(),
    topic,
    partitions,
    producers,
    codec: jsonCodec(),
  });
}

describe('repartition exchange (Kafka)', { timeout: 180_000 }, () => {
  it('writes records into the partition of their key group and merges two producers’ watermarks', async () => {
    const topic = uniqueTopic('repartition-merge');
    await createTopic(topic, 4);
    // Each announcement flushed before the next producer opens, so every partition starts with A's, then B's.
    const a = await writer(topic, 'A');
    await a.flush();
    const b = await writer(topic, 'B');
    await b.flush();
    const consumer = await reader(topic, ['A', 'B']);
    const out = new Recorder();
    try {
      const step = async (write: () => void | Promise<void>) => {
        await write();
        await a.flush();
        await b.flush();
        return drain(consumer, out);
      };
      // Both producers announced themselves at -Infinity: nothing to emit yet.
      assert.deepEqual(await step(() => {}), []);
      assert.deepEqual(
        await step(() => {
          a.write({ key: 'a', n: 1 }, 1000);
          a.write({ key: 'b', n: 2 }, 0);
          a.write({ key: 'c', n: 3 }, 900);
          a.emitWatermark(1000);
        }),
        ['a/1@1000', 'b/2@0', 'c/3@900'], // B has written no watermark: A's 1000 is not enough
      );
      assert.deepEqual(
        await step(() => {
          b.write({ key: 'f', n: 4 }, 2500);
          b.write({ key: 'a', n: 5 });
          b.emitWatermark(3000);
        }),
        ['a/5@none', 'f/4@2500', 'W1000'],
      );
      assert.deepEqual(await step(() => a.emitWatermark(2000)), ['W2000']);
      assert.deepEqual(await step(() => a.emitWatermark(5000)), ['W3000']); // B at 3000 holds it back
      assert.deepEqual(await step(() => b.markIdle()), ['W5000']); // idle B no longer does
      // B writes again: it first says it is active at 3000, below what was emitted, so nothing moves.
      assert.deepEqual(await step(() => b.write({ key: 'c', n: 6 }, 5500)), ['c/6@5500']);
      assert.deepEqual(await step(() => b.emitWatermark(6000)), []); // A at 5000 is the minimum again
      assert.deepEqual(await step(() => a.markIdle()), ['W6000']);
      assert.deepEqual(await step(() => b.markIdle()), ['idle']);
      assert.deepEqual(await step(() => a.end()), []); // A ended, B idle: still idle
      assert.deepEqual(await step(() => b.end()), ['active', 'WInfinity']);
      assert.equal(await consumer.poll(out), 'end');

      // Every record is in the partition of its key's key group; every partition carries every marker.
      const raw = await readAll(topic);
      const records = raw.filter((r) => r.headers.length === 0).map((r) => JSON.parse(r.value) as Keyed);
      assert.deepEqual(
        raw
          .filter((r) => r.headers.length === 0)
          .map((r) => `${(JSON.parse(r.value) as Keyed).key}:${r.partition}`)
          .sort(),
        records.map((r) => `${r.key}:${PARTITION_OF[r.key]}`).sort(),
      );
      for (let p = 0; p < 4; p++) {
        const markers = raw
          .filter((r) => r.partition === p && r.headers.length > 0)
          .map((r) => JSON.parse(r.value));
        assert.deepEqual(
          markers.map(
            (m: { producer: string; kind: string; watermark?: number | string }) =>
              `${m.producer}:${m.kind}${m.watermark === undefined ? '' : m.watermark}`,
          ),
          [
            'A:watermark-Infinity',
            'B:watermark-Infinity',
            'A:watermark1000',
            'B:watermark3000',
            'A:watermark2000',
            'A:watermark5000',
            'B:idle',
            'B:watermark3000',
            'B:watermark6000',
            'A:idle',
            'B:idle',
            'A:end',
            'B:end',
          ],
          `markers of partition ${p}`,
        );
      }
    } finally {
      await Promise.all([a.close(), b.close(), consumer.close()]);
    }
  });

  it('a consumer of one partition sees its key groups’ records and the same watermarks, in partition order', async () => {
    const topic = uniqueTopic('repartition-one');
    await createTopic(topic, 4);
    const a = await writer(topic, 'A');
    const b = await writer(topic, 'B');
    // Written one after the other and flushed in between, so partition 3's order is fixed.
    for (const run of [
      () => a.write({ key: 'a', n: 1 }, 100),
      () => a.write({ key: 'b', n: 2 }, 100),
      () => a.emitWatermark(100),
      () => b.write({ key: 'a', n: 3 }, 150),
      () => b.emitWatermark(200),
      () => a.write({ key: 'a', n: 4 }, 300),
      () => a.end(),
      () => b.write({ key: 'd', n: 5 }, 250),
      () => b.end(),
    ]) {
      await run();
      await a.flush();
      await b.flush();
    }
    const consumer = await reader(topic, ['A', 'B'], [3]);
    const out = new Recorder();
    try {
      while ((await consumer.poll(out)) === 'more');
      // W100 waits for B's first watermark; A's end leaves B's 200.
      assert.deepEqual(out.events, ['a/1@100', 'a/3@150', 'W100', 'a/4@300', 'W200', 'd/5@250', 'WInfinity']);
    } finally {
      await Promise.all([a.close(), b.close(), consumer.close()]);
    }
  });

  it('waits for expected producers and for a new producer on every partition; idle ones do not hold it back', async () => {
    const topic = uniqueTopic('repartition-idle');
    await createTopic(topic, 4);
    const a = await writer(topic, 'A');
    const consumer = await reader(topic, ['A', 'B']);
    const out = new Recorder();
    let b: RepartitionWriter<Keyed> | undefined;
    let c: RepartitionWriter<Keyed> | undefined;
    try {
      a.emitWatermark(1000);
      await a.flush();
      assert.deepEqual(await drain(consumer, out), []); // B is expected and not heard from
      b = await writer(topic, 'B');
      b.markIdle();
      await b.flush();
      assert.deepEqual(await drain(consumer, out), ['W1000']); // B idle from the start
      c = await writer(topic, 'C'); // not expected: known from its first marker on, at -Infinity
      await c.flush();
      a.emitWatermark(2000);
      await a.flush();
      assert.deepEqual(await drain(consumer, out), []);
      assert.deepEqual(consumer.knownProducers.sort(), ['A', 'B', 'C']);
      c.emitWatermark(1500);
      await c.flush();
      assert.deepEqual(await drain(consumer, out), ['W1500']);
      c.markIdle();
      await c.flush();
      assert.deepEqual(await drain(consumer, out), ['W2000']);
      a.markIdle();
      await a.flush();
      assert.deepEqual(await drain(consumer, out), ['idle']);
    } finally {
      await Promise.all([a.close(), b?.close(), c?.close(), consumer.close()]);
    }
  });

  it('in transactions, read_committed sees committed records and markers only; a new writer fences the old', async () => {
    const topic = uniqueTopic('repartition-txn');
    await createTopic(topic, 4);
    const id = `${topic}-task-0`;
    const first = await writer(topic, 'A', id);
    const consumer = await reader(topic, ['A']);
    const out = new Recorder();
    let second: RepartitionWriter<Keyed> | undefined;
    try {
      await first.beginTransaction();
      first.write({ key: 'a', n: 1 }, 500);
      first.write({ key: 'f', n: 2 }, 700);
      first.emitWatermark(1000);
      await first.commitTransaction();
      assert.deepEqual(await drain(consumer, out), ['a/1@500', 'f/2@700', 'W1000']);

      // A transaction left open (its records on the broker), then a successor with the same id takes over.
      await first.beginTransaction();
      first.write({ key: 'c', n: 3 }, 4000);
      first.emitWatermark(5000);
      await first.flush();
      second = await writer(topic, 'A', id);
      await assert.rejects(first.commitTransaction(), /fenced|epoch|Fenced/i);
      await second.beginTransaction();
      second.write({ key: 'b', n: 4 }, 1500);
      second.emitWatermark(2000);
      await second.commitTransaction();
      assert.deepEqual(await drain(consumer, out), ['b/4@1500', 'W2000']);

      // The aborted record and watermark are on the broker, visible only to a read_uncommitted reader.
      const uncommitted = (await readAll(topic, 'read_uncommitted')).map((r) => r.value);
      assert.ok(uncommitted.includes(JSON.stringify({ key: 'c', n: 3 })));
      const committed = (await readAll(topic)).map((r) => r.value);
      assert.ok(!committed.includes(JSON.stringify({ key: 'c', n: 3 })));
    } finally {
      await Promise.all([first.close().catch(() => {}), second?.close(), consumer.close()]);
    }
  });
});
