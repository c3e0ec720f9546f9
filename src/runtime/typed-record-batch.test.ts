// Typed record batches over a real MessageChannel: exact values and order, and records that do not fit their type.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { Types, type RecordType } from '../core/record-type.ts';
import { TaggedUnionType } from '../core/tagged-union-type.ts';
import { OutputTag } from '../core/output-tag.ts';
import { Transformation } from '../graph/transformation.ts';
import { StreamGraph } from '../graph/stream-graph.ts';
import type { InputChannel } from './input-channel.ts';
import { RecordSerializationError, ThreadExchange } from './thread-exchange.ts';
import { BARRIER, RECORD, STATUS } from './exchange-event-kinds.ts';
import { codecOf, deliverTypedBatch, describeMismatch, TypedRecordBatch } from './typed-record-batch.ts';
import {
  keepBatchBuffer,
  keptBatchBufferBytes,
  MAX_KEPT_BYTES,
  takeKeptBatchBuffer,
} from './kept-batch-buffers.ts';
import { setFlagsFromString } from 'node:v8';
import { waitTurns } from '../../test/support/wait-for.ts';

const Click = Types.record({ user: 'string', page: 'number', premium: 'boolean', ts: 'number' });

/** source 'clicks' (declared type) → rebalance → 'count', at parallelism 2. */
function graph(type: RecordType<any> | undefined) {
  const source = new Transformation('source', 'clicks', []);
  source.outputType = type;
  const rebalanced = new Transformation('partition', 'rebalance', [source]);
  rebalanced.partitioning = { kind: 'rebalance' };
  const count = new Transformation('operator', 'count', [rebalanced]);
  const sink = new Transformation('sink', 'out', [count]);
  return new StreamGraph([sink], { defaultParallelism: 2 });
}

function pair(type: RecordType<any> | undefined, batchSize: number) {
  const g = graph(type);
  const edge = g.nodes[0]!.outputs[0]!;
  const { port1, port2 } = new MessageChannel();
  const failures: unknown[] = [];
  const producer = new ThreadExchange(g, new Map([[2, port1]]), (e) => failures.push(e), batchSize, 4);
  const consumer = new ThreadExchange(g, new Map([[1, port2]]), (e) => failures.push(e), batchSize, 4);
  opened.push(producer, consumer);
  const received: unknown[] = [];
  const log: string[] = [];
  const channel = {
    blocked: false,
    remote: undefined,
    // its consumer has no watermark yet (the exchange compares a batch's last watermark with it)
    consumer: { currentWatermark: Number.NEGATIVE_INFINITY },
    process: (value: unknown, ts: number) => {
      received.push(value);
      log.push(`record @${ts}`);
    },
    watermark: (w: number) => log.push(`watermark ${w}`),
    status: (idle: boolean) => log.push(`idle ${idle}`),
    endOfInput: () => log.push('end'),
    barrier: (b: { id: number; kind: string }) => log.push(`barrier ${b.id} ${b.kind}`),
    describe: () => 'channel',
  } as unknown as InputChannel;
  consumer.openInbound(edge, 0, 1, 1, channel);
  const out = producer.openOutbound(edge, 0, 1, 2);
  producer.start();
  consumer.start();
  return { out, received, log, failures, close: () => (producer.close(), consumer.close()) };
}

/** Exchanges a test opened, closed after it even when it fails (an open port keeps the process alive). */
const opened: { close(): void }[] = [];
afterEach(() => {
  for (const x of opened.splice(0)) x.close();
});

/**
 * Empties this thread's kept buffers: a closed exchange keeps its buffers for the next job, and the sizes these tests
 * check are those of batches that start without any.
 */
function dropKeptBuffers(): void {
  while (takeKeptBatchBuffer(0) !== undefined);
}

describe('typed record batches', () => {
  beforeEach(dropKeptBuffers);

  it('carry every declared field exactly, with watermarks, idleness, barriers and end of input in order', async () => {
    const { out, received, log, failures, close } = pair(Click, 3);
    out.process({ user: 'ada', page: -0, premium: true, ts: 1.5 }, 10);
    out.watermark(9);
    out.process({ ts: NaN, premium: false, page: 2 ** 53 + 2, user: '' }, 11);
    out.status(true);
    out.barrier({ id: 7, timestamp: 3, kind: 'savepoint' });
    out.processKeyed({ user: 'zoë 🌊', page: -Infinity, premium: false, ts: 0 }, -5);
    out.endOfInput();
    await waitTurns('the seven events', () => log.length === 7);
    assert.deepEqual(log, [
      'record @10',
      'watermark 9',
      'record @11',
      'idle true',
      'barrier 7 savepoint',
      'record @-5',
      'end',
    ]);
    assert.deepEqual(received, [
      { user: 'ada', page: -0, premium: true, ts: 1.5 },
      { user: '', page: 2 ** 53 + 2, premium: false, ts: NaN },
      { user: 'zoë 🌊', page: -Infinity, premium: false, ts: 0 },
    ]);
    assert.ok(Object.is((received[0] as { page: number }).page, -0));
    // Declaration order, plain objects: every decoded record has the same shape.
    assert.deepEqual(Object.keys(received[1]!), ['user', 'page', 'premium', 'ts']);
    assert.equal(Object.getPrototypeOf(received[2]), Object.prototype);
    assert.deepEqual(failures, []);
    close();
  });

  it('fill batches past their first buffer and keep strings in step with numbers', async () => {
    const { out, received, close } = pair(Click, 1000);
    for (let i = 0; i < 700; i++) out.process({ user: `u${i}`, page: i, premium: i % 3 === 0, ts: i * 2 }, i);
    out.flush();
    await waitTurns('700 records', () => received.length === 700);
    assert.deepEqual(received[0], { user: 'u0', page: 0, premium: true, ts: 0 });
    assert.deepEqual(received[699], { user: 'u699', page: 699, premium: true, ts: 1398 });
    assert.equal(
      received.every(
        (r, i) =>
          (r as { user: string; page: number }).user === `u${i}` && (r as { page: number }).page === i,
      ),
      true,
    );
    close();
  });

  it('write later batches into the buffers the consumer gave back, without mixing their records', async () => {
    // Batches of 4 with 4 credits: 40 batches, each written into a buffer that crossed back, once any has.
    const { out, received, failures, close } = pair(Click, 4);
    for (let i = 0; i < 160; i++) {
      out.process({ user: `u${i}`, page: i, premium: i % 2 === 0, ts: -i }, i);
      // Let the consumer read what was sent and its grants come back, every second batch.
      if (i % 8 === 7) await waitTurns(`record ${i + 1}`, () => received.length === i + 1);
    }
    out.flush();
    await waitTurns('160 records', () => received.length === 160);
    assert.deepEqual(
      received,
      Array.from({ length: 160 }, (_, i) => ({ user: `u${i}`, page: i, premium: i % 2 === 0, ts: -i })),
    );
    assert.deepEqual(failures, []);
    close();
  });

  it('give each batch buffer back with its credit, to the channel that sent it', async () => {
    const { out, received, failures } = pair(Click, 1);
    const recycled: number[] = [];
    const recycle = out.recycle.bind(out);
    out.recycle = (buffer: ArrayBuffer) => {
      recycled.push(buffer.byteLength);
      recycle(buffer);
    };
    for (let i = 0; i < 3; i++) out.process({ user: `u${i}`, page: i, premium: false, ts: i }, i);
    await waitTurns('three records and their credits', () => received.length === 3 && recycled.length === 3);
    // One record of five numbers per batch (kind, timestamp, page, premium, ts).
    assert.deepEqual(recycled, [5 * 8, 5 * 8, 5 * 8]);
    assert.deepEqual(failures, []);
  });

  it('take a spare buffer for the next batch, and leave one smaller than the batches have grown to', () => {
    const Point = Types.record({ x: 'number' });
    const batch = new TypedRecordBatch(Point, 2);
    batch.record({ x: 1 }, 0);
    const first = batch.take();
    assert.deepEqual([...first.numbers], [RECORD, 0, 1]);
    // The second batch is already open in a new buffer; the consumer gives the first one back, which the third
    // batch is written into.
    batch.recycle(first.numbers.buffer);
    batch.record({ x: 2 }, 5);
    const second = batch.take();
    assert.notEqual(second.numbers.buffer, first.numbers.buffer);
    batch.record({ x: 3 }, 6);
    const third = batch.take();
    assert.equal(third.numbers.buffer, first.numbers.buffer);
    assert.deepEqual([...third.numbers], [RECORD, 6, 3]);
    // A buffer smaller than the batch's own is not kept: with no spare left, a new one of the same size is made.
    batch.recycle(new ArrayBuffer(8));
    const fourth = batch.take();
    assert.notEqual(fourth.numbers.buffer.byteLength, 8);
    assert.equal(batch.take().numbers.buffer.byteLength, fourth.numbers.buffer.byteLength);
  });

  const refused: [string, unknown, string][] = [
    [
      'a field of another type',
      { user: 'ada', page: '3', premium: true, ts: 1 },
      `field 'page' holds the string "3" where {user: string, page: number, premium: boolean, ts: number} declares number`,
    ],
    [
      'a missing field',
      { user: 'ada', page: 3, ts: 1 },
      `field 'premium' holds undefined where {user: string, page: number, premium: boolean, ts: number} declares boolean`,
    ],
    [
      'a field that is not declared',
      { user: 'ada', page: 3, premium: true, ts: 1, extra: 0 },
      `field 'extra' is not declared in {user: string, page: number, premium: boolean, ts: number} (it would be lost)`,
    ],
    [
      'a class instance',
      new (class Visit {
        user = 'ada';
        page = 1;
        premium = true;
        ts = 1;
      })(),
      'the record is an instance of Visit; a declared record type carries plain objects only',
    ],
    ['a number instead of a record', 42, 'the record is the number 42, not an object'],
    ['null', null, 'the record is null, not an object'],
  ];
  for (const [what, record, problem] of refused) {
    it(`refuse ${what}, naming the operator, the edge and the field`, () => {
      const { out, close } = pair(Click, 10);
      assert.throws(
        () => out.process(record, 5),
        (error: unknown) =>
          error instanceof RecordSerializationError &&
          error.message ===
            `A record emitted by 'clicks' (subtask 1/2) cannot cross threads on edge 'clicks' → 'count' (rebalance), subtask 1 → 2: ${problem}`,
      );
      close();
    });
  }

  it('leave a refused record out of the batch: the records around it arrive unchanged', async () => {
    const { out, received, close } = pair(Click, 10);
    out.process({ user: 'a', page: 1, premium: true, ts: 1 }, 1);
    assert.throws(
      () => out.process({ user: 'b', page: 2, premium: 'yes', ts: 2 }, 2),
      RecordSerializationError,
    );
    out.process({ user: 'c', page: 3, premium: false, ts: 3 }, 3);
    out.flush();
    await waitTurns('the two records that fit', () => received.length === 2);
    assert.deepEqual(received, [
      { user: 'a', page: 1, premium: true, ts: 1 },
      { user: 'c', page: 3, premium: false, ts: 3 },
    ]);
    close();
  });

  it("leave a side output to msgpackr: the producer's declared type is its main output's", async () => {
    // clicks (declared Click) → side output 'late' → rebalance → 'late clicks'.
    const source = new Transformation('source', 'clicks', []);
    source.outputType = Click;
    const side = new Transformation('side-output', 'late', [source]);
    side.sideTag = new OutputTag('late');
    const rebalanced = new Transformation('partition', 'rebalance', [side]);
    rebalanced.partitioning = { kind: 'rebalance' };
    const late = new Transformation('operator', 'late clicks', [rebalanced]);
    const g = new StreamGraph([new Transformation('sink', 'out', [late])], { defaultParallelism: 2 });
    const edge = g.nodes[0]!.outputs[0]!;
    assert.equal(edge.sideTag?.id, 'late');
    const { port1, port2 } = new MessageChannel();
    const failures: unknown[] = [];
    const producer = new ThreadExchange(g, new Map([[2, port1]]), (e) => failures.push(e), 10, 4);
    const consumer = new ThreadExchange(g, new Map([[1, port2]]), (e) => failures.push(e), 10, 4);
    opened.push(producer, consumer);
    const received: unknown[] = [];
    consumer.openInbound(edge, 0, 1, 1, {
      blocked: false,
      process: (value: unknown) => received.push(value),
      describe: () => 'channel',
    } as unknown as InputChannel);
    const out = producer.openOutbound(edge, 0, 1, 2);
    producer.start();
    consumer.start();
    // Not a Click: a side output carries whatever its tag says.
    out.process({ user: 'ada', lateBy: [3, 4] }, 1);
    out.flush();
    await waitTurns('the side-output record', () => received.length === 1);
    assert.deepEqual(received, [{ user: 'ada', lateBy: [3, 4] }]);
    assert.deepEqual(failures, []);
  });

  it('leave streams without a declared type to msgpackr, which carries nested values', async () => {
    const { out, received, close } = pair(undefined, 10);
    out.process({ user: 'ada', tags: ['x'], nested: { a: 1 } }, 1);
    out.flush();
    await waitTurns('the record', () => received.length === 1);
    assert.deepEqual(received, [{ user: 'ada', tags: ['x'], nested: { a: 1 } }]);
    close();
  });
});

describe('Types.record', () => {
  it('describes its fields and refuses a field type it cannot write', () => {
    assert.equal(Click.describe(), '{user: string, page: number, premium: boolean, ts: number}');
    assert.deepEqual([Click.numericFields, Click.stringFields], [3, 1]);
    assert.throws(
      () => Types.record({ when: 'date' as 'number' }),
      /field 'when' has type "date"; a flat record's fields are 'number', 'string' or 'boolean'/,
    );
    assert.throws(() => Types.record({}), /at least one field/);
  });
});

describe('TypedRecordBatch, written directly', () => {
  beforeEach(dropKeptBuffers);

  it('grows its buffer for control events past the first batch size', () => {
    const batch = new TypedRecordBatch(Click, 1);
    batch.watermark(10);
    batch.status(true);
    batch.endOfInput();
    batch.barrier({ id: 4, timestamp: 0, kind: 'checkpoint' });
    const message = batch.take();
    assert.deepEqual(Array.from(message.numbers), [1, 10, 2, 1, 3, 0, 4, 0]);
    assert.deepEqual(message.barriers, [{ id: 4, timestamp: 0, kind: 'checkpoint' }]);
    assert.equal(message.strings, undefined);
  });
});

describe('TypedRecordBatch, generated for each new type', () => {
  beforeEach(dropKeptBuffers);

  it('writes and reads fields of every kind in declaration order, and refuses what does not fit', () => {
    // A type made here: its codec is generated by this test, not taken from the cache.
    const Mixed = Types.record({ on: 'boolean', name: 'string', n: 'number', tag: 'string', off: 'boolean' });
    const batch = new TypedRecordBatch(Mixed, 8);
    const fits = { on: true, name: 'a', n: 1.5, tag: 't', off: false };
    for (const refused of [
      null,
      'on',
      new Date(0),
      { ...fits, extra: 1 },
      { ...fits, on: 1 },
      { ...fits, name: 2 },
      { ...fits, n: '1' },
      { ...fits, tag: undefined },
      { ...fits, off: 'false' },
    ]) {
      assert.equal(batch.record(refused, 0), false, JSON.stringify(refused));
    }
    assert.equal(batch.record(fits, 7), true);
    const bare = Object.assign(Object.create(null) as object, {
      on: false,
      name: '',
      n: -1,
      tag: 'u',
      off: true,
    });
    assert.equal(batch.record(bare, 8), true);
    batch.status(false);
    batch.status(true);
    const message = batch.take();
    // Per record: kind, timestamp, then the numbers and booleans (on, n, off); strings (name, tag) apart.
    assert.deepEqual([...message.numbers], [RECORD, 7, 1, 1.5, 0, RECORD, 8, 0, -1, 1, STATUS, 0, STATUS, 1]);
    assert.deepEqual(message.strings, ['a', 't', '', 'u']);
    const events: unknown[] = [];
    deliverTypedBatch(Mixed, message.numbers, message.strings, message.barriers, {
      process: (value: unknown, ts: number) => events.push([ts, value]),
      status: (idle: boolean) => events.push(`idle ${idle}`),
    } as unknown as InputChannel);
    assert.deepEqual(events, [
      [7, fits],
      [8, { on: false, name: '', n: -1, tag: 'u', off: true }],
      'idle false',
      'idle true',
    ]);
    assert.deepEqual(Object.keys((events[1] as [number, object])[1]), ['on', 'name', 'n', 'tag', 'off']);
    // The generated writer declares its variables: nothing leaks into the global scope.
    assert.equal('x' in globalThis, false);
  });

  it('starts with a buffer for at most 256 records and doubles it only when the next event does not fit', () => {
    const Point = Types.record({ x: 'number' });
    // Three numbers per record: kind, timestamp, x.
    assert.equal(new TypedRecordBatch(Point, 4096).take().numbers.buffer.byteLength, 256 * 3 * 8);
    const batch = new TypedRecordBatch(Point, 2);
    batch.record({ x: 1 }, 1);
    batch.record({ x: 2 }, 2);
    assert.equal(batch.take().numbers.buffer.byteLength, 6 * 8);
    // Three control events fill the six numbers exactly.
    batch.watermark(1);
    batch.watermark(2);
    batch.watermark(3);
    assert.equal(batch.take().numbers.buffer.byteLength, 6 * 8);
    batch.record({ x: 1 }, 1);
    batch.record({ x: 2 }, 2);
    batch.record({ x: 3 }, 3);
    const grown = batch.take();
    assert.equal(grown.numbers.buffer.byteLength, 12 * 8);
    assert.deepEqual([...grown.numbers], [RECORD, 1, 1, RECORD, 2, 2, RECORD, 3, 3]);
    batch.watermark(1);
    batch.watermark(2);
    batch.watermark(3);
    batch.watermark(4);
    batch.watermark(5);
    batch.watermark(6);
    batch.watermark(7);
    const controls = batch.take();
    assert.equal(controls.numbers.buffer.byteLength, 24 * 8);
    assert.deepEqual([...controls.numbers], [1, 1, 1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1, 7]);
  });

  it('drops a spare smaller than the batches have grown to since it was given back', () => {
    const Point = Types.record({ x: 'number' });
    const batch = new TypedRecordBatch(Point, 1);
    batch.record({ x: 1 }, 1);
    const first = batch.take();
    assert.equal(first.numbers.buffer.byteLength, 3 * 8);
    batch.recycle(first.numbers.buffer);
    // The open batch grows past the spare's size: the spare is dropped, and the next batch gets a new buffer.
    batch.record({ x: 2 }, 2);
    batch.record({ x: 3 }, 3);
    assert.equal(batch.take().numbers.buffer.byteLength, 6 * 8);
    batch.record({ x: 4 }, 4);
    const next = batch.take();
    assert.equal(next.numbers.buffer.byteLength, 6 * 8);
    assert.notEqual(next.numbers.buffer, first.numbers.buffer);
  });

  it('starts each batch with no strings and no barriers of the one before', () => {
    const Named = Types.record({ name: 'string' });
    const batch = new TypedRecordBatch(Named, 8);
    const empty = batch.take();
    assert.deepEqual([empty.numbers.length, empty.strings, empty.barriers], [0, undefined, undefined]);
    const b1 = { id: 1, timestamp: 0, kind: 'checkpoint' } as const;
    const b2 = { id: 2, timestamp: 0, kind: 'checkpoint' } as const;
    batch.record({ name: 'a' }, 1);
    batch.barrier(b1);
    const first = batch.take();
    batch.record({ name: 'b' }, 2);
    batch.barrier(b2);
    const second = batch.take();
    assert.deepEqual([first.strings, first.barriers], [['a'], [b1]]);
    assert.deepEqual([second.strings, second.barriers], [['b'], [b2]]);
    assert.deepEqual([...second.numbers], [RECORD, 2, BARRIER, 0]);
  });
});

describe('records read from a typed batch, as V8 holds them', () => {
  it('keep integral numbers as small integers once the reader is optimised, and every number exact', () => {
    // V8's own view of a value, through its test intrinsics (compiled after the flag is set).
    setFlagsFromString('--allow-natives-syntax');
    const isSmallInteger = new Function('x', 'return %IsSmi(x)') as (x: unknown) => boolean;
    const prepare = new Function('f', '%PrepareFunctionForOptimization(f)') as (f: unknown) => void;
    const optimise = new Function('f', '%OptimizeFunctionOnNextCall(f)') as (f: unknown) => void;
    // Field names no other object in this process has, and a type not declared by an object literal (whose own
    // strings in the same fields would set the layout): the records' layout is set by the codec alone.
    const Counted = Types.record(
      Object.fromEntries(
        ['countedKey', 'countedHalf', 'countedZero'].map((name) => [name, 'number' as const]),
      ),
    );
    const read = codecOf(Counted).read;
    const numbers = new Float64Array([7, 0.5, -0]);
    prepare(read);
    read(numbers, 0, undefined, 0);
    read(numbers, 0, undefined, 0);
    optimise(read);
    const record = read(numbers, 0, undefined, 0) as {
      countedKey: number;
      countedHalf: number;
      countedZero: number;
    };
    // Without the codec's shape made first, the fields hold boxed doubles: a new heap number per field and record.
    assert.equal(isSmallInteger(record.countedKey), true);
    assert.equal(record.countedHalf, 0.5);
    assert.equal(Object.is(record.countedZero, -0), true);
    assert.deepEqual(Object.keys(record), ['countedKey', 'countedHalf', 'countedZero']);
  });

  it("leave the producer's records their hidden class and their double fields unboxed", () => {
    setFlagsFromString('--allow-natives-syntax');
    const isSmallInteger = new Function('x', 'return %IsSmi(x)') as (x: unknown) => boolean;
    const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
      a: unknown,
      b: unknown,
    ) => boolean;
    // The producer's records, as a source builds them: an integral key, and a time that is a double. V8 gives plain
    // objects with these keys in this order one hidden class in the thread, whoever builds them, so reading records
    // of the declared type here changes the producer's records too if it changes their fields' representation.
    const produce = new Function(
      'key',
      'time',
      'const r = { shapedKey: 0, shapedTime: 0 }; r.shapedKey = key; r.shapedTime = time; return r;',
    ) as (key: number, time: number) => { shapedKey: number; shapedTime: number };
    const produced = produce(7, 1.7e12 + 0.5);
    const Shaped = Types.recordFromPairs(['shapedKey', 'number'], ['shapedTime', 'number']);
    const read = codecOf(Shaped).read;
    const numbers = new Float64Array([7, 1.7e12 + 0.5, 8, -0]);
    const records = [read(numbers, 0, undefined, 0), read(numbers, 2, undefined, 0)];
    const record = records[0] as { shapedKey: number; shapedTime: number };
    assert.deepEqual(record, produced);
    assert.equal(sameHiddenClass(record, produced), true);
    assert.equal(Object.is((records[1] as { shapedTime: number }).shapedTime, -0), true);
    // A new producer record still holds its time field's 0 as a double (a field of doubles keeps them unboxed, written
    // in place); a shape made of non-numbers, or heap numbers stored as read, would have made the field tagged (a small
    // integer 0 here, and a heap number allocated at every write of a time).
    assert.equal(isSmallInteger(produce(1, 0).shapedTime), false);
    assert.equal(isSmallInteger(record.shapedKey), true);
  });
});

describe('describeMismatch', () => {
  const Point = Types.record({ x: 'number' });
  it('names what a field holds instead of its declared type', () => {
    const cases: [unknown, string][] = [
      [[1], 'an array'],
      [{}, 'an object'],
      [5n, 'the bigint 5'],
      [null, 'null'],
      [undefined, 'undefined'],
      ['y'.repeat(41), `the string "${'y'.repeat(40)}…"`],
      ['y'.repeat(40), `the string "${'y'.repeat(40)}"`],
    ];
    for (const [held, described] of cases) {
      assert.deepEqual(describeMismatch(Point, { x: held }), {
        field: 'x',
        problem: `holds ${described} where {x: number} declares number`,
      });
    }
  });

  it('names an instance without a constructor as a class, and a fitting record as not fitting in general', () => {
    const bare = Object.create(Object.create(null) as object) as Record<string, unknown>;
    bare.x = 1;
    assert.deepEqual(describeMismatch(Point, bare), {
      field: undefined,
      problem: 'is an instance of a class; a declared record type carries plain objects only',
    });
    assert.deepEqual(describeMismatch(Point, { x: 1 }), {
      field: undefined,
      problem: 'does not fit its declared type',
    });
    const nullPrototype = Object.create(null) as Record<string, unknown>;
    nullPrototype.x = 1;
    nullPrototype.extra = 2;
    assert.deepEqual(describeMismatch(Point, nullPrototype), {
      field: 'extra',
      problem: 'is not declared in {x: number} (it would be lost)',
    });
  });
});

describe("TypedRecordBatch, a join's tagged union", () => {
  beforeEach(dropKeptBuffers);

  const Person = Types.record({ id: 'number', name: 'string', ts: 'number' });
  const Auction = Types.record({ seller: 'number', ts: 'number' });
  const union = new TaggedUnionType(Person, Auction);
  const ann = { id: 7, name: 'ann', ts: 1.5 };

  it("writes each element with its input's type, pads to the larger input, and reads back the same elements", () => {
    const batch = new TypedRecordBatch(union, 8);
    const elements = [
      { input: 1, value: ann },
      { input: 2, value: { seller: 7, ts: -0 } },
      { input: 1, value: { id: -3, name: '', ts: NaN } },
      { input: 2, value: { seller: 2 ** 53, ts: 4 } },
    ];
    elements.forEach((element, i) => assert.equal(batch.record(element, 100 + i), true));
    const message = batch.take();
    // Per element: kind, timestamp, tag, then two numeric slots (Person's id and ts; an auction's seller and ts).
    assert.deepEqual(
      [...message.numbers],
      [RECORD, 100, 1, 7, 1.5, RECORD, 101, 2, 7, -0, RECORD, 102, 1, -3, NaN, RECORD, 103, 2, 2 ** 53, 4],
    );
    // One string per element: an auction has none and pads with an empty one.
    assert.deepEqual(message.strings, ['ann', '', '', '']);
    const received: unknown[] = [];
    deliverTypedBatch(union, message.numbers, message.strings, undefined, {
      process: (value: unknown, ts: number) => received.push([value, ts]),
    } as unknown as InputChannel);
    assert.deepEqual(
      received,
      elements.map((element, i) => [element, 100 + i]),
    );
  });

  it('refuses an element with another tag, a value that does not fit its input, or another key, and says which', () => {
    const batch = new TypedRecordBatch(union, 8);
    const refused: [unknown, string | undefined, RegExp][] = [
      [{ input: 3, value: ann }, 'input', /^holds the number 3 where .* declares 1 or 2$/],
      [{ input: '1', value: ann }, 'input', /^holds the string "1" where/],
      [
        { input: 2, value: ann },
        'value.seller',
        /^holds undefined where \{seller: number, ts: number\} declares number$/,
      ],
      [
        { input: 1, value: { ...ann, extra: 1 } },
        'value.extra',
        /^is not declared in \{id: number, name: string, ts: number\}/,
      ],
      [{ input: 1, value: null }, 'value', /^is null, not an object$/],
      [
        { input: 1, value: ann, side: 'left' },
        'side',
        /^is not declared in \{input: 1, value: .*\} \| \{input: 2, value: .*\}/,
      ],
    ];
    for (const [element, field, problem] of refused) {
      assert.equal(batch.record(element, 0), false, JSON.stringify(element));
      const mismatch = describeMismatch(union, element);
      assert.equal(mismatch.field, field, JSON.stringify(element));
      assert.match(mismatch.problem, problem);
    }
    const instance = Object.assign(Object.create({}) as object, { input: 1, value: ann });
    assert.equal(batch.record(instance, 0), false);
    assert.match(
      describeMismatch(union, instance).problem,
      /^is an instance of Object; a declared record type/,
    );
    // Nothing refused was kept: the strings of a refused person are dropped with it.
    assert.equal(batch.record({ input: 2, value: { seller: 1, ts: 2 } }, 9), true);
    const message = batch.take();
    assert.deepEqual([...message.numbers], [RECORD, 9, 2, 1, 2]);
    assert.deepEqual(message.strings, ['']);
  });
});

describe('TypedRecordBatch, across the jobs of a thread', () => {
  beforeEach(dropKeptBuffers);
  const Point = Types.record({ x: 'number' });

  it('keeps its buffers when released, and a later batch starts in the largest kept one', () => {
    const batch = new TypedRecordBatch(Point, 4096);
    for (let i = 0; i < 1000; i++) batch.record({ x: i }, i);
    // Grown from 256 to 1,024 records of three numbers; the next batch opens in a new buffer of that size.
    const sent = batch.take();
    assert.equal(sent.numbers.buffer.byteLength, 1024 * 3 * 8);
    batch.recycle(sent.numbers.buffer);
    batch.release();
    assert.equal(keptBatchBufferBytes(), 2 * 1024 * 3 * 8);
    // Still usable, in a small buffer of its own: nothing it writes lands in a kept buffer.
    batch.record({ x: 1 }, 1);
    assert.deepEqual([...batch.take().numbers], [RECORD, 1, 1]);

    const next = new TypedRecordBatch(Point, 4096);
    next.record({ x: 5 }, 5);
    const first = next.take();
    assert.equal(first.numbers.buffer.byteLength, 1024 * 3 * 8);
    assert.deepEqual([...first.numbers], [RECORD, 5, 5]);
    // Its second batch, with no buffer given back yet, opened in the other kept buffer.
    assert.equal(keptBatchBufferBytes(), 0);
    next.record({ x: 6 }, 6);
    assert.equal(next.take().numbers.buffer.byteLength, 1024 * 3 * 8);
  });

  it('grows into a kept buffer large enough, and starts new when none is', () => {
    keepBatchBuffer(new Float64Array(64 * 3));
    const batch = new TypedRecordBatch(Point, 4096);
    // The only kept buffer (64 records) is the first one; growing past it finds none, so it doubles anew.
    for (let i = 0; i < 65; i++) batch.record({ x: i }, i);
    assert.equal(keptBatchBufferBytes(), 0);
    keepBatchBuffer(new Float64Array(1024 * 3));
    for (let i = 65; i < 129; i++) batch.record({ x: i }, i);
    // 129 records do not fit 128: the kept 1,024 is at least twice as large, and taken instead of a new buffer.
    const message = batch.take();
    assert.equal(message.numbers.buffer.byteLength, 1024 * 3 * 8);
    assert.deepEqual(
      [...message.numbers].filter((_, i) => i % 3 === 2),
      Array.from({ length: 129 }, (_, i) => i),
    );
  });

  it('keeps nothing of a transferred buffer, and no more than its bound', () => {
    const transferred = new Float64Array(1024);
    structuredClone(transferred.buffer, { transfer: [transferred.buffer] });
    keepBatchBuffer(transferred);
    assert.equal(keptBatchBufferBytes(), 0);
    const size = MAX_KEPT_BYTES / 4;
    for (let i = 0; i < 5; i++) keepBatchBuffer(new Float64Array(size / 8));
    assert.equal(keptBatchBufferBytes(), MAX_KEPT_BYTES);
  });

  it('keeps what a closed exchange held: the open batch, the spares and the buffers to give back', async () => {
    const { out, received, close } = pair(Click, 4);
    for (let i = 0; i < 8; i++) out.process({ user: `u${i}`, page: i, premium: false, ts: i }, i);
    await waitTurns('eight records', () => received.length === 8);
    close();
    // Click's batches of four records of five numbers: the open batch's buffer at least, every one that size.
    const kept = keptBatchBufferBytes();
    assert.ok(kept >= 4 * 5 * 8 && kept % (4 * 5 * 8) === 0, `kept ${kept} bytes`);
    const next = new TypedRecordBatch(Click, 4);
    next.record({ user: 'v', page: 1, premium: true, ts: 2 }, 3);
    assert.equal(next.take().numbers.buffer.byteLength, 4 * 5 * 8);
  });
});
