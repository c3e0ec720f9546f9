// `this` inside object-literal rich functions: typed as the literal when TypeScript can see it. The type
// assertions are checked by `npm run typecheck` (a wrong `isType` or an unused @ts-expect-error fails it); the
// runtime half runs the same functions in a job and checks their output exactly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CollectSink,
  StreamExecutionEnvironment,
  ValueStateDescriptor,
  type Collector,
  type DataStream,
  type ValueState,
} from '../src/index.ts';
import { isType } from './support/is-type.ts';

interface Click {
  readonly user: string;
  readonly page: string;
}

const clicks: Click[] = [
  { user: 'ann', page: '/a' },
  { user: 'bob', page: '/a' },
  { user: 'ann', page: '/b' },
  { user: 'ann', page: '/c' },
  { user: 'bob', page: '/b' },
];

/** Counts clicks per user with both types inferred: `this` is the literal, the output type comes from `out`. */
function countInferred(stream: DataStream<Click>): DataStream<string> {
  const counted = stream
    .keyBy((c) => c.user)
    .process({
      count: undefined as unknown as ValueState<number, number>,
      label: 'clicks',
      open(ctx) {
        this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
      },
      processElement(click, ctx, out: Collector<string>) {
        this.count.update(this.count.value() + 1);
        const n = this.count.value();
        assert.ok(isType<typeof n, number>(true));
        assert.ok(isType<typeof this.label, string>(true));
        // @ts-expect-error a field the literal does not have
        void this.missing;
        // Type-level only (never runs): the state holds numbers.
        // @ts-expect-error a string is not a number
        if (n < 0) this.count.update('one');
        out.collect(`${ctx.getCurrentKey()} ${this.label} ${n} ${click.page}`);
      },
    });
  assert.ok(isType<typeof counted, DataStream<string>>(true));
  return counted;
}

/** The same with both type arguments written: `this` is checked against the declared fields. */
function countExplicit(stream: DataStream<Click>): DataStream<string> {
  return stream
    .keyBy((c) => c.user)
    .process<string, { pages: ValueState<string, string> }>({
      pages: undefined as unknown as ValueState<string, string>,
      open(ctx) {
        this.pages = ctx.getState(new ValueStateDescriptor<string>('pages', { defaultValue: '' }));
      },
      processElement(click, _ctx, out) {
        const seen = this.pages.value();
        assert.ok(isType<typeof seen, string>(true));
        // @ts-expect-error a field the declared shape does not have
        void this.count;
        this.pages.update(seen + click.page);
        out.collect(`${click.user} ${this.pages.value()}`);
      },
    });
}

/** Type-level only: an explicit shape rejects a literal with fields it does not list. */
function _rejectsUndeclaredFields(stream: DataStream<Click>): void {
  stream
    .keyBy((c) => c.user)
    .process<string, { pages: number }>({
      pages: 0,
      // @ts-expect-error `extra` is not in the declared shape
      extra: 1,
      processElement(_click, _ctx, out) {
        out.collect(String(this.pages));
      },
    });
}

describe('object-literal functions', () => {
  it('run with typed `this` (inferred shape): per-key counts', async () => {
    const env = StreamExecutionEnvironment.create();
    const sink = new CollectSink<string>();
    countInferred(env.fromElements(...clicks)).sinkTo(sink);
    await env.execute('inferred');
    assert.deepEqual(sink.values, [
      'ann clicks 1 /a',
      'bob clicks 1 /a',
      'ann clicks 2 /b',
      'ann clicks 3 /c',
      'bob clicks 2 /b',
    ]);
  });

  it('run with typed `this` (declared shape): pages per key', async () => {
    const env = StreamExecutionEnvironment.create();
    const sink = new CollectSink<string>();
    countExplicit(env.fromElements(...clicks)).sinkTo(sink);
    await env.execute('declared');
    assert.deepEqual(sink.values, ['ann /a', 'bob /a', 'ann /a/b', 'ann /a/b/c', 'bob /a/b']);
  });
});
