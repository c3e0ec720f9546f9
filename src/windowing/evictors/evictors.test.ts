// Evictors inside the window operator: before and after the window function, by count, time and delta.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AggregateFunction } from '../../core/aggregate-function.ts';
import { GlobalWindows } from '../assigners/global-windows.ts';
import { EventTimeSessionWindows } from '../assigners/event-time-session-windows.ts';
import { TumblingEventTimeWindows } from '../assigners/tumbling-event-time-windows.ts';
import type { Evictor, TimestampedValue } from '../evictor.ts';
import {
  AggregateApplyWindowFunction,
  IterableWindowFunction,
  PassThroughWindowFunction,
  ReduceApplyWindowFunction,
  type InternalWindowFunction,
} from '../operator/internal-window-function.ts';
import { WindowOperator } from '../operator/window-operator.ts';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import type { Trigger } from '../trigger.ts';
import { CountTrigger } from '../triggers/count-trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import type { Window } from '../window.ts';
import type { WindowAssigner } from '../window-assigner.ts';
import { evictingState } from '../../api/windowed-stream.ts';
import { CountEvictor } from './count-evictor.ts';
import { DeltaEvictor } from './delta-evictor.ts';
import { TimeEvictor } from './time-evictor.ts';

function evicting<OUT>(
  assigner: WindowAssigner<any, any>,
  trigger: Trigger<any, any>,
  evictor: Evictor<number, any>,
  fn: InternalWindowFunction<readonly number[], OUT, string, Window> = new IterableWindowFunction<
    number,
    any,
    string,
    Window
  >((_k, _w, v, out) => out.collect([...v])),
) {
  return new KeyedOperatorHarness<number, OUT>(
    () =>
      new WindowOperator<string, number, any, OUT, Window>({
        assigner,
        trigger,
        windowStateDescriptor: evictingState<number>(),
        windowFunction: fn as InternalWindowFunction<any, OUT, string, Window>,
        allowedLateness: 0,
        lateDataOutputTag: undefined,
        evictor,
      }),
    () => 'k',
  );
}

const values = <T>(h: KeyedOperatorHarness<number, T>) => h.records().map((r) => r.value);

describe('evictors', () => {
  it('CountEvictor before: the function sees the last n elements', () => {
    const h = evicting(GlobalWindows.create(), CountTrigger.of(2), CountEvictor.of(3));
    for (let i = 1; i <= 6; i++) h.processElement(i, i);
    assert.deepEqual(values(h), [
      [1, 2],
      [2, 3, 4],
      [4, 5, 6],
    ]);
  });

  it('CountEvictor after: the function sees everything, then only the last n stay', () => {
    const h = evicting(GlobalWindows.create(), CountTrigger.of(3), CountEvictor.of(2, true));
    for (let i = 1; i <= 6; i++) h.processElement(i, i);
    assert.deepEqual(values(h), [
      [1, 2, 3],
      [2, 3, 4, 5, 6],
    ]);
  });

  it('TimeEvictor keeps elements newer than max timestamp - size (exclusive cut-off)', () => {
    const h = evicting(GlobalWindows.create(), CountTrigger.of(5), TimeEvictor.of(3000));
    for (const ts of [0, 1000, 2000, 2001, 5000]) h.processElement(ts, ts);
    // max 5000, cut-off 2000: 2000 itself goes, 2001 stays
    assert.deepEqual(values(h), [[2001, 5000]]);
  });

  it('TimeEvictor never evicts elements without timestamps', () => {
    const h = evicting(GlobalWindows.create(), CountTrigger.of(2), TimeEvictor.of(1));
    h.processElement(1, Number.NaN);
    h.processElement(2, Number.NaN);
    assert.deepEqual(values(h), [[1, 2]]);
  });

  it('DeltaEvictor removes elements at least the threshold away from the last one', () => {
    const h = evicting(
      GlobalWindows.create(),
      CountTrigger.of(4),
      DeltaEvictor.of(2, (a: number, b: number) => Math.abs(a - b)),
    );
    for (const v of [1, 5, 6, 7]) h.processElement(v, 0);
    assert.deepEqual(values(h), [[6, 7]]);
  });

  it('TimeEvictor cuts from the newest timestamp, wherever it is in the pane, and after the function when asked', () => {
    const before = evicting(GlobalWindows.create(), CountTrigger.of(4), TimeEvictor.of(1000));
    for (const ts of [3000, 1500, 2500, 1999]) before.processElement(ts, ts);
    // max 3000, cut-off 2000: 1500 and 1999 go
    assert.deepEqual(values(before), [[3000, 2500]]);
    const after = evicting(GlobalWindows.create(), CountTrigger.of(2), TimeEvictor.of(1000, true));
    for (const ts of [1000, 1500, 2600, 2700]) after.processElement(ts, ts);
    assert.deepEqual(values(after), [
      [1000, 1500],
      [1000, 1500, 2600, 2700],
    ]);
    // the second firing saw everything; then 1000 and 1500 (<= 2700 - 1000) went
    after.processElement(2800, 2800);
    after.processElement(2900, 2900);
    assert.deepEqual(values(after).at(-1), [2600, 2700, 2800, 2900]);
  });

  it('DeltaEvictor after the function: the function sees everything, then the far elements go', () => {
    const h = evicting(
      GlobalWindows.create(),
      CountTrigger.of(2),
      DeltaEvictor.of(2, (a: number, b: number) => Math.abs(a - b), true),
    );
    for (const v of [1, 5, 6, 7]) h.processElement(v, 0);
    assert.deepEqual(values(h), [
      [1, 5],
      [5, 6, 7],
    ]);
  });

  it('a count of 0 empties the pane after each firing, a time of 0 before it; negative or NaN arguments are refused', () => {
    const zero = evicting(GlobalWindows.create(), CountTrigger.of(2), CountEvictor.of(0, true));
    for (const v of [1, 2, 3, 4]) zero.processElement(v, v);
    assert.deepEqual(values(zero), [
      [1, 2],
      [3, 4],
    ]);
    const sameTime = evicting(GlobalWindows.create(), CountTrigger.of(3), TimeEvictor.of(0));
    for (const [v, ts] of [
      [1, 5],
      [2, 7],
      [3, 7],
    ] as const)
      sameTime.processElement(v, ts);
    // the cut-off is inclusive: 7 - 0 takes the newest elements too, and the function sees an empty pane
    assert.deepEqual(values(sameTime), [[]]);
    assert.throws(() => CountEvictor.of(-1), { message: 'CountEvictor needs a count >= 0, got -1' });
    assert.throws(() => CountEvictor.of(Number.NaN), { message: 'CountEvictor needs a count >= 0, got NaN' });
    assert.throws(() => TimeEvictor.of(-5), { message: 'TimeEvictor needs a window size >= 0, got -5' });
  });

  it('reduce and aggregate over the remaining elements', () => {
    const sum = (a: number, b: number) => a + b;
    const r = evicting(
      GlobalWindows.create(),
      CountTrigger.of(2),
      CountEvictor.of(3),
      new ReduceApplyWindowFunction(sum, new PassThroughWindowFunction<number>() as any),
    );
    for (let i = 1; i <= 6; i++) r.processElement(i, i);
    assert.deepEqual(values(r), [3, 9, 15]);

    const avg: AggregateFunction<number, [number, number], number> = {
      createAccumulator: () => [0, 0],
      add: (v, [s, n]) => [s + v, n + 1],
      getResult: ([s, n]) => (n === 0 ? 0 : s / n),
      merge: ([s1, n1], [s2, n2]) => [s1 + s2, n1 + n2],
    };
    // As in Flink, a window whose elements were all evicted still yields a fresh accumulator's result.
    const a = evicting(
      GlobalWindows.create(),
      CountTrigger.of(2),
      CountEvictor.of(0),
      new AggregateApplyWindowFunction(avg, new PassThroughWindowFunction<number>() as any),
    );
    for (let i = 1; i <= 4; i++) a.processElement(i, i);
    assert.deepEqual(values(a), [0, 0]);
  });

  it('works with merging (session) windows and cleans up', () => {
    const h = evicting(EventTimeSessionWindows.withGap(1000), EventTimeTrigger.create(), CountEvictor.of(2));
    for (const ts of [0, 500, 1200, 5000]) h.processElement(ts, ts);
    h.processWatermark(10_000);
    assert.deepEqual(values(h), [[500, 1200], [5000]]);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
  });

  it("works with tumbling windows and cleans up at the window's end", () => {
    // A window's end fires its keys' panes in one loop where the default trigger allows: with an evictor, which
    // writes the pane back after the window function, the pane must still be removed after that.
    const h = evicting(
      TumblingEventTimeWindows.of(1000),
      EventTimeTrigger.create(),
      CountEvictor.of(2, true),
    );
    for (const ts of [0, 500, 700, 1200]) h.processElement(ts, ts);
    h.processWatermark(999);
    assert.equal(h.numKeyedStateEntries(), 1, 'the pane of [1000, 2000)');
    h.processWatermark(10_000);
    assert.deepEqual(values(h), [[0, 500, 700], [1200]]);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
  });

  it('each evictor evicts on its own side of the window function only', () => {
    const pane = () => [1000, 2000, 3000, 4000].map((t) => ({ value: t, timestamp: t }));
    const distance = (a: number, b: number) => Math.abs(a - b);
    const cases: [Evictor<number, Window>, boolean][] = [
      [CountEvictor.of(1), false],
      [CountEvictor.of(1, true), true],
      [TimeEvictor.of(500), false],
      [TimeEvictor.of(500, true), true],
      [DeltaEvictor.of(500, distance), false],
      [DeltaEvictor.of(500, distance, true), true],
    ];
    for (const [evictor, after] of cases) {
      const before = pane();
      evictor.evictBefore(before, before.length, undefined as never, undefined as never);
      const afterwards = pane();
      evictor.evictAfter(afterwards, afterwards.length, undefined as never, undefined as never);
      assert.deepEqual(
        [before.map((e) => e.value), afterwards.map((e) => e.value)],
        after ? [[1000, 2000, 3000, 4000], [4000]] : [[4000], [1000, 2000, 3000, 4000]],
        String(evictor),
      );
    }
  });

  it('an empty pane stays empty', () => {
    for (const evictor of [
      CountEvictor.of(1),
      TimeEvictor.of(500),
      DeltaEvictor.of(500, (a: number, b: number) => Math.abs(a - b)),
    ]) {
      const elements: TimestampedValue<number>[] = [];
      evictor.evictBefore(elements, 0, undefined as never, undefined as never);
      assert.deepEqual(elements, [], String(evictor));
    }
  });

  it('TimeEvictor decides by the first element whether the pane has timestamps, as Flink', () => {
    const evict = (timestamps: number[]) => {
      const elements = timestamps.map((t, i) => ({ value: i, timestamp: t }));
      TimeEvictor.of(1000).evictBefore(elements, elements.length, undefined as never, undefined as never);
      return elements.map((e) => e.value);
    };
    // The first has none: nothing is evicted.
    assert.deepEqual(evict([Number.NaN, 1000, 5000]), [0, 1, 2]);
    // The first has one: the cut-off is 5000 - 1000; an element without a timestamp is never at or before it.
    assert.deepEqual(evict([1000, Number.NaN, 5000]), [1, 2]);
  });

  it('evictors remove in place and keep order', () => {
    const elements: TimestampedValue<number>[] = [1, 2, 3, 4, 5].map((v) => ({ value: v, timestamp: v }));
    TimeEvictor.of(2).evictBefore(elements, elements.length, undefined as never, undefined as never);
    assert.deepEqual(
      elements.map((e) => e.value),
      [4, 5],
    );
  });
});
