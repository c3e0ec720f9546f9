// Async I/O: Flink's AsyncWaitOperatorTest cases, with Promises the test settles by hand and a manual clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AsyncDataStream } from '../api/async-data-stream.ts';
import type { RichAsyncFunction } from '../core/async-function.ts';
import { AsyncRetryStrategies } from '../core/async-retry-strategy.ts';
import { AsyncTimeoutError } from '../core/async-timeout-error.ts';
import type { DataStream } from '../api/data-stream.ts';
import { JobExecutionError } from '../core/errors.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { CollectSink } from '../connectors/collect-sink.ts';
import type { PollResult, ReaderOutput, Source } from '../core/source.ts';
import { TestHarness } from '../testing/test-harness.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';

/** An async call the test settles: `resolve`/`reject` resolve once the operator has seen the outcome. */
interface Call<IN, OUT> {
  readonly input: IN;
  resolve(value: OUT): Promise<void>;
  reject(error: unknown): Promise<void>;
}

/** An async function whose calls stay pending until the test settles them, in any order. */
function manualCalls<IN, OUT>(): { fn: (input: IN) => Promise<OUT>; calls: Call<IN, OUT>[] } {
  const calls: Call<IN, OUT>[] = [];
  const fn = (input: IN): Promise<OUT> => {
    let res!: (value: OUT) => void;
    let rej!: (error: unknown) => void;
    const promise = new Promise<OUT>((a, b) => ((res = a), (rej = b)));
    // The operator attached its reaction first; awaiting `seen` afterwards therefore runs after it.
    const seen = promise.then(
      () => {},
      () => {},
    );
    calls.push({
      input,
      resolve: (value) => (res(value), seen),
      reject: (error) => (rej(error), seen),
    });
    return promise;
  };
  return { fn, calls };
}

const rec = (value: number, timestamp: number | undefined) => ({ value, timestamp });

describe('AsyncWaitOperator (Flink AsyncWaitOperatorTest)', () => {
  for (const mode of ['ordered', 'unordered'] as const) {
    const wait = mode === 'ordered' ? AsyncDataStream.orderedWait : AsyncDataStream.unorderedWait;

    it(`event time, ${mode}: watermarks stay between the records around them (testEventTime)`, async () => {
      const { fn, calls } = manualCalls<number, number>();
      const h = await TestHarness.create((input: DataStream<number>) => wait(input, fn, 1_000, 2));
      h.processElement(1, 1);
      h.processElement(2, 2);
      h.processWatermark(2);
      h.processElement(3, 3);
      // Capacity 2: only the first two calls started; the watermark and record 3 wait for room.
      assert.deepEqual(
        calls.map((c) => c.input),
        [1, 2],
      );
      await calls[1]!.resolve(4);
      assert.deepEqual(h.output(), mode === 'ordered' ? [] : [rec(4, 2)]);
      await calls[0]!.resolve(2);
      assert.deepEqual(
        calls.map((c) => c.input),
        [1, 2, 3],
      );
      await calls[2]!.resolve(6);
      h.endInput();
      await h.drain();
      assert.deepEqual(
        h.output(),
        mode === 'ordered'
          ? [rec(2, 1), rec(4, 2), { watermark: 2 }, rec(6, 3), { watermark: MAX_WATERMARK }]
          : [rec(4, 2), rec(2, 1), { watermark: 2 }, rec(6, 3), { watermark: MAX_WATERMARK }],
      );
    });

    it(`processing time, ${mode}: results settled in reverse (testProcessingTime)`, async () => {
      const { fn, calls } = manualCalls<number, number>();
      const h = await TestHarness.create((input: DataStream<number>) => wait(input, fn, 1_000, 6));
      for (let i = 1; i <= 8; i++) h.processElement(i, i);
      assert.equal(calls.length, 6);
      for (let i = 5; i >= 0; i--) await calls[i]!.resolve(calls[i]!.input * 2);
      assert.deepEqual(
        calls.map((c) => c.input),
        [1, 2, 3, 4, 5, 6, 7, 8],
      );
      await calls[7]!.resolve(16);
      await calls[6]!.resolve(14);
      h.endInput();
      await h.drain();
      assert.deepEqual(
        h.records(),
        mode === 'ordered' ? [2, 4, 6, 8, 10, 12, 14, 16] : [12, 10, 8, 6, 4, 2, 16, 14],
      );
      assert.deepEqual(
        h.output().flatMap((e) => ('value' in e ? [e.timestamp! * 2 === e.value] : [])),
        Array(8).fill(true),
      );
    });
  }

  it('unordered: results behind a watermark wait for it, then leave in completion order', async () => {
    const { fn, calls } = manualCalls<number, number>();
    const h = await TestHarness.create((input: DataStream<number>) =>
      AsyncDataStream.unorderedWait(input, fn, 0, 10),
    );
    h.processElement(1, 1);
    h.processWatermark(1);
    h.processElement(2, 2);
    h.processElement(3, 3);
    await calls[2]!.resolve(30);
    await calls[1]!.resolve(20);
    assert.deepEqual(h.output(), []);
    await calls[0]!.resolve(10);
    assert.deepEqual(h.output(), [rec(10, 1), { watermark: 1 }, rec(30, 3), rec(20, 2)]);
  });

  it('fails the job naming the operator and the record when a call times out (testAsyncTimeoutFailure)', async () => {
    const { fn } = manualCalls<number, number>();
    const h = await TestHarness.create((input: DataStream<number>) =>
      AsyncDataStream.orderedWait(input, fn, 10, 2).name('enrich'),
    );
    h.processElement(1, 0);
    h.setProcessingTime(5);
    h.processElement(2, 5);
    assert.throws(
      () => h.setProcessingTime(11),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        e.cause instanceof AsyncTimeoutError &&
        e.message.startsWith(
          "Operator 'enrich' (subtask 1/1) failed while processing record 1 (timestamp 0): Async function call has timed out after 10 ms",
        ),
    );
    assert.deepEqual(h.output(), []);
  });

  it('emits what timeout() returns and ignores the late result (testAsyncTimeoutIgnore)', async () => {
    const { fn, calls } = manualCalls<number, number>();
    const lazy: RichAsyncFunction<number, number> = {
      asyncInvoke: fn,
      timeout: (input) => input * 3,
    };
    const h = await TestHarness.create((input: DataStream<number>) =>
      AsyncDataStream.orderedWait(input, lazy, 10, 2),
    );
    h.processElement(1, 0);
    h.setProcessingTime(5);
    h.processElement(2, 5);
    h.setProcessingTime(11);
    await calls[0]!.resolve(1);
    await calls[1]!.resolve(2);
    h.endInput();
    await h.drain();
    assert.deepEqual(h.output(), [rec(3, 0), rec(2, 5), { watermark: MAX_WATERMARK }]);
  });

  it('cancels its timeout callback once nothing is in flight (testTimeoutCleanup, FLINK-5652)', async () => {
    const { fn, calls } = manualCalls<number, number>();
    const h = await TestHarness.create((input: DataStream<number>) =>
      AsyncDataStream.unorderedWait(input, fn, 1_000, 1),
    );
    h.processElement(42, 1);
    assert.equal(h.pendingProcessingTimeCallbacks(), 1);
    await calls[0]!.resolve(84);
    h.endInput();
    await h.drain();
    assert.deepEqual(h.output(), [rec(84, 1), { watermark: MAX_WATERMARK }]);
    assert.equal(h.pendingProcessingTimeCallbacks(), 0);
  });

  for (const mode of ['ordered', 'unordered'] as const) {
    it(`a rejected call fails the job at once, ${mode} (testUserExceptionHandling, FLINK-6435)`, async () => {
      const { fn, calls } = manualCalls<number, number>();
      const wait = mode === 'ordered' ? AsyncDataStream.orderedWait : AsyncDataStream.unorderedWait;
      const h = await TestHarness.create((input: DataStream<number>) =>
        wait(input, fn, 1_000, 2).name('lookup'),
      );
      h.processElement(1, 1);
      h.processElement(2, 2);
      await calls[1]!.reject(new Error('connection refused'));
      await assert.rejects(
        h.drain(),
        (e: unknown) =>
          e instanceof JobExecutionError &&
          e.message ===
            "Operator 'lookup' (subtask 1/1) failed while processing record 2 (timestamp 2): connection refused",
      );
      await calls[0]!.resolve(1);
      assert.deepEqual(h.output(), []);
    });
  }

  it('checkpoints the elements in flight and calls again for them after a restore (testStateSnapshotAndRestore)', async () => {
    const lazy = manualCalls<number, number>();
    const build = (fn: (n: number) => Promise<number>) => (input: DataStream<number>) =>
      AsyncDataStream.orderedWait(input, fn, 1_000, 4).uid('async');
    const h = await TestHarness.create(build(lazy.fn));
    for (let i = 1; i <= 4; i++) h.processElement(i, i);
    const snapshot = h.snapshot();
    assert.deepEqual(snapshot.operators['async']!.operatorState, [
      [
        { value: 1, timestamp: 1 },
        { value: 2, timestamp: 2 },
        { value: 3, timestamp: 3 },
        { value: 4, timestamp: 4 },
      ],
    ]);
    await h.close();

    const doubled = async (n: number) => n * 2;
    const restored = await TestHarness.restore(build(doubled), snapshot);
    for (let i = 5; i <= 8; i++) restored.processElement(i, i);
    restored.endInput();
    await restored.drain();
    assert.deepEqual(restored.records(), [2, 4, 6, 8, 10, 12, 14, 16]);
    assert.deepEqual(
      restored.output().flatMap((e) => ('value' in e ? [e.timestamp] : [])),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
  });

  it('restores a queued watermark in its place (unordered)', async () => {
    const lazy = manualCalls<number, number>();
    const build = (fn: (n: number) => Promise<number>) => (input: DataStream<number>) =>
      AsyncDataStream.unorderedWait(input, fn, 0, 2).uid('async');
    const h = await TestHarness.create(build(lazy.fn));
    h.processElement(1, 1);
    h.processWatermark(1);
    h.processElement(2, 2);
    const snapshot = h.snapshot();
    assert.deepEqual(snapshot.operators['async']!.operatorState, [
      [{ value: 1, timestamp: 1 }, { watermark: 1 }, { value: 2, timestamp: 2 }],
    ]);
    const again = manualCalls<number, number>();
    const restored = await TestHarness.restore(build(again.fn), snapshot);
    assert.deepEqual(
      again.calls.map((c) => c.input),
      [1],
    );
    await again.calls[0]!.resolve(10);
    await again.calls[1]!.resolve(20);
    assert.deepEqual(restored.output(), [rec(10, 1), { watermark: 1 }, rec(20, 2)]);
  });

  it('retries by the strategy, on the processing-time clock (AsyncRetryStrategies.fixedDelay)', async () => {
    const { fn, calls } = manualCalls<number, number | undefined>();
    const h = await TestHarness.create((input: DataStream<number>) =>
      AsyncDataStream.orderedWaitWithRetry(
        input,
        fn,
        1_000,
        2,
        AsyncRetryStrategies.fixedDelay(3, 100, { ifResult: (r) => r === undefined }),
      ),
    );
    h.processElement(7, 7);
    await calls[0]!.resolve(undefined);
    assert.equal(calls.length, 1);
    h.setProcessingTime(99);
    assert.equal(calls.length, 1);
    h.setProcessingTime(100);
    assert.equal(calls.length, 2);
    await calls[1]!.reject(new Error('busy'));
    h.setProcessingTime(200);
    assert.equal(calls.length, 3);
    await calls[2]!.resolve(70);
    assert.deepEqual(h.output(), [rec(70, 7)]);
  });

  it('rejects a function that does not return a Promise, naming the operator', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      AsyncDataStream.orderedWait(input, ((n: number) => n * 2) as never, 1_000, 2).name('sync by mistake'),
    );
    h.processElement(1, 1);
    await assert.rejects(
      h.drain(),
      /Operator 'sync by mistake' \(subtask 1\/1\) failed while processing record 1 \(timestamp 1\): The async function returned number, not a Promise/,
    );
  });

  it('validates capacity and timeout when the job is built', () => {
    const env = StreamExecutionEnvironment.create();
    const input = env.fromElements(1);
    assert.throws(
      () => AsyncDataStream.orderedWait(input, async (n: number) => n, 1_000, 0),
      /capacity must be a positive integer, got 0/,
    );
    assert.throws(
      () => AsyncDataStream.unorderedWait(input, async (n: number) => n, -1),
      /timeout must be >= 0 ms \(0: none\), got -1/,
    );
  });
});

describe('AsyncDataStream in a running job', () => {
  it('finishes only after every result was emitted, and keeps at most `capacity` calls in flight', async () => {
    const env = StreamExecutionEnvironment.create();
    let inFlight = 0;
    let maxInFlight = 0;
    const sink = new CollectSink<number>();
    const values = Array.from({ length: 2_500 }, (_, i) => i);
    AsyncDataStream.orderedWait(
      env.fromCollection(values),
      (n: number) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        // Settles on a later turn of the event loop, as network I/O does.
        return new Promise<number>((resolve) =>
          setImmediate(() => {
            inFlight--;
            resolve(n * 2);
          }),
        );
      },
      0,
      7,
    ).sinkTo(sink);
    await env.execute('async');
    assert.deepEqual(
      sink.values,
      values.map((n) => n * 2),
    );
    assert.equal(maxInFlight, 7);
  });

  it('stops polling its sources while full (backpressure)', async () => {
    let polls = 0;
    // A source of 20 records, one per poll, so each poll is visible.
    const source: Source<number> = {
      boundedness: 'bounded',
      createReader: () => ({
        pollNext(output: ReaderOutput<number>): PollResult {
          output.collect(polls++);
          return polls === 20 ? 'end' : 'more';
        },
      }),
    };
    const env = StreamExecutionEnvironment.create();
    const { fn, calls } = manualCalls<number, number>();
    let full!: () => void;
    const reachedCapacity = new Promise<void>((resolve) => (full = resolve));
    const sink = new CollectSink<number>();
    AsyncDataStream.unorderedWait(
      env.fromSource(source, undefined, 'numbers'),
      (n: number) => {
        const p = fn(n);
        if (calls.length === 3) full();
        return p;
      },
      0,
      3,
    ).sinkTo(sink);
    const done = env.execute('backpressure');
    await reachedCapacity;
    // The driver would poll once per event-loop turn; give it many turns and observe that it does not.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(polls, 3);
    let next = 0;
    while (next < calls.length || polls < 20) {
      if (next < calls.length) await calls[next++]!.resolve(next * 10);
      else await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    assert.equal(polls, 20);
    assert.deepEqual(
      sink.values,
      Array.from({ length: 20 }, (_, i) => (i + 1) * 10),
    );
  });
});

describe('AsyncWaitOperator at another parallelism', () => {
  it('restores the elements in flight of every old subtask', async () => {
    const lazy = manualCalls<number, number>();
    const build = (fn: (n: number) => Promise<number>) => (input: DataStream<number>) =>
      AsyncDataStream.orderedWait(input.rebalance(), fn, 0, 10).uid('async');
    const h = await TestHarness.create(build(lazy.fn), { parallelism: 3 });
    for (let i = 1; i <= 6; i++) h.processElement(i, i);
    const snapshot = h.snapshot();
    assert.equal((snapshot.operators['async']!.operatorState as unknown[]).length, 3);
    const restored = await TestHarness.restore(
      build(async (n) => n * 2),
      snapshot,
      { parallelism: 1 },
    );
    restored.endInput();
    await restored.drain();
    assert.deepEqual(
      restored.records().sort((a, b) => a - b),
      [2, 4, 6, 8, 10, 12],
    );
  });
});
