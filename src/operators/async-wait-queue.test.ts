// AsyncWaitOperator driven by hand, without a job: backpressure calls, what a checkpoint holds, restores that
// merge old subtasks, the end of input, how failures name their activity, timeouts per call, retries counted
// exactly, and that the queues stay bounded while results pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RichAsyncFunction } from '../core/async-function.ts';
import { AsyncTimeoutError } from '../core/async-timeout-error.ts';
import type { AsyncRetryStrategy } from '../core/async-retry-strategy.ts';
import { ManualClock } from '../core/clock.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { AsyncWaitOperator, type AsyncOutputMode } from './async-wait-operator.ts';
import type { Output } from './output.ts';
import type { OperatorContext } from './stream-operator.ts';

class Trace implements Output<unknown> {
  readonly events: string[] = [];
  failOn: unknown = undefined;
  collect(value: unknown, timestamp: number): void {
    if (value === this.failOn) throw new Error(`downstream refused ${String(value)}`);
    this.events.push(`r:${String(value)}@${timestamp}`);
  }
  collectSide<X>(_tag: OutputTag<X>, _value: X): void {}
  emitWatermark(watermark: number): void {
    this.events.push(`w:${watermark}`);
  }
  emitWatermarkStatus(): void {}
}

/** Calls that stay pending until settled; `settle` resolves once the operator has seen the outcome. */
function manualCalls() {
  const calls: { input: number; resolve(v: unknown): Promise<void>; reject(e: unknown): Promise<void> }[] =
    [];
  const fn = (input: number): Promise<unknown> => {
    let res!: (v: unknown) => void;
    let rej!: (e: unknown) => void;
    const promise = new Promise((a, b) => ((res = a), (rej = b)));
    const seen = promise.then(
      () => {},
      () => {},
    );
    calls.push({ input, resolve: (v) => (res(v), seen), reject: (e) => (rej(e), seen) });
    return promise;
  };
  return { fn, calls };
}

async function open(
  fn: unknown,
  options: {
    timeoutMs?: number;
    capacity?: number;
    mode?: AsyncOutputMode;
    retry?: AsyncRetryStrategy<unknown>;
    restored?: unknown;
  } = {},
) {
  const clock = new ManualClock(0);
  const trace = new Trace();
  const log: string[] = [];
  const context = {
    operatorName: 'lookup',
    clock,
    runtimeContext: {},
    setBackpressure: (blocked: boolean) => log.push(`backpressure ${blocked}`),
    failJob: (error: unknown, record: unknown, activity: string) =>
      log.push(
        `fail ${error instanceof AsyncTimeoutError ? 'timeout' : (error as Error).message} ${JSON.stringify(record)} ${activity}`,
      ),
  } as unknown as OperatorContext;
  const op = new AsyncWaitOperator<number, unknown>(
    fn as never,
    options.timeoutMs ?? 0,
    options.capacity ?? 10,
    options.mode ?? 'ordered',
    options.retry,
  );
  op.setup(context, trace);
  if (options.restored !== undefined) op.restoreOperatorState(options.restored);
  await op.open();
  return { op, clock, trace, log };
}

describe('AsyncWaitOperator, by hand', () => {
  it('refuses anything but a function or an object with asyncInvoke', () => {
    for (const fn of [null, undefined, {}, { asyncInvoke: 1 }, 5]) {
      assert.throws(
        () => new AsyncWaitOperator(fn as never, 0, 1, 'ordered'),
        (e: unknown) =>
          e instanceof ConfigurationError &&
          e.message ===
            'Async I/O needs a function returning a Promise, or an object with an asyncInvoke method',
        String(fn),
      );
    }
    new AsyncWaitOperator(async (n: number) => n, 0, 1, 'ordered');
    new AsyncWaitOperator({ asyncInvoke: async (n: number) => n }, 0, 1, 'ordered');
  });

  it('asks for backpressure when full and lifts it when there is room again, alternating', async () => {
    const { fn, calls } = manualCalls();
    const { op, trace, log } = await open(fn, { capacity: 2 });
    op.processElement(1, 1);
    assert.deepEqual(log, []);
    op.processElement(2, 2);
    assert.deepEqual(log, ['backpressure true']);
    op.processElement(3, 3);
    assert.equal(op.queuedElements, 3);
    await calls[0]!.resolve('a');
    assert.deepEqual(log, ['backpressure true']);
    await calls[1]!.resolve('b');
    await calls[2]!.resolve('c');
    assert.deepEqual(log, ['backpressure true', 'backpressure false']);
    assert.deepEqual(trace.events, ['r:a@1', 'r:b@2', 'r:c@3']);
    assert.equal(op.queuedElements, 0);
  });

  it('the end of input waits for every result; with nothing pending it does not', async () => {
    const { fn, calls } = manualCalls();
    const { op, trace } = await open(fn, { capacity: 1 });
    assert.equal(op.endInput(), undefined);
    op.processElement(1, 1);
    op.processElement(2, 2);
    let ended = false;
    const end = op.endInput() as Promise<void>;
    void end.then(() => (ended = true));
    await calls[0]!.resolve('a');
    await Promise.resolve();
    assert.equal(ended, false);
    await calls[1]!.resolve('b');
    await end;
    assert.deepEqual(trace.events, ['r:a@1', 'r:b@2']);
  });

  it('a checkpoint holds what was not emitted yet, watermarks in place; nothing when empty', async () => {
    const { fn, calls } = manualCalls();
    const { op } = await open(fn, { mode: 'unordered' });
    assert.equal(op.snapshotOperatorState(), undefined);
    op.processElement(1, 1);
    op.processElement(2, 2);
    op.processWatermark(2);
    op.processElement(3, 3);
    await calls[1]!.resolve('b'); // emitted at once (unordered), so not in the checkpoint
    assert.deepEqual(op.snapshotOperatorState(), [
      { value: 1, timestamp: 1 },
      { watermark: 2 },
      { value: 3, timestamp: 3 },
    ]);
  });

  it('a restore calls again in the old order; a watermark keeps its place in unordered mode', async () => {
    const { fn, calls } = manualCalls();
    const { trace } = await open(fn, {
      mode: 'unordered',
      restored: [[{ value: 1, timestamp: 1 }, { watermark: 5 }, { value: 6, timestamp: 6 }]],
    });
    assert.deepEqual(
      calls.map((c) => c.input),
      [1, 6],
    );
    await calls[1]!.resolve('b');
    assert.deepEqual(trace.events, []);
    await calls[0]!.resolve('a');
    assert.deepEqual(trace.events, ['r:a@1', 'w:5', 'r:b@6']);
  });

  it('merged from several old subtasks, a restore keeps the records only (queued watermarks would overtake)', async () => {
    const { fn, calls } = manualCalls();
    const { trace } = await open(fn, {
      restored: [[{ value: 1, timestamp: 1 }, { watermark: 4 }], [{ value: 2, timestamp: 2 }]],
    });
    assert.deepEqual(
      calls.map((c) => c.input),
      [1, 2],
    );
    await calls[0]!.resolve('a');
    await calls[1]!.resolve('b');
    assert.deepEqual(trace.events, ['r:a@1', 'r:b@2']);
  });

  it('failures name their activity and record: a throwing call, a non-Promise, a rejection', async () => {
    const throwing = await open(() => {
      throw new Error('no client');
    });
    throwing.op.processElement(1, 10);
    assert.deepEqual(throwing.log, ['fail no client {"value":1,"timestamp":10} the async call']);

    for (const [result, shown] of [
      [null, 'null'],
      [7, 'number'],
      [{ then: 1 }, 'object'],
    ] as const) {
      const r = await open(() => result);
      r.op.processElement(2, 20);
      assert.deepEqual(r.log, [
        `fail The async function returned ${shown}, not a Promise {"value":2,"timestamp":20} the async call`,
      ]);
    }

    const { fn, calls } = manualCalls();
    const rejected = await open(fn, { capacity: 1 });
    rejected.op.processElement(3, 30);
    rejected.op.processElement(4, 40);
    const end = assert.rejects(rejected.op.endInput() as Promise<void>, /refused/);
    await calls[0]!.reject(new Error('refused'));
    // Stopping lifts the backpressure first, then the job fails; the pending end of input fails with it.
    assert.deepEqual(rejected.log, [
      'backpressure true',
      'backpressure false',
      'fail refused {"value":3,"timestamp":30} the async call',
    ]);
    await end;
    // Stopped: a later result emits nothing.
    rejected.op.processElement(5, 50);
    assert.deepEqual(rejected.trace.events, []);
  });

  it('a result that fails downstream fails the job as an async result, without a record', async () => {
    const { fn, calls } = manualCalls();
    const { trace, op, log } = await open(fn);
    trace.failOn = 'bad';
    op.processElement(1, 1);
    await calls[0]!.resolve('bad');
    assert.deepEqual(log, ['fail downstream refused bad undefined an async result']);
  });

  it('each call times out by its own deadline; one callback at a time, cancelled when nothing is in flight', async () => {
    const { fn, calls } = manualCalls();
    const { op, clock, log } = await open(fn, { timeoutMs: 10 });
    op.processElement(1, 1);
    clock.advanceTo(4);
    op.processElement(2, 2);
    assert.equal(clock.pendingCount(), 1);
    await calls[0]!.resolve('a');
    assert.equal(clock.pendingCount(), 1);
    clock.advanceTo(10);
    assert.deepEqual(log, []);
    clock.advanceTo(13);
    assert.deepEqual(log, []);
    clock.advanceTo(14);
    assert.deepEqual(log, ['fail timeout {"value":2,"timestamp":2} the async call']);
    assert.equal(clock.pendingCount(), 0);
  });

  it('timeout(): its value replaces the result; a throwing handler fails the job as the timeout handler', async () => {
    const { fn, calls } = manualCalls();
    const rich: RichAsyncFunction<number, unknown> = {
      asyncInvoke: fn,
      timeout(input) {
        if (input === 9) throw new Error('no fallback');
        return `fallback ${input}`;
      },
    };
    const { op, clock, trace, log } = await open(rich, { timeoutMs: 10 });
    op.processElement(1, 1);
    op.processElement(9, 9);
    await calls[0]!.resolve('late');
    clock.advanceTo(10);
    assert.deepEqual(trace.events, ['r:late@1']);
    assert.deepEqual(log, ['fail no fallback {"value":9,"timestamp":9} the timeout handler']);

    const second = manualCalls();
    const failing = await open(
      { asyncInvoke: second.fn, timeout: (n: number) => `fallback ${n}` },
      { timeoutMs: 5 },
    );
    failing.trace.failOn = 'fallback 1';
    failing.op.processElement(1, 1);
    failing.clock.advanceTo(5);
    assert.deepEqual(failing.log, ['fail downstream refused fallback 1 undefined an async result']);
  });

  it('close() stops the timeouts and closes the function', async () => {
    const { fn } = manualCalls();
    const closed: string[] = [];
    const { op, clock, log } = await open(
      { asyncInvoke: fn, close: () => void closed.push('closed') },
      { timeoutMs: 5 },
    );
    op.processElement(1, 1);
    await op.close();
    clock.advanceTo(100);
    assert.deepEqual(log, []);
    assert.deepEqual(closed, ['closed']);
  });

  it('retries exactly up to maxAttempts calls, only when the strategy asks, after its backoff', async () => {
    const { fn, calls } = manualCalls();
    const backoffs: number[] = [];
    const retry: AsyncRetryStrategy<unknown> = {
      maxAttempts: 3,
      backoffMs: (attempt) => (backoffs.push(attempt), 10 * attempt),
      ifException: (e) => (e as Error).message === 'busy',
    };
    const { op, clock, log } = await open(fn, { retry });
    op.processElement(1, 1);
    await calls[0]!.reject(new Error('busy'));
    clock.advanceTo(9);
    assert.equal(calls.length, 1);
    clock.advanceTo(10);
    assert.equal(calls.length, 2);
    await calls[1]!.reject(new Error('busy'));
    clock.advanceTo(30);
    assert.equal(calls.length, 3);
    await calls[2]!.reject(new Error('busy'));
    clock.advanceTo(1_000);
    assert.equal(calls.length, 3);
    assert.deepEqual(backoffs, [1, 2]);
    assert.deepEqual(log, ['fail busy {"value":1,"timestamp":1} the async call']);

    // An error the strategy does not retry fails at once; a result without ifResult is kept.
    const other = manualCalls();
    const r = await open(other.fn, {
      retry: { maxAttempts: 3, backoffMs: () => 1, ifException: () => false },
    });
    r.op.processElement(2, 2);
    r.op.processElement(3, 3);
    await other.calls[1]!.resolve('kept');
    await other.calls[0]!.reject(new Error('fatal'));
    assert.equal(other.calls.length, 2);
    assert.deepEqual(r.log, ['fail fatal {"value":2,"timestamp":2} the async call']);
  });

  it('a result the strategy accepts is emitted without a retry', async () => {
    const { fn, calls } = manualCalls();
    const { op, trace, clock } = await open(fn, { retry: { maxAttempts: 2, backoffMs: () => 1 } });
    op.processElement(1, 1);
    await calls[0]!.resolve('ok');
    clock.advanceTo(10);
    assert.equal(calls.length, 1);
    assert.deepEqual(trace.events, ['r:ok@1']);
  });

  it('a record timed out by timeout() ahead of a queued watermark: the rest of the queue still times out', async () => {
    // The timed-out head emits the watermark behind it; the scan used to read the cleared slot and fail the job.
    const { fn } = manualCalls();
    const { op, clock, trace, log } = await open(
      { asyncInvoke: fn, timeout: (n: number) => `fallback ${n}` },
      { timeoutMs: 10 },
    );
    op.processElement(1, 1);
    op.processWatermark(5);
    op.processElement(2, 2);
    clock.advanceTo(4);
    op.processElement(3, 3);
    clock.advanceTo(10);
    assert.deepEqual(trace.events, ['r:fallback 1@1', 'w:5', 'r:fallback 2@2']);
    assert.equal(clock.pendingCount(), 1);
    clock.advanceTo(14);
    assert.deepEqual(trace.events.slice(3), ['r:fallback 3@3']);
    assert.deepEqual(log, []);
    assert.equal(clock.pendingCount(), 0);
  });

  it('ordered: a watermark releases nothing behind it out of order', async () => {
    const { fn, calls } = manualCalls();
    const { op, trace } = await open(fn);
    op.processElement(1, 1);
    op.processWatermark(1);
    op.processElement(2, 2);
    op.processElement(3, 3);
    await calls[2]!.resolve('c');
    await calls[0]!.resolve('a');
    assert.deepEqual(trace.events, ['r:a@1', 'w:1']);
    await calls[1]!.resolve('b');
    assert.deepEqual(trace.events, ['r:a@1', 'w:1', 'r:b@2', 'r:c@3']);
  });

  it('unordered: each watermark releases only the completed records of its own segment', async () => {
    const { fn, calls } = manualCalls();
    const { op, trace } = await open(fn, { mode: 'unordered' });
    op.processElement(1, 1);
    op.processWatermark(1);
    op.processElement(2, 2);
    op.processElement(3, 3);
    op.processWatermark(3);
    op.processElement(4, 4);
    await calls[3]!.resolve('d');
    await calls[1]!.resolve('b');
    assert.deepEqual(trace.events, []);
    await calls[0]!.resolve('a');
    // c (not done) holds w:3 back, and d behind it.
    assert.deepEqual(trace.events, ['r:a@1', 'w:1', 'r:b@2']);
    await calls[2]!.resolve('c');
    assert.deepEqual(trace.events, ['r:a@1', 'w:1', 'r:b@2', 'r:c@3', 'w:3', 'r:d@4']);
  });

  /** The operator's internal arrays, to check that memory stays bounded while results pass. */
  const sizes = (op: unknown) => {
    const o = op as { queue: unknown[]; waiting: unknown[]; watermarks: unknown[] };
    return { queue: o.queue.length, waiting: o.waiting.length, watermarks: o.watermarks.length };
  };

  it('unordered results behind a slow head do not pile up in the queue', async () => {
    const { fn, calls } = manualCalls();
    const { op, trace } = await open(fn, { capacity: 4, mode: 'unordered' });
    op.processElement(0, 0); // the slow head, never settled until the end
    let largest = 0;
    for (let i = 1; i <= 300; i++) {
      op.processElement(i, i);
      await calls[i]!.resolve(i);
      largest = Math.max(largest, sizes(op).queue);
    }
    assert.equal(trace.events.length, 300);
    assert.ok(largest <= 4 * 4 + 64 + 1, `queue grew to ${largest}`);
    await calls[0]!.resolve(0);
    assert.deepEqual(sizes(op), { queue: 0, waiting: 0, watermarks: 0 });
  });

  it('in ordered mode the emitted fronts of the queue and the watermark list are dropped while a call is always in flight', async () => {
    const { fn, calls } = manualCalls();
    const { op, trace } = await open(fn, { capacity: 2 });
    op.processElement(0, 0);
    let largest = 0;
    for (let i = 1; i <= 2_100; i++) {
      op.processElement(i, i);
      op.processWatermark(i);
      await calls[i - 1]!.resolve(i - 1);
      const s = sizes(op);
      largest = Math.max(largest, s.queue, s.watermarks);
      assert.ok(s.waiting <= 4, `${i} ${JSON.stringify(s)}`);
    }
    // Before the watermark list dropped its emitted front too, it held one slot per watermark ever queued.
    assert.ok(largest <= 1_024 + 8, `queue or watermark list grew to ${largest}`);
    // Records 0..2099 and the watermarks behind them; record 2100 and watermark 2100 still wait.
    assert.equal(trace.events.length, 2 * 2_100 - 1);
    assert.deepEqual(trace.events.slice(0, 5), ['r:0@0', 'r:1@1', 'w:1', 'r:2@2', 'w:2']);
    assert.deepEqual(trace.events.slice(-2), ['r:2099@2099', 'w:2099']);
  });
});
