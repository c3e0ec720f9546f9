// AsyncSink: batches, writes in flight, backpressure, flush on a timer and at barriers, replay after restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AsyncRetryStrategies } from '../core/async-retry-strategy.ts';
import { JobExecutionError } from '../core/errors.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { ManualClock } from '../core/clock.ts';
import { AsyncSink } from './async-sink.ts';
import type { PollResult, ReaderOutput, Source } from '../core/source.ts';

/** A batch write the test acknowledges or rejects; both resolve once the writer has seen the outcome. */
interface Write {
  readonly batch: number[];
  ack(): Promise<void>;
  fail(error: unknown): Promise<void>;
}

function manualDatabase(): { write: (batch: number[]) => Promise<void>; writes: Write[] } {
  const writes: Write[] = [];
  const write = (batch: number[]): Promise<void> => {
    let ok!: () => void;
    let ko!: (error: unknown) => void;
    const promise = new Promise<void>((a, b) => ((ok = a), (ko = b)));
    const seen = promise.then(
      () => {},
      () => {},
    );
    writes.push({ batch: [...batch], ack: () => (ok(), seen), fail: (e) => (ko(e), seen) });
    return promise;
  };
  return { write, writes };
}

const writerContext = (clock: ManualClock, restoredState?: unknown) => ({
  subtaskIndex: 0,
  parallelism: 1,
  sinkName: 'db',
  clock,
  restoredState,
  failJob: (error: unknown) => {
    throw error;
  },
});

describe('AsyncSink', () => {
  it('writes full batches with at most maxInFlightRequests in flight; the job ends once all are acknowledged', async () => {
    const db = manualDatabase();
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
      .sinkTo(AsyncSink.of({ write: db.write, maxBatchSize: 3, maxInFlightRequests: 2 }), 'db');
    let finished = false;
    const job = env.execute('async sink').then(() => void (finished = true));
    while (db.writes.length < 2) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    );
    await db.writes[1]!.ack();
    await db.writes[0]!.ack();
    await db.writes[2]!.ack();
    assert.equal(finished, false);
    await db.writes[3]!.ack();
    await job;
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]],
    );
  });

  it('stops the sources while maxBufferedRequests records are pending (backpressure)', async () => {
    let polls = 0;
    const source: Source<number> = {
      boundedness: 'bounded',
      createReader: () => ({
        pollNext(output: ReaderOutput<number>): PollResult {
          output.collect(++polls);
          return polls === 12 ? 'end' : 'more';
        },
      }),
    };
    const db = manualDatabase();
    const env = StreamExecutionEnvironment.create();
    env
      .fromSource(source, undefined, 'numbers')
      .sinkTo(
        AsyncSink.of({ write: db.write, maxBatchSize: 2, maxInFlightRequests: 1, maxBufferedRequests: 4 }),
      );
    const job = env.execute('backpressure');
    while (polls < 4) await new Promise((resolve) => setImmediate(resolve));
    // The driver would poll once per event-loop turn; give it many turns and observe that it does not.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(polls, 4);
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [[1, 2]],
    );
    let acked = 0;
    while (acked < 6) {
      if (acked < db.writes.length) await db.writes[acked++]!.ack();
      else await new Promise((resolve) => setImmediate(resolve));
    }
    await job;
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
        [9, 10],
        [11, 12],
      ],
    );
  });

  it('writes a partial batch once its oldest record waited maxTimeInBufferMs', async () => {
    const clock = new ManualClock(0);
    const db = manualDatabase();
    const writer = AsyncSink.of({ write: db.write, maxBatchSize: 10, maxTimeInBufferMs: 50 }).createWriter(
      writerContext(clock),
    );
    writer.write(1, undefined);
    clock.advanceTo(30);
    writer.write(2, undefined);
    clock.advanceTo(49);
    assert.equal(db.writes.length, 0);
    clock.advanceTo(50);
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [[1, 2]],
    );
    assert.equal(clock.pendingCount(), 0);
  });

  it('sends the partial batch at a barrier and checkpoints every record not acknowledged; a restore writes them again', async () => {
    const clock = new ManualClock(0);
    const db = manualDatabase();
    const sink = AsyncSink.of({ write: db.write, maxBatchSize: 2, maxInFlightRequests: 2 });
    const writer = sink.createWriter(writerContext(clock));
    for (const n of [1, 2, 3, 4, 5]) writer.write(n, undefined);
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [
        [1, 2],
        [3, 4],
      ],
    );
    await db.writes[0]!.ack();
    const state = writer.snapshotState!(1);
    assert.deepEqual(state, [3, 4, 5]);
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [[1, 2], [3, 4], [5]],
    );

    const again = manualDatabase();
    const restored = AsyncSink.of({ write: again.write, maxBatchSize: 2 }).createWriter(
      writerContext(clock, state),
    );
    assert.deepEqual(
      again.writes.map((w) => w.batch),
      [[3, 4], [5]],
    );
    const end = restored.endOfInput!();
    await again.writes[0]!.ack();
    await again.writes[1]!.ack();
    await end;
  });

  it('retries a rejected write by its strategy, on the processing-time clock', async () => {
    const clock = new ManualClock(0);
    const db = manualDatabase();
    const writer = AsyncSink.of({
      write: db.write,
      maxBatchSize: 1,
      retry: AsyncRetryStrategies.fixedDelay(2, 10),
    }).createWriter(writerContext(clock));
    writer.write(7, undefined);
    await db.writes[0]!.fail(new Error('deadlock detected'));
    assert.equal(db.writes.length, 1);
    assert.deepEqual(writer.snapshotState!(1), [7]);
    clock.advanceTo(10);
    assert.deepEqual(
      db.writes.map((w) => w.batch),
      [[7], [7]],
    );
    await db.writes[1]!.ack();
    assert.deepEqual(writer.snapshotState!(2), []);
  });

  it('fails the job naming the sink when a write is rejected', async () => {
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements(1, 2, 3)
      .sinkTo(
        AsyncSink.of({ write: () => Promise.reject(new Error('relation "readings" does not exist')) }),
        'db',
      );
    await assert.rejects(
      env.execute('failing sink'),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        e.message ===
          `Operator 'db' (subtask 1/1) failed while processing an asynchronous write: relation "readings" does not exist`,
    );
  });

  it('rejects invalid options when the sink is created', () => {
    const write = async () => {};
    assert.throws(
      () => AsyncSink.of({ write, maxBatchSize: 0 }),
      /maxBatchSize must be a positive integer, got 0/,
    );
    assert.throws(
      () => AsyncSink.of({ write, maxBatchSize: 100, maxBufferedRequests: 10 }),
      /maxBufferedRequests \(10\) must be >= maxBatchSize \(100\)/,
    );
  });
});
