// WindowedStream through the public test harness: parallelism, rescaling restore, late data, build-time checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { KeyedStream } from './keyed-stream.ts';
import { OutputTag } from '../core/output-tag.ts';
import type { AggregateFunction } from '../core/aggregate-function.ts';
import { ValueStateDescriptor } from '../core/state-descriptor.ts';
import { TestHarness } from '../testing/index.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import { AllWindowedStream, countWindowAll } from './all-windowed-stream.ts';
import { EventTimeSessionWindows } from '../windowing/assigners/event-time-session-windows.ts';
import { GlobalWindows } from '../windowing/assigners/global-windows.ts';
import { SlidingEventTimeWindows } from '../windowing/assigners/sliding-event-time-windows.ts';
import { TumblingEventTimeWindows } from '../windowing/assigners/tumbling-event-time-windows.ts';
import type { ProcessWindowFunction } from '../windowing/process-window-function.ts';
import type { TimeWindow } from '../windowing/time-window.ts';
import { CountTrigger } from '../windowing/triggers/count-trigger.ts';
import { DeltaTrigger } from '../windowing/triggers/delta-trigger.ts';
import { countWindow, WindowedStream } from './windowed-stream.ts';

interface Click {
  user: string;
  n: number;
}

const countAndSum: AggregateFunction<Click, { user: string; count: number; sum: number }, string> = {
  createAccumulator: () => ({ user: '', count: 0, sum: 0 }),
  add: (c, acc) => {
    acc.user = c.user;
    acc.count++;
    acc.sum += c.n;
    return acc;
  },
  getResult: (acc) => `${acc.user}:${acc.count}/${acc.sum}`,
  merge: (a, b) => ({ user: a.user || b.user, count: a.count + b.count, sum: a.sum + b.sum }),
};

const byUser = (input: DataStream<Click>): KeyedStream<Click, string> => input.keyBy((c) => c.user);
const tumbling = (input: DataStream<Click>) =>
  new WindowedStream(byUser(input), TumblingEventTimeWindows.of(1000)).aggregate(countAndSum);

function sorted<T>(values: T[]): T[] {
  return [...values].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

describe('WindowedStream', () => {
  for (const parallelism of [1, 3]) {
    it(`tumbling event-time aggregate at parallelism ${parallelism}, cleaning up every window`, async () => {
      const h = await TestHarness.create(tumbling, { parallelism });
      h.processElement({ user: 'a', n: 1 }, 100);
      h.processElement({ user: 'b', n: 2 }, 900);
      h.processElement({ user: 'a', n: 3 }, 1500);
      h.processElement({ user: 'a', n: 4 }, 700);
      h.processWatermark(999);
      assert.deepEqual(sorted(h.records()), ['a:2/5', 'b:1/2']);
      h.processWatermark(1999);
      assert.deepEqual(h.records().slice(2), ['a:1/3']);
      const records = h.output().filter((o) => 'value' in o);
      assert.deepEqual(
        records.map((r) => r.timestamp),
        [999, 999, 1999],
        'results carry the window max timestamp',
      );
      assert.equal(h.numKeyedStateEntries(), 0);
      assert.equal(h.numEventTimeTimers(), 0);
      await h.close();
    });
  }

  it('restores window contents, trigger state and timers at another parallelism', async () => {
    const build = (input: DataStream<Click>) =>
      new WindowedStream(byUser(input), SlidingEventTimeWindows.of(2000, 1000))
        .trigger(CountTrigger.of(100))
        .allowedLateness(0)
        .aggregate(countAndSum);
    const h1 = await TestHarness.create(build, { parallelism: 1 });
    const users = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    for (let i = 0; i < 70; i++) h1.processElement({ user: users[i % users.length]!, n: i }, 500 + i);
    const snapshot = h1.snapshot();
    const entries = h1.numKeyedStateEntries();
    assert.ok(entries > 0);
    await h1.close();

    for (const parallelism of [2, 5]) {
      const h2 = await TestHarness.restore(build, snapshot, { parallelism });
      assert.equal(h2.numKeyedStateEntries(), entries, 'every entry restored once');
      // 100 elements per pane fire the count trigger: 10 restored + 90 new for user a in both its windows.
      for (let i = 0; i < 90; i++) h2.processElement({ user: 'a', n: 1 }, 600);
      const expectedSum = [0, 7, 14, 21, 28, 35, 42, 49, 56, 63].reduce((x, y) => x + y, 0) + 90;
      assert.deepEqual(h2.records(), [`a:100/${expectedSum}`, `a:100/${expectedSum}`]);
      await h2.close();
    }
  });

  it('sends late elements to the side output and counts nothing else', async () => {
    const lateTag = new OutputTag<Click>('late');
    const build = (input: DataStream<Click>) => {
      const windowed = new WindowedStream(byUser(input), TumblingEventTimeWindows.of(1000))
        .allowedLateness(500)
        .sideOutputLateData(lateTag)
        .aggregate(countAndSum);
      return windowed.union(windowed.getSideOutput(lateTag).map((c) => `late ${c.user}:${c.n}`));
    };
    const h = await TestHarness.create(build, { parallelism: 2 });
    h.processElement({ user: 'a', n: 1 }, 100);
    h.processWatermark(1200);
    h.processElement({ user: 'a', n: 2 }, 200); // within lateness: fires again at once
    h.processWatermark(1600);
    h.processElement({ user: 'a', n: 3 }, 300); // past lateness: late
    h.processWatermark(5000);
    assert.deepEqual(h.records(), ['a:1/1', 'a:2/3', 'late a:3']);
    assert.equal(h.numKeyedStateEntries(), 0);
    await h.close();
  });

  it('rejects a trigger that cannot merge on session windows when the job is built', () => {
    const windowed = { keyBy: () => ({ transform: () => undefined }) } as unknown as DataStream<Click>;
    assert.throws(
      () =>
        new WindowedStream(byUser(windowed), EventTimeSessionWindows.withGap(1000)).trigger(
          DeltaTrigger.of(1, (a: Click, b: Click) => b.n - a.n),
        ),
      (e: unknown) => e instanceof ConfigurationError && /does not support merging/.test(e.message),
    );
  });

  it('rejects negative lateness', () => {
    const fake = { keyBy: () => ({}) } as unknown as DataStream<Click>;
    assert.throws(
      () => new WindowedStream(byUser(fake), TumblingEventTimeWindows.of(10)).allowedLateness(-1),
      ConfigurationError,
    );
  });

  it('ProcessWindowFunction: per-window state survives late firings and is cleared with the window', async () => {
    const firings = new ValueStateDescriptor<number>('firings', { defaultValue: 0 });
    const totals = new ValueStateDescriptor<number>('windows-seen', { defaultValue: 0 });
    const fn: ProcessWindowFunction<Click, string, string, TimeWindow> = {
      process(user, ctx, elements, out) {
        const perWindow = ctx.windowState().getState(firings);
        perWindow.update(perWindow.value()! + 1);
        const global = ctx.globalState().getState(totals);
        if (perWindow.value() === 1) global.update(global.value()! + 1);
        out.collect(
          `${user}@${ctx.window.start}: ${elements.length} elements, firing ${perWindow.value()}, window ${global.value()}, wm ${ctx.currentWatermark()}`,
        );
      },
      clear(ctx) {
        ctx.windowState().getState(firings).clear();
      },
    };
    const h = await TestHarness.create((input: DataStream<Click>) =>
      new WindowedStream(byUser(input), TumblingEventTimeWindows.of(1000)).allowedLateness(1000).process(fn),
    );
    h.processElement({ user: 'a', n: 1 }, 10);
    h.processWatermark(1000);
    h.processElement({ user: 'a', n: 2 }, 20);
    h.processElement({ user: 'a', n: 3 }, 1010);
    h.processWatermark(2000);
    assert.deepEqual(h.records(), [
      'a@0: 1 elements, firing 1, window 1, wm 1000',
      'a@0: 2 elements, firing 2, window 1, wm 1000',
      'a@1000: 1 elements, firing 1, window 2, wm 2000',
    ]);
    h.processWatermark(3000);
    // Only the per-key state ("windows-seen") remains.
    assert.equal(h.numKeyedStateEntries(), 1);
    assert.equal(h.numEventTimeTimers(), 0);
    await h.close();
  });

  it('countWindow: tumbling and sliding count windows', async () => {
    const h = await TestHarness.create((input: DataStream<Click>) =>
      countWindow(byUser(input), 3).aggregate(countAndSum),
    );
    for (let i = 1; i <= 7; i++) h.processElement({ user: 'a', n: i }, i);
    assert.deepEqual(h.records(), ['a:3/6', 'a:3/15']);
    await h.close();

    const s = await TestHarness.create((input: DataStream<Click>) =>
      countWindow(byUser(input), 3, 2).aggregate(countAndSum),
    );
    for (let i = 1; i <= 7; i++) s.processElement({ user: 'a', n: i }, i);
    // Every 2 elements, the last 3 (Flink's CountEvictor + CountTrigger).
    assert.deepEqual(s.records(), ['a:2/3', 'a:3/9', 'a:3/15']);
    await s.close();
  });

  it('windowAll: one window over all keys in a single subtask; end-of-stream global window', async () => {
    const h = await TestHarness.create(
      (input: DataStream<Click>) =>
        new AllWindowedStream(input, TumblingEventTimeWindows.of(1000)).process({
          process(ctx, elements, out) {
            out.collect(
              `${ctx.window.start}: ${elements
                .map((e) => e.user)
                .sort()
                .join('')}`,
            );
          },
        }),
      { parallelism: 4 },
    );
    for (const u of ['c', 'a', 'b']) h.processElement({ user: u, n: 1 }, 5);
    h.processElement({ user: 'z', n: 1 }, 1005);
    h.endInput();
    assert.deepEqual(h.records(), ['0: abc', '1000: z']);
    await h.close();

    const e = await TestHarness.create((input: DataStream<Click>) =>
      new AllWindowedStream(input, GlobalWindows.createWithEndOfStreamTrigger()).aggregate(countAndSum),
    );
    e.processElement({ user: 'a', n: 1 }, 1);
    e.processElement({ user: 'b', n: 2 }, 2);
    assert.deepEqual(e.records(), []);
    e.endInput();
    assert.deepEqual(
      e.output().filter((o) => 'value' in o),
      [{ value: 'b:2/3', timestamp: MAX_WATERMARK }],
    );
    await e.close();

    const c = await TestHarness.create((input: DataStream<Click>) =>
      countWindowAll(input, 2).aggregate(countAndSum),
    );
    for (const u of ['x', 'y', 'z', 'w']) c.processElement({ user: u, n: 1 }, 1);
    assert.deepEqual(c.records(), ['y:2/2', 'w:2/2']);
    await c.close();
  });
});
