// What a process window function sees of its window: per-window state (refused for sessions), the clock, side outputs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputTag } from '../../core/output-tag.ts';
import {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  ValueStateDescriptor,
} from '../../core/state-descriptor.ts';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import { EventTimeSessionWindows } from '../assigners/event-time-session-windows.ts';
import { TumblingEventTimeWindows } from '../assigners/tumbling-event-time-windows.ts';
import type { ProcessWindowContext, ProcessWindowFunction } from '../process-window-function.ts';
import type { TimeWindow } from '../time-window.ts';
import { CountTrigger } from '../triggers/count-trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import type { WindowAssigner } from '../window-assigner.ts';
import type { Trigger } from '../trigger.ts';
import { IterableProcessWindowFunction } from './internal-window-function.ts';
import { WindowOperator } from './window-operator.ts';

const tag = new OutputTag<string>('notes');

function run(
  assigner: WindowAssigner<any, TimeWindow>,
  trigger: Trigger<any, TimeWindow>,
  fn: (ctx: ProcessWindowContext<TimeWindow>, elements: readonly number[]) => string,
) {
  const process: ProcessWindowFunction<number, string, string, TimeWindow> = {
    process: (_key, ctx, elements, out) => out.collect(fn(ctx, elements)),
  };
  return new KeyedOperatorHarness<number, string>(
    () =>
      new WindowOperator<string, number, readonly number[], string, TimeWindow>({
        assigner,
        trigger,
        windowStateDescriptor: new ListStateDescriptor<number>('window-contents'),
        windowFunction: new IterableProcessWindowFunction(process),
        allowedLateness: 0,
        lateDataOutputTag: undefined,
      }),
    () => 'k',
  );
}

describe('WindowProcessContext', () => {
  it('keeps per-window state apart per window, for every kind of state', () => {
    const firings = new ValueStateDescriptor<number>('firings');
    const seen = new ListStateDescriptor<number>('seen');
    const byValue = new MapStateDescriptor<number, boolean>('by-value');
    const sum = new ReducingStateDescriptor<number>('sum', (a, b) => a + b);
    const count = new AggregatingStateDescriptor<number, number, number>('element-count', {
      createAccumulator: () => 0,
      add: (_v, acc) => acc + 1,
      getResult: (acc) => acc,
      merge: (a, b) => a + b,
    });
    const h = run(TumblingEventTimeWindows.of(100), CountTrigger.of(1), (ctx, elements) => {
      const store = ctx.windowState();
      const n = (store.getState(firings).value() ?? 0) + 1;
      store.getState(firings).update(n);
      store.getListState(seen).add(elements.length);
      store.getMapState(byValue).put(n, true);
      store.getReducingState(sum).add(elements.length);
      store.getAggregatingState(count).add(elements.length);
      return `[${ctx.window.start}) firing ${n}: ${store.getListState(seen).get().join(',')} ${store.getMapState(byValue).size()} ${store.getReducingState(sum).get()} ${store.getAggregatingState(count).get()}`;
    });
    h.processElement(1, 5);
    h.processElement(2, 105);
    h.processElement(3, 12);
    assert.deepEqual(
      h.records().map((r) => r.value),
      ['[0) firing 1: 1 1 1 1', '[100) firing 1: 1 1 1 1', '[0) firing 2: 1,2 2 3 2'],
    );
  });

  it('refuses per-window state for merging windows, naming the operator', () => {
    const h = run(EventTimeSessionWindows.withGap(10), EventTimeTrigger.create(), (ctx) => {
      const store = ctx.windowState();
      const refusals = [
        () => store.getState(new ValueStateDescriptor<number>('v')),
        () => store.getListState(new ListStateDescriptor<number>('l')),
        () => store.getMapState(new MapStateDescriptor<number, number>('m')),
        () => store.getReducingState(new ReducingStateDescriptor<number>('r', (a, b) => a + b)),
        () =>
          store.getAggregatingState(
            new AggregatingStateDescriptor<number, number, number>('a', {
              createAccumulator: () => 0,
              add: (_v, acc) => acc,
              getResult: (acc) => acc,
              merge: (a) => a,
            }),
          ),
      ].map((get) => {
        try {
          get();
          return 'allowed';
        } catch (error) {
          return (error as Error).message;
        }
      });
      return [...new Set(refusals)].join(' | ');
    });
    h.processElement(1, 0);
    h.processWatermark(100);
    assert.deepEqual(
      h.records().map((r) => r.value),
      ["Operator 'window': per-window state is not allowed when using merging windows."],
    );
  });

  it('reads the clock and the watermark, and side outputs carry the window end', () => {
    const h = run(TumblingEventTimeWindows.of(100), EventTimeTrigger.create(), (ctx) => {
      ctx.output(tag, 'note');
      return `${ctx.currentProcessingTime()} ${ctx.currentWatermark()}`;
    });
    h.setProcessingTime(42);
    h.processElement(1, 5);
    h.processWatermark(150);
    assert.deepEqual(
      h.records().map((r) => r.value),
      ['42 150'],
    );
    assert.deepEqual(h.sideOutput(tag), [{ value: 'note', timestamp: 99 }]);
  });
});
