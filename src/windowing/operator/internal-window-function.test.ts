// The adapters from user window functions to the operator's one shape: what each passes on, and what each refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Collector } from '../../core/functions.ts';
import type { RuntimeContext } from '../../core/runtime-context.ts';
import type { ProcessWindowContext, ProcessWindowFunction } from '../process-window-function.ts';
import { TimeWindow } from '../time-window.ts';
import {
  AggregateApplyWindowFunction,
  IterableProcessWindowFunction,
  IterableWindowFunction,
  ReduceApplyWindowFunction,
  SingleValueProcessWindowFunction,
  SingleValueWindowFunction,
  type InternalWindowFunction,
} from './internal-window-function.ts';

const window = new TimeWindow(0, 10);
const ctx = {} as RuntimeContext;
const context = { window } as ProcessWindowContext<TimeWindow>;

/** A process window function that records its calls. */
function recording(calls: string[]): ProcessWindowFunction<number, string, string, TimeWindow> {
  return {
    open: () => void calls.push('open'),
    close: () => void calls.push('close'),
    clear: (c) => void calls.push(`clear ${c === context}`),
    process: (key, _c, elements, out) => out.collect(`${key} ${elements.join(',')}`),
  };
}

function collect(): Collector<string> & { out: string[] } {
  const out: string[] = [];
  return { out, collect: (v: string) => void out.push(v) };
}

describe('internal window functions', () => {
  it('process window functions get open, close, clear and their elements', () => {
    const calls: string[] = [];
    const single = new SingleValueProcessWindowFunction(recording(calls));
    const iterable = new IterableProcessWindowFunction(recording(calls));
    const out = collect();
    for (const f of [single, iterable] as InternalWindowFunction<any, string, string, TimeWindow>[]) {
      void f.open(ctx);
      f.clear(window, context);
      void f.close();
    }
    single.process('k', window, context, 7, out);
    iterable.process('k', window, context, [1, 2], out);
    assert.deepEqual(calls, ['open', 'clear true', 'close', 'open', 'clear true', 'close']);
    assert.deepEqual(out.out, ['k 7', 'k 1,2']);
  });

  it('a function that returns a Promise is refused, naming its method', () => {
    const asyncProcess = { process: async () => {} } as unknown as ProcessWindowFunction<
      number,
      string,
      string,
      TimeWindow
    >;
    const asyncApply = (async () => {}) as never;
    assert.throws(
      () => new SingleValueProcessWindowFunction(asyncProcess).process('k', window, context, 1, collect()),
      /^IllegalStateError: process\(\) returned a Promise/,
    );
    assert.throws(
      () => new IterableProcessWindowFunction(asyncProcess).process('k', window, context, [1], collect()),
      /^IllegalStateError: process\(\) returned a Promise/,
    );
    assert.throws(
      () =>
        new SingleValueWindowFunction<number, string, string, TimeWindow>(asyncApply).process(
          'k',
          window,
          context,
          1,
          collect(),
        ),
      /^IllegalStateError: apply\(\) returned a Promise/,
    );
    assert.throws(
      () =>
        new IterableWindowFunction<number, string, string, TimeWindow>(asyncApply).process(
          'k',
          window,
          context,
          [1],
          collect(),
        ),
      /^IllegalStateError: apply\(\) returned a Promise/,
    );
  });

  it('reduce and aggregate over the elements pass open, close and clear to the function they feed', () => {
    const calls: string[] = [];
    const reduce = new ReduceApplyWindowFunction<number, string, string, TimeWindow>(
      (a, b) => a + b,
      new SingleValueProcessWindowFunction(recording(calls)),
    );
    const aggregate = new AggregateApplyWindowFunction<number, number, number, string, string, TimeWindow>(
      {
        createAccumulator: () => 0,
        add: (v, acc) => acc + v,
        getResult: (acc) => acc * 10,
        merge: (a, b) => a + b,
      },
      new SingleValueProcessWindowFunction(recording(calls)),
    );
    const out = collect();
    for (const f of [reduce, aggregate]) {
      void f.open(ctx);
      f.process('k', window, context, [1, 2, 3], out);
      f.process('k', window, context, [], out);
      f.clear(window, context);
      void f.close();
    }
    // A reduce of no elements emits nothing; an aggregate of none emits a fresh accumulator's result, as in Flink.
    assert.deepEqual(out.out, ['k 6', 'k 60', 'k 0']);
    assert.deepEqual(calls, ['open', 'clear true', 'close', 'open', 'clear true', 'close']);
  });
});
