// User functions that return Promises are refused: at definition when declared async, at their first result otherwise.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../src/api/data-stream.ts';
import { StreamExecutionEnvironment } from '../src/api/stream-execution-environment.ts';
import { AsyncDataStream } from '../src/api/async-data-stream.ts';
import { TumblingEventTimeWindows } from '../src/windowing/assigners/tumbling-event-time-windows.ts';
import { MapStateDescriptor } from '../src/core/state-descriptor.ts';
import { ConfigurationError, IllegalStateError, JobExecutionError } from '../src/core/errors.ts';
import { TestHarness } from '../src/testing/index.ts';
import type { Sink } from '../src/core/sink.ts';

const ADVICE =
  /Weir calls this function synchronously, so whatever it emits after its first await would be lost\. Call asynchronous code through AsyncDataStream\.orderedWait\(stream, fn, timeoutMs, capacity\) or unorderedWait \(see docs\/datastream-api\.md, "Async I\/O"\), or write to an asynchronous client with AsyncSink/;

/** A function typed as its synchronous signature, as plain JavaScript (or an `any`) would pass it. */
const untyped = <F>(fn: unknown): F => fn as F;

const lookup = (n: number): Promise<number> => Promise.resolve(n * 10);

function definitionError(operator: string, what: string) {
  return (e: unknown) =>
    e instanceof ConfigurationError &&
    e.message.startsWith(`Operator '${operator}': ${what}`) &&
    ADVICE.test(e.message);
}

/** Runs `build` over 1, 2, 3 and returns the job's error. */
async function runFailure(build: (input: DataStream<number>) => DataStream<any>): Promise<JobExecutionError> {
  const env = StreamExecutionEnvironment.create();
  const out = build(env.fromElements(1, 2, 3));
  out.sinkTo({ createWriter: () => ({ write() {} }) }, 'Discard');
  const error = await env.execute().then(
    () => assert.fail('the job should fail'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof JobExecutionError, String(error));
  return error;
}

describe('async user functions are refused when the job is defined', () => {
  const env = StreamExecutionEnvironment.create();
  const numbers = env.fromElements(1, 2, 3);

  it('map, filter, flatMap and keyBy name the operator and point to AsyncDataStream', () => {
    assert.throws(
      () =>
        numbers.map(
          untyped<(n: number) => number>(async (n: number) => lookup(n)),
          'Enrich',
        ),
      definitionError('Enrich', 'map() was given an async function.'),
    );
    assert.throws(
      () => numbers.filter(untyped<(n: number) => boolean>(async (n: number) => (await lookup(n)) > 10)),
      definitionError('Filter', 'filter() was given an async function.'),
    );
    assert.throws(
      () => numbers.flatMap(async (n, out) => out.collect(await lookup(n))),
      definitionError('Flat Map', 'flatMap() was given an async function.'),
    );
    assert.throws(
      () => numbers.keyBy(async (n) => lookup(n)),
      definitionError('Hash', 'keyBy() was given an async function.'),
    );
  });

  it('process functions name the async method; an async open is fine', () => {
    assert.throws(
      () =>
        numbers
          .keyBy((n) => n % 2)
          .process<number>({
            async processElement(n, _ctx, out) {
              out.collect(await lookup(n));
            },
          }),
      definitionError('KeyedProcess', 'process() was given a function whose processElement() is async.'),
    );
    assert.throws(
      () =>
        numbers.process<number>(
          {
            processElement() {},
            async onTimer() {},
          },
          'Timers',
        ),
      definitionError('Timers', 'process() was given a function whose onTimer() is async.'),
    );
    class Enricher {
      async processElement(n: number) {
        return lookup(n);
      }
    }
    assert.throws(
      () => numbers.process<number>(new Enricher()),
      definitionError('Process', 'process() was given a function whose processElement() is async.'),
    );
    numbers.process<number>({
      async open() {
        await Promise.resolve();
      },
      processElement(n, _ctx, out) {
        out.collect(n);
      },
    });
  });

  it('connected, broadcast, window, join and CEP functions', () => {
    const other = env.fromElements('a');
    assert.throws(
      () =>
        numbers.connect(other).map({
          map1: untyped<(n: number) => number>(async (n: number) => n),
          map2: (s: string) => s.length,
        }),
      definitionError('CoMap', 'map() was given a function whose map1() is async.'),
    );
    assert.throws(
      () =>
        numbers.connect(other).process<string>({
          processElement1() {},
          async processElement2() {},
        }),
      definitionError('CoProcess', 'process() was given a function whose processElement2() is async.'),
    );
    const rules = new MapStateDescriptor<string, string>('rules');
    assert.throws(
      () =>
        numbers.connect(other.broadcast(rules)).process<string>({
          processElement() {},
          async processBroadcastElement() {},
        }),
      definitionError(
        'Co-Process-Broadcast',
        'process() was given a function whose processBroadcastElement() is async.',
      ),
    );
    const windowed = numbers.keyBy((n) => n).window(TumblingEventTimeWindows.of(10));
    assert.throws(
      () => windowed.reduce(untyped<(a: number, b: number) => number>(async (a: number, b: number) => a + b)),
      definitionError(
        'Window(TumblingEventTimeWindows(10), EventTimeTrigger(), reduce)',
        'reduce() was given an async function.',
      ),
    );
    assert.throws(
      () =>
        windowed.process<number>({
          async process(_key, _ctx, elements, out) {
            for (const n of elements) out.collect(await lookup(n));
          },
        }),
      definitionError(
        'Window(TumblingEventTimeWindows(10), EventTimeTrigger(), process)',
        'process() was given a function whose process() is async.',
      ),
    );
    assert.throws(
      () =>
        numbers
          .join(other)
          .where((n) => String(n))
          .equalTo((s) => s)
          .window(TumblingEventTimeWindows.of(10))
          .apply(async (n, s) => `${n}${s}`),
      definitionError('Window Join', 'apply() was given an async function.'),
    );
  });

  it('AsyncDataStream takes async functions: that is what it is for', async () => {
    const env2 = StreamExecutionEnvironment.create();
    const out = await AsyncDataStream.orderedWait(
      env2.fromElements(1, 2, 3),
      lookup,
      1_000,
      2,
    ).executeAndCollect();
    assert.deepEqual(out, [10, 20, 30]);
  });
});

describe('Promises returned by functions not declared async fail the job at the first record', () => {
  it('map: the job fails naming the operator and the record instead of passing the Promise downstream', async () => {
    const error = await runFailure((input) =>
      input.map(
        untyped<(n: number) => number>((n: number) => lookup(n)),
        'Enrich',
      ),
    );
    assert.equal(error.location.operator, 'Enrich');
    assert.equal(error.location.record, '1');
    assert.ok(error.cause instanceof IllegalStateError);
    assert.match(
      error.message,
      /^Operator 'Enrich' \(subtask 1\/1\) failed while processing record 1: map\(\) returned a Promise\. /,
    );
    assert.match(error.message, ADVICE);
  });

  it('filter: a Promise is truthy, so without the check every record would pass', async () => {
    const error = await runFailure((input) =>
      input.filter(untyped<(n: number) => boolean>((n: number) => lookup(n).then((v) => v > 10))),
    );
    assert.match(error.message, /Operator 'Filter' .* record 1: filter\(\) returned a Promise/);
  });

  it('flatMap, keyed process, reduce and window apply', async () => {
    const cases: [string, (input: DataStream<number>) => DataStream<any>, RegExp][] = [
      [
        'flatMap',
        (s) => s.flatMap((n, out) => lookup(n).then((v) => out.collect(v))),
        /flatMap\(\) returned a Promise/,
      ],
      [
        'process',
        (s) =>
          s
            .keyBy((n) => n)
            .process<number>({
              processElement: (n, _ctx, out) => lookup(n).then((v) => out.collect(v)),
            }),
        /Operator 'KeyedProcess' .*processElement\(\) returned a Promise/,
      ],
      [
        'reduce',
        (s) => s.keyBy(() => 0).reduce((a, b) => lookup(a + b) as unknown as number),
        /reduce\(\) returned a Promise/,
      ],
    ];
    for (const [name, build, expected] of cases) {
      const error = await runFailure(build);
      assert.match(error.message, expected, name);
      assert.match(error.message, ADVICE, name);
    }
  });

  it('a processElement that returns a Promise fails in the harness too, at the first record', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      input.process<number>({ processElement: (n, _ctx, out) => lookup(n).then((v) => out.collect(v)) }),
    );
    assert.throws(
      () => h.processElement(7, 1),
      /Operator 'Process' .*record 7.*processElement\(\) returned a Promise/,
    );
    await h.close();
  });

  it('a sink whose writer has an async write() fails when the sink opens', async () => {
    const written: number[] = [];
    const sink: Sink<number> = {
      createWriter: () => ({
        async write(n: number) {
          written.push(await lookup(n));
        },
      }),
    };
    const env = StreamExecutionEnvironment.create();
    env.fromElements(1, 2, 3).sinkTo(sink, 'Database');
    await assert.rejects(env.execute(), (e: unknown) => {
      const cause = e instanceof JobExecutionError ? e.cause : e;
      return (
        cause instanceof ConfigurationError &&
        cause.message.startsWith("Operator 'Database': sinkTo() was given a function whose write() is async.")
      );
    });
    assert.deepEqual(written, []);
  });

  it('map() is typed to refuse functions that return Promises', () => {
    const env = StreamExecutionEnvironment.create();
    // @ts-expect-error map() does not take a function returning a Promise
    assert.throws(() => env.fromElements(1).map(async (n) => n));
    const typed: DataStream<number> = env.fromElements(1).map((n) => n + 1);
    assert.ok(typed);
  });
});
