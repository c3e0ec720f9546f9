// AsyncIterableSource: async generators and streams as sources, batches that never wait on slow items, replay.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { AsyncIterableSource } from './async-iterable-source.ts';
import { CollectSink } from './collect-sink.ts';
import type { ReaderOutput } from '../core/source.ts';
import { openSourceReader } from '../operators/split-assignment.ts';
import { JobCancelledError } from '../execution/job-cancelled-error.ts';

/**
 * An async iterator whose `next()` never settles (a socket that never sends): `asked` resolves once `next()` was
 * called, `returned` counts the calls to `return()`, which (as an async generator's) waits for the pending
 * `next()` and so never settles either.
 */
function silent(): { iterable: AsyncIterable<number>; asked: Promise<void>; returned: () => number } {
  let ask!: () => void;
  const asked = new Promise<void>((resolve) => (ask = resolve));
  let returns = 0;
  const iterator: AsyncIterator<number> = {
    next: () => (ask(), new Promise<IteratorResult<number>>(() => {})),
    return: () => (returns++, new Promise<IteratorResult<number>>(() => {})),
  };
  return { iterable: { [Symbol.asyncIterator]: () => iterator }, asked, returned: () => returns };
}

/** An async generator that waits forever before its first item; `waiting` resolves once it waits. */
function waitingGenerator(): { start: () => AsyncIterable<number>; waiting: Promise<void> } {
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  return {
    start: async function* () {
      reached();
      await new Promise<void>(() => {});
      yield 1;
    },
    waiting,
  };
}

/** An async iterable the test feeds by hand, like a socket. */
function channel<T>(): { iterable: AsyncIterable<T>; push(value: T): void; end(): void } {
  const items: IteratorResult<T>[] = [];
  let wake: (() => void) | undefined;
  return {
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (items.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          const next = items.shift()!;
          if (next.done === true) return;
          yield next.value;
        }
      },
    },
    push: (value) => (items.push({ value, done: false }), wake?.()),
    end: () => (items.push({ value: undefined, done: true }), wake?.()),
  };
}

const collector = <T>(values: T[]): ReaderOutput<T> => ({
  collect: (value) => void values.push(value),
  collectSide: () => {},
});

describe('env.fromAsyncIterable', () => {
  it('reads an async generator to its end, in order', async () => {
    // At parallelism 3 the source still has one subtask (three would read the generator three times); the map
    // and sink at 1 keep one channel, so the order the sink sees is the generator's in any execution mode.
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    const sink = new CollectSink<number>();
    env
      .fromAsyncIterable(async function* () {
        for (let i = 0; i < 2_500; i++) yield i;
      })
      .map((n) => n * 2)
      .setParallelism(1)
      .sinkTo(sink)
      .setParallelism(1);
    await env.execute('generator');
    assert.deepEqual(
      sink.values,
      Array.from({ length: 2_500 }, (_, i) => i * 2),
    );
  });

  it('reads a Node readable stream in object mode', async () => {
    const env = StreamExecutionEnvironment.create();
    const values = await env.fromAsyncIterable(Readable.from(['a', 'b', 'c'])).executeAndCollect();
    assert.deepEqual(values, ['a', 'b', 'c']);
  });

  it('emits each item as it arrives instead of waiting for a full batch', async () => {
    const env = StreamExecutionEnvironment.create();
    const feed = channel<string>();
    const sink = new CollectSink<string>();
    env.fromAsyncIterable(feed.iterable, 'socket').sinkTo(sink);
    const job = env.execute('live');
    feed.push('first');
    while (sink.values.length < 1) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(sink.values, ['first']);
    feed.push('second');
    feed.push('third');
    while (sink.values.length < 3) await new Promise((resolve) => setImmediate(resolve));
    feed.end();
    await job;
    assert.deepEqual(sink.values, ['first', 'second', 'third']);
  });

  it('replays a restarted iterable from its checkpointed split, at any parallelism', async () => {
    const start = async function* () {
      for (let i = 1; i <= 5; i++) yield i;
    };
    const source = new AsyncIterableSource(start);
    const context = { subtaskIndex: 0, parallelism: 1, sourceName: 'numbers' };
    const first: number[] = [];
    const reader = openSourceReader(source, context);
    assert.deepEqual(reader.snapshotState!(), [{ emitted: 0 }]);
    assert.equal(await reader.pollNext(collector(first)), 'end');
    assert.deepEqual(first, [1, 2, 3, 4, 5]);
    assert.deepEqual(reader.snapshotState!(), [], 'a finished iterable leaves no split');

    // Restored at parallelism 2, the one split goes to one subtask: the other reads nothing.
    const idle = openSourceReader(source, { ...context, parallelism: 2, subtaskIndex: 1 }, [
      [{ emitted: 3 }],
    ]);
    assert.equal(await idle.pollNext(collector([])), 'end');
    const restored = openSourceReader(source, { ...context, parallelism: 2 }, [[{ emitted: 3 }]]);
    const rest: number[] = [];
    while ((await restored.pollNext(collector(rest))) === 'more');
    assert.deepEqual(rest, [4, 5]);
  });

  it(
    'closes a reader whose next() is pending without waiting for it, calling return()',
    { timeout: 20_000 },
    async () => {
      const feed = silent();
      const reader = openSourceReader(new AsyncIterableSource(feed.iterable), {
        subtaskIndex: 0,
        parallelism: 1,
        sourceName: 'silent',
      });
      const values: number[] = [];
      // The poll hands control back after its idle wait, the next() still pending.
      assert.equal(await reader.pollNext(collector(values)), 'more');
      await feed.asked;
      assert.equal(feed.returned(), 0);
      await reader.close!();
      assert.equal(feed.returned(), 1);
      assert.deepEqual(values, []);
    },
  );

  it('awaits return() when no next() is pending, so a generator runs its finally blocks', async () => {
    const cleanedUp: string[] = [];
    const reader = openSourceReader(
      new AsyncIterableSource(async function* () {
        try {
          for (let i = 0; i < 2_000; i++) yield i;
        } finally {
          await Promise.resolve();
          cleanedUp.push('finally');
        }
      }),
      { subtaskIndex: 0, parallelism: 1, sourceName: 'numbers' },
    );
    const values: number[] = [];
    // A poll ends after a full batch (1,024 items) without asking for the next item.
    assert.equal(await reader.pollNext(collector(values)), 'more');
    assert.equal(values.length, 1_024);
    await reader.close!();
    assert.deepEqual(cleanedUp, ['finally']);
  });

  it(
    'cancels a job whose iterables wait forever: cancel() returns, the job is CANCELED',
    { timeout: 20_000 },
    async () => {
      const feed = silent();
      const generator = waitingGenerator();
      const env = StreamExecutionEnvironment.create();
      const sink = new CollectSink<number>();
      env.fromAsyncIterable(feed.iterable, 'silent').sinkTo(sink);
      env.fromAsyncIterable(generator.start, 'waiting').sinkTo(new CollectSink<number>());
      const client = await env.executeAsync('waiting-forever');
      await Promise.all([feed.asked, generator.waiting]);
      assert.equal(client.getJobStatus(), 'RUNNING');
      await client.cancel();
      assert.equal(client.getJobStatus(), 'CANCELED');
      await assert.rejects(client.result, JobCancelledError);
      assert.equal(feed.returned(), 1);
      assert.deepEqual(sink.values, []);
    },
  );

  it('cancels such a job through the REST API', { timeout: 20_000 }, async () => {
    const generator = waitingGenerator();
    const env = StreamExecutionEnvironment.create();
    env.fromAsyncIterable(generator.start, 'waiting').sinkTo(new CollectSink<number>());
    const client = await env.executeAsync('waiting-rest', { webUi: { port: 0 } });
    await generator.waiting;
    const response = await fetch(new URL(`/jobs/${client.jobId}/cancel`, client.webUiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 202);
    await assert.rejects(client.result, JobCancelledError);
    assert.equal(client.getJobStatus(), 'CANCELED');
  });

  it('refuses to restore an iterable it cannot replay, naming the source', () => {
    const source = new AsyncIterableSource(Readable.from([1, 2, 3]));
    const context = { subtaskIndex: 0, parallelism: 1, sourceName: 'socket' };
    assert.throws(
      () => openSourceReader(source, context, [[{ emitted: 2 }]]),
      (e: unknown) =>
        e instanceof ConfigurationError &&
        e.message.startsWith("Source 'socket': cannot replay an async iterable from item 2"),
    );
  });

  it('rejects what is not an async iterable when the job is built', () => {
    const env = StreamExecutionEnvironment.create();
    assert.throws(
      () => env.fromAsyncIterable([1, 2, 3] as never),
      /fromAsyncIterable\(\) needs an async iterable or a function returning one, got 1,2,3/,
    );
  });
});
