// WindowOperator semantics, ported from Flink's WindowOperatorTest with the same inputs and expected outputs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Collector } from '../../core/functions.ts';
import { OutputTag } from '../../core/output-tag.ts';
import { ListStateDescriptor, ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import { MAX_WATERMARK } from '../../core/time-domain.ts';
import { DynamicEventTimeSessionWindows } from '../assigners/dynamic-event-time-session-windows.ts';
import { DynamicProcessingTimeSessionWindows } from '../assigners/dynamic-processing-time-session-windows.ts';
import { EventTimeSessionWindows } from '../assigners/event-time-session-windows.ts';
import { GlobalWindows } from '../assigners/global-windows.ts';
import { ProcessingTimeSessionWindows } from '../assigners/processing-time-session-windows.ts';
import { SlidingEventTimeWindows } from '../assigners/sliding-event-time-windows.ts';
import { SlidingProcessingTimeWindows } from '../assigners/sliding-processing-time-windows.ts';
import { TumblingEventTimeWindows } from '../assigners/tumbling-event-time-windows.ts';
import { TumblingProcessingTimeWindows } from '../assigners/tumbling-processing-time-windows.ts';
import type { GlobalWindow } from '../global-window.ts';
import type { ProcessWindowFunction } from '../process-window-function.ts';
import { assertOutputEqualsSorted, record, watermark } from '../../../test/support/assert-output.ts';
import {
  KeyedOperatorHarness,
  type HarnessBackendFactory,
  type HarnessOutput,
  type HarnessSnapshot,
} from '../../../test/support/keyed-operator-harness.ts';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import { TimeWindow } from '../time-window.ts';
import { Trigger, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import { ContinuousEventTimeTrigger } from '../triggers/continuous-event-time-trigger.ts';
import { CountTrigger } from '../triggers/count-trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { ProcessingTimeTrigger } from '../triggers/processing-time-trigger.ts';
import { PurgingTrigger } from '../triggers/purging-trigger.ts';
import type { WindowAssigner, WindowAssignerContext } from '../window-assigner.ts';
import type { Window } from '../window.ts';
import {
  IterableProcessWindowFunction,
  IterableWindowFunction,
  PassThroughWindowFunction,
  SingleValueProcessWindowFunction,
  SingleValueWindowFunction,
  type InternalWindowFunction,
} from './internal-window-function.ts';
import { WindowOperator, type WindowStateDescriptor } from './window-operator.ts';

type T2 = [string, number];
type T3 = [string, number, number];
const key = (t: T2): string => t[0];
const sumReducer = (a: T2, b: T2): T2 => [b[0], a[1] + b[1]];
const lateTag = new OutputTag<T2>('late-output');

interface OpSpec<ACC, OUT, W extends Window> {
  assigner: WindowAssigner<any, W>;
  state: WindowStateDescriptor<T2, ACC>;
  fn: InternalWindowFunction<ACC, OUT, string, W>;
  trigger: Trigger<any, W>;
  lateness?: number;
  lateTag?: OutputTag<T2>;
}

/** Builds a factory like Flink's `new WindowOperatorFactory(assigner, ..., stateDesc, fn, trigger, lateness, tag)`. */
function operator<ACC, OUT, W extends Window>(
  spec: OpSpec<ACC, OUT, W>,
): () => WindowOperator<string, T2, ACC, OUT, W> {
  return () =>
    new WindowOperator<string, T2, ACC, OUT, W>({
      assigner: spec.assigner,
      trigger: spec.trigger,
      windowStateDescriptor: spec.state,
      windowFunction: spec.fn,
      allowedLateness: spec.lateness ?? 0,
      lateDataOutputTag: spec.lateTag,
    });
}

function harness<OUT>(create: () => WindowOperator<string, T2, any, OUT, any>, restore?: HarnessSnapshot) {
  return new KeyedOperatorHarness<T2, OUT>(create, key, restore ? { restore } : {});
}

const reducing = () => new ReducingStateDescriptor<T2>('window-contents', sumReducer);
const listing = () => new ListStateDescriptor<T2>('window-contents');
const passThrough = () => new PassThroughWindowFunction<T2>() as InternalWindowFunction<T2, T2, string, any>;

/** Flink's RichSumReducer (a WindowFunction): the key and the sum of the values. */
const sumApply = <W extends Window>() =>
  new IterableWindowFunction<T2, T2, string, W>((k, _w, input, out) => {
    let sum = 0;
    for (const t of input) sum += t[1];
    out.collect([k, sum]);
  });

/** Flink's SessionWindowFunction: "key-sum" with the window bounds. */
const sessionApply = () =>
  new IterableWindowFunction<T2, T3, string, TimeWindow>((k, w, values, out) => {
    let sum = 0;
    for (const t of values) sum += t[1];
    out.collect([`${k}-${sum}`, w.start, w.end]);
  });

/** Flink's ReducedSessionWindowFunction: one "key-value" per (pre-reduced) value. */
const reducedSessionApply = () =>
  new SingleValueWindowFunction<T2, T3, string, TimeWindow>((k, w, values, out) => {
    for (const v of values) out.collect([`${k}-${v[1]}`, w.start, w.end]);
  });

const sessionProcess: ProcessWindowFunction<T2, T3, string, TimeWindow> = {
  process(k, ctx, values, out: Collector<T3>) {
    let sum = 0;
    for (const t of values) sum += t[1];
    out.collect([`${k}-${sum}`, ctx.window.start, ctx.window.end]);
  },
};

const reducedSessionProcess: ProcessWindowFunction<T2, T3, string, TimeWindow> = {
  process(k, ctx, values, out) {
    for (const v of values) out.collect([`${k}-${v[1]}`, ctx.window.start, ctx.window.end]);
  },
};

function feed(h: KeyedOperatorHarness<T2, unknown>, elements: [string, number, number][]): void {
  for (const [k, v, ts] of elements) h.processElement([k, v], ts);
}

/** Flink's testSlidingEventTimeWindows, shared by the reduce and apply variants. */
function slidingEventTimeWindows(create: () => WindowOperator<string, T2, any, T2, any>): void {
  let h = harness(create);
  const expected: HarnessOutput<T2>[] = [];
  feed(h, [
    ['key2', 1, 3999],
    ['key2', 1, 3000],
    ['key1', 1, 20],
    ['key1', 1, 0],
    ['key1', 1, 999],
    ['key2', 1, 1998],
    ['key2', 1, 1999],
    ['key2', 1, 1000],
  ]);

  h.processWatermark(999);
  expected.push(record(['key1', 3], 999), watermark(999));
  assertOutputEqualsSorted(h.output, expected);

  h.processWatermark(1999);
  expected.push(record(['key1', 3], 1999), record(['key2', 3], 1999), watermark(1999));
  assertOutputEqualsSorted(h.output, expected);

  h.processWatermark(2999);
  expected.push(record(['key1', 3], 2999), record(['key2', 3], 2999), watermark(2999));
  assertOutputEqualsSorted(h.output, expected);

  const snapshot = h.snapshot();
  h.close();
  expected.length = 0;
  h = harness(create, snapshot);

  h.processWatermark(3999);
  expected.push(record(['key2', 5], 3999), watermark(3999));
  assertOutputEqualsSorted(h.output, expected);

  h.processWatermark(4999);
  expected.push(record(['key2', 2], 4999), watermark(4999));
  h.processWatermark(5999);
  expected.push(record(['key2', 2], 5999), watermark(5999));
  h.processWatermark(6999);
  h.processWatermark(7999);
  expected.push(watermark(6999), watermark(7999));
  assertOutputEqualsSorted(h.output, expected);
  // Everything expired: no state and no timers are left behind.
  assert.equal(h.numKeyedStateEntries(), 0);
  assert.equal(h.numEventTimeTimers(), 0);
  h.close();
}

function tumblingEventTimeWindows(create: () => WindowOperator<string, T2, any, T2, any>): void {
  let h = harness(create);
  const expected: HarnessOutput<T2>[] = [];
  feed(h, [
    ['key2', 1, 3999],
    ['key2', 1, 3000],
    ['key1', 1, 20],
    ['key1', 1, 0],
    ['key1', 1, 999],
    ['key2', 1, 1998],
    ['key2', 1, 1999],
    ['key2', 1, 1000],
  ]);
  h.processWatermark(999);
  expected.push(watermark(999));
  h.processWatermark(1999);
  expected.push(watermark(1999));
  assertOutputEqualsSorted(h.output, expected);

  const snapshot = h.snapshot();
  h.close();
  expected.length = 0;
  h = harness(create, snapshot);

  h.processWatermark(2999);
  expected.push(record(['key1', 3], 2999), record(['key2', 3], 2999), watermark(2999));
  h.processWatermark(3999);
  expected.push(watermark(3999));
  h.processWatermark(4999);
  expected.push(watermark(4999));
  h.processWatermark(5999);
  expected.push(record(['key2', 2], 5999), watermark(5999));
  h.processWatermark(6999);
  h.processWatermark(7999);
  expected.push(watermark(6999), watermark(7999));
  assertOutputEqualsSorted(h.output, expected);
  assert.equal(h.numKeyedStateEntries(), 0);
  assert.equal(h.numEventTimeTimers(), 0);
  h.close();
}

describe('WindowOperator (Flink WindowOperatorTest)', () => {
  it('testSlidingEventTimeWindowsReduce', () => {
    slidingEventTimeWindows(
      operator({
        assigner: SlidingEventTimeWindows.of(3000, 1000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
      }),
    );
  });

  it('testSlidingEventTimeWindowsApply', () => {
    slidingEventTimeWindows(
      operator({
        assigner: SlidingEventTimeWindows.of(3000, 1000),
        state: listing(),
        fn: sumApply(),
        trigger: EventTimeTrigger.create(),
      }),
    );
  });

  it('testTumblingEventTimeWindowsReduce', () => {
    tumblingEventTimeWindows(
      operator({
        assigner: TumblingEventTimeWindows.of(3000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
      }),
    );
  });

  it('testTumblingEventTimeWindowsApply', () => {
    tumblingEventTimeWindows(
      operator({
        assigner: TumblingEventTimeWindows.of(3000),
        state: listing(),
        fn: sumApply(),
        trigger: EventTimeTrigger.create(),
      }),
    );
  });

  const sessionCases: [string, () => WindowOperator<string, T2, any, T3, any>, boolean][] = [
    [
      'testSessionWindows',
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: listing(),
        fn: sessionApply(),
        trigger: EventTimeTrigger.create(),
      }),
      false,
    ],
    [
      'testSessionWindowsWithProcessFunction',
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: listing(),
        fn: new IterableProcessWindowFunction(sessionProcess),
        trigger: EventTimeTrigger.create(),
      }),
      false,
    ],
    [
      'testReduceSessionWindows',
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: EventTimeTrigger.create(),
      }),
      true,
    ],
    [
      'testReduceSessionWindowsWithProcessFunction',
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: new SingleValueProcessWindowFunction(reducedSessionProcess),
        trigger: EventTimeTrigger.create(),
      }),
      true,
    ],
  ];
  for (const [name, create, key1AfterRestore] of sessionCases) {
    it(name, () => {
      let h = harness(create);
      const expected: HarnessOutput<T3>[] = [];
      feed(h, [
        ['key2', 1, 0],
        ['key2', 2, 1000],
        ['key2', 3, 2500],
      ]);
      if (!key1AfterRestore)
        feed(h, [
          ['key1', 1, 10],
          ['key1', 2, 1000],
        ]);
      const snapshot = h.snapshot();
      assertOutputEqualsSorted(h.output, expected);
      h.close();
      h = harness(create, snapshot);
      if (key1AfterRestore)
        feed(h, [
          ['key1', 1, 10],
          ['key1', 2, 1000],
        ]);
      feed(h, [
        ['key1', 3, 2500],
        ['key2', 4, 5501],
        ['key2', 5, 6000],
        ['key2', 5, 6000],
        ['key2', 6, 6050],
      ]);
      h.processWatermark(12000);
      expected.push(
        record(['key1-6', 10, 5500], 5499),
        record(['key2-6', 0, 5500], 5499),
        record(['key2-20', 5501, 9050], 9049),
        watermark(12000),
      );
      feed(h, [
        ['key2', 10, 15000],
        ['key2', 20, 15000],
      ]);
      h.processWatermark(17999);
      expected.push(record(['key2-30', 15000, 18000], 17999), watermark(17999));
      assertOutputEqualsSorted(h.output, expected);
      assert.equal(h.numKeyedStateEntries(), 0, 'sessions and the merging window set are cleaned up');
      assert.equal(h.numEventTimeTimers(), 0);
      h.close();
    });
  }

  it('testSessionWindowsWithCountTrigger', () => {
    const create = operator({
      assigner: EventTimeSessionWindows.withGap(3000),
      state: listing(),
      fn: sessionApply(),
      trigger: PurgingTrigger.of(CountTrigger.of(4)),
    });
    let h = harness(create);
    feed(h, [
      ['key2', 1, 0],
      ['key2', 2, 1000],
      ['key2', 3, 2500],
      ['key2', 4, 3500],
      ['key1', 1, 10],
      ['key1', 2, 1000],
    ]);
    const snapshot = h.snapshot();
    h.close();
    assertOutputEqualsSorted(h.output, [record(['key2-10', 0, 6500], 6499)]);

    h = harness(create, snapshot);
    feed(h, [
      ['key1', 3, 2500],
      ['key1', 1, 6000],
      ['key1', 2, 6500],
      ['key1', 3, 7000],
    ]);
    assertOutputEqualsSorted(h.output, []);
    // This merges the two "key1" sessions: they now count 6 and fire.
    h.processElement(['key1', 10], 4500);
    assertOutputEqualsSorted(h.output, [record(['key1-22', 10, 10000], 9999)]);
    h.close();
  });

  it('testSessionWindowsWithContinuousEventTimeTrigger', () => {
    const create = operator({
      assigner: EventTimeSessionWindows.withGap(3000),
      state: listing(),
      fn: sessionApply(),
      trigger: ContinuousEventTimeTrigger.of(2000),
    });
    let h = harness(create);
    const expected: HarnessOutput<T3>[] = [];
    // Out of order; the first trigger time is 2000.
    feed(h, [
      ['key1', 1, 1500],
      ['key2', 1, 0],
      ['key2', 3, 2500],
      ['key2', 2, 1000],
    ]);
    // Fires, and the next trigger time is 4000.
    h.processWatermark(2500);
    expected.push(record(['key1-1', 1500, 4500], 4499), record(['key2-6', 0, 5500], 5499), watermark(2500));
    h.processElement(['key2', 5], 4000);
    h.processWatermark(3000);
    expected.push(watermark(3000));
    const snapshot = h.snapshot();
    assertOutputEqualsSorted(h.output, expected);
    h.close();

    expected.length = 0;
    h = harness(create, snapshot);
    feed(h, [
      ['key1', 2, 4000],
      ['key2', 4, 3500],
    ]);
    // Fires, and the next trigger time is 6000.
    h.processWatermark(4000);
    expected.push(record(['key1-3', 1500, 7000], 6999), record(['key2-15', 0, 7000], 6999), watermark(4000));
    assertOutputEqualsSorted(h.output, expected);
    h.close();
  });

  it('testPointSessions', () => {
    /** Flink's PointSessionWindows: elements with value 33 get a point window [ts, ts]. */
    class PointSessionWindows extends EventTimeSessionWindows {
      constructor() {
        super(3000);
      }
      override assignWindows(
        element: unknown,
        timestamp: number,
        _ctx: WindowAssignerContext,
      ): readonly TimeWindow[] {
        if ((element as T2)[1] === 33) return [new TimeWindow(timestamp, timestamp)];
        return [new TimeWindow(timestamp, timestamp + this.sessionTimeout)];
      }
    }
    const create = operator({
      assigner: new PointSessionWindows(),
      state: listing(),
      fn: sessionApply(),
      trigger: EventTimeTrigger.create(),
    });
    let h = harness(create);
    feed(h, [
      ['key2', 1, 0],
      ['key2', 33, 1000],
    ]);
    const snapshot = h.snapshot();
    h.close();
    h = harness(create, snapshot);
    feed(h, [
      ['key2', 33, 2500],
      ['key1', 1, 10],
      ['key1', 2, 1000],
      ['key1', 33, 2500],
    ]);
    h.processWatermark(12000);
    assertOutputEqualsSorted(h.output, [
      record(['key1-36', 10, 4000], 3999),
      record(['key2-67', 0, 3000], 2999),
      watermark(12000),
    ]);
    h.close();
  });

  it('testContinuousWatermarkTrigger (global windows)', () => {
    const create = operator<T2, T2, GlobalWindow>({
      assigner: GlobalWindows.create(),
      state: reducing(),
      fn: passThrough(),
      trigger: ContinuousEventTimeTrigger.of(3000),
    });
    const h = harness(create);
    const expected: HarnessOutput<T2>[] = [];
    h.processElement(['key1', 1], 0);
    feed(h, [
      ['key2', 1, 3000],
      ['key2', 1, 3999],
      ['key1', 1, 20],
      ['key1', 1, 999],
      ['key2', 1, 1998],
      ['key2', 1, 1999],
      ['key2', 1, 1000],
    ]);
    h.processWatermark(1000);
    expected.push(watermark(1000));
    h.processWatermark(2000);
    expected.push(watermark(2000));
    assertOutputEqualsSorted(h.output, expected);
    h.processWatermark(3000);
    expected.push(record(['key1', 3], MAX_WATERMARK), watermark(3000));
    h.processWatermark(4000);
    expected.push(watermark(4000));
    h.processWatermark(5000);
    expected.push(watermark(5000));
    assertOutputEqualsSorted(h.output, expected);
    h.processWatermark(6000);
    expected.push(record(['key1', 3], MAX_WATERMARK), record(['key2', 5], MAX_WATERMARK), watermark(6000));
    h.processWatermark(7000);
    h.processWatermark(8000);
    expected.push(watermark(7000), watermark(8000));
    assertOutputEqualsSorted(h.output, expected);
    h.close();
  });

  it('testCountTrigger (global windows, restore)', () => {
    const create = operator<T2, T2, GlobalWindow>({
      assigner: GlobalWindows.create(),
      state: reducing(),
      fn: passThrough(),
      trigger: PurgingTrigger.of(CountTrigger.of(4)),
    });
    let h = harness(create);
    feed(h, [
      ['key2', 1, 3000],
      ['key2', 1, 3999],
      ['key1', 1, 20],
      ['key1', 1, 0],
      ['key1', 1, 999],
      ['key2', 1, 1998],
      ['key2', 1, 1999],
    ]);
    const snapshot = h.snapshot();
    h.close();
    const before = h.output;
    h = harness(create, snapshot);
    h.processElement(['key2', 1], 1000);
    assertOutputEqualsSorted([...before, ...h.output], [record(['key2', 4], MAX_WATERMARK)]);
    feed(h, [
      ['key1', 1, 10999],
      ['key2', 1, 1000],
      ['key2', 1, 1000],
      ['key2', 1, 1000],
    ]);
    assertOutputEqualsSorted(
      [...before, ...h.output],
      [
        record(['key2', 4], MAX_WATERMARK),
        record(['key1', 4], MAX_WATERMARK),
        record(['key2', 4], MAX_WATERMARK),
      ],
    );
    h.close();
  });

  it('testEndOfStreamTrigger', () => {
    const assigner = GlobalWindows.createWithEndOfStreamTrigger();
    const h = harness(
      operator<T2, T2, GlobalWindow>({
        assigner,
        state: reducing(),
        fn: passThrough(),
        trigger: assigner.getDefaultTrigger(),
      }),
    );
    feed(h, [
      ['key2', 1, 3000],
      ['key2', 1, 3999],
      ['key1', 1, 20],
      ['key1', 1, 0],
      ['key1', 1, 999],
      ['key2', 1, 1998],
      ['key2', 1, 1999],
      ['key2', 1, 1000],
    ]);
    assertOutputEqualsSorted(h.output, []);
    h.processWatermark(MAX_WATERMARK);
    assertOutputEqualsSorted(h.output, [
      record(['key1', 3], MAX_WATERMARK),
      record(['key2', 5], MAX_WATERMARK),
      watermark(MAX_WATERMARK),
    ]);
    h.close();
  });

  it('testProcessingTimeTumblingWindows', () => {
    const h = harness(
      operator({
        assigner: TumblingProcessingTimeWindows.of(3000),
        state: reducing(),
        fn: passThrough(),
        trigger: ProcessingTimeTrigger.create(),
      }),
    );
    const expected: HarnessOutput<T2>[] = [];
    h.setProcessingTime(3);
    // Timestamps are ignored in processing time.
    feed(h, [
      ['key2', 1, Number.MAX_SAFE_INTEGER],
      ['key2', 1, 7000],
      ['key2', 1, 7000],
      ['key1', 1, 7000],
      ['key1', 1, 7000],
    ]);
    h.setProcessingTime(5000);
    expected.push(record(['key2', 3], 2999), record(['key1', 2], 2999));
    assertOutputEqualsSorted(h.output, expected);
    feed(h, [
      ['key1', 1, 7000],
      ['key1', 1, 7000],
      ['key1', 1, 7000],
    ]);
    h.setProcessingTime(7000);
    expected.push(record(['key1', 3], 5999));
    assertOutputEqualsSorted(h.output, expected);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
    h.close();
  });

  it('testProcessingTimeSlidingWindows', () => {
    const h = harness(
      operator({
        assigner: SlidingProcessingTimeWindows.of(3000, 1000),
        state: reducing(),
        fn: passThrough(),
        trigger: ProcessingTimeTrigger.create(),
      }),
    );
    const expected: HarnessOutput<T2>[] = [];
    h.setProcessingTime(3);
    h.processElement(['key2', 1], 0);
    h.setProcessingTime(1000);
    expected.push(record(['key2', 1], 999));
    assertOutputEqualsSorted(h.output, expected);
    feed(h, [
      ['key2', 1, 0],
      ['key2', 1, 0],
    ]);
    h.setProcessingTime(2000);
    expected.push(record(['key2', 3], 1999));
    assertOutputEqualsSorted(h.output, expected);
    feed(h, [
      ['key1', 1, 0],
      ['key1', 1, 0],
    ]);
    h.setProcessingTime(3000);
    expected.push(record(['key2', 3], 2999), record(['key1', 2], 2999));
    assertOutputEqualsSorted(h.output, expected);
    feed(h, [
      ['key1', 1, 0],
      ['key1', 1, 0],
      ['key1', 1, 0],
    ]);
    h.setProcessingTime(7000);
    expected.push(
      record(['key2', 2], 3999),
      record(['key1', 5], 3999),
      record(['key1', 5], 4999),
      record(['key1', 3], 5999),
    );
    assertOutputEqualsSorted(h.output, expected);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
    h.close();
  });

  it('testProcessingTimeSessionWindows', () => {
    const h = harness(
      operator({
        assigner: ProcessingTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: passThrough(),
        trigger: ProcessingTimeTrigger.create(),
      }),
    );
    const expected: HarnessOutput<T2>[] = [];
    h.setProcessingTime(3);
    h.processElement(['key2', 1], 1);
    h.setProcessingTime(1000);
    h.processElement(['key2', 1], 1002);
    h.setProcessingTime(5000);
    expected.push(record(['key2', 2], 3999));
    assertOutputEqualsSorted(h.output, expected);
    feed(h, [
      ['key2', 1, 5000],
      ['key2', 1, 5000],
      ['key1', 1, 5000],
      ['key1', 1, 5000],
      ['key1', 1, 5000],
    ]);
    h.setProcessingTime(10000);
    expected.push(record(['key2', 2], 7999), record(['key1', 3], 7999));
    assertOutputEqualsSorted(h.output, expected);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
    h.close();
  });

  const gapExtractor = (t: T2): number =>
    t[0] === 'key1' ? 3000 : t[0] === 'key2' ? (t[1] === 10 ? 1000 : 2000) : 0;

  it('testDynamicEventTimeSessionWindows', () => {
    const h = harness(
      operator({
        assigner: DynamicEventTimeSessionWindows.withDynamicGap(gapExtractor),
        state: listing(),
        fn: sessionApply(),
        trigger: EventTimeTrigger.create(),
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    // Different gaps for different keys.
    feed(h, [
      ['key1', 3, 10],
      ['key2', 4, 5000],
      ['key2', 5, 6000],
    ]);
    h.processWatermark(8999);
    expected.push(record(['key1-3', 10, 3010], 3009), record(['key2-9', 5000, 8000], 7999), watermark(8999));
    // A gap that produces an end before the current session end: the furthest end is kept.
    feed(h, [
      ['key2', 1, 9000],
      ['key2', 2, 10000],
      ['key2', 10, 10500],
    ]);
    h.processWatermark(12999);
    expected.push(record(['key2-13', 9000, 12000], 11999), watermark(12999));
    // A gap that produces an end after the current session end.
    feed(h, [
      ['key2', 10, 13000],
      ['key2', 10, 13500],
      ['key2', 1, 14000],
    ]);
    h.processWatermark(16999);
    expected.push(record(['key2-21', 13000, 16000], 15999), watermark(16999));
    assertOutputEqualsSorted(h.output, expected);
    h.close();
  });

  it('testDynamicProcessingTimeSessionWindows', () => {
    const h = harness(
      operator({
        assigner: DynamicProcessingTimeSessionWindows.withDynamicGap(gapExtractor),
        state: listing(),
        fn: sessionApply(),
        trigger: ProcessingTimeTrigger.create(),
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    h.setProcessingTime(10);
    h.processElement(['key1', 3], 10);
    h.setProcessingTime(5000);
    h.processElement(['key2', 4], 5000);
    h.setProcessingTime(6000);
    h.processElement(['key2', 5], 6000);
    h.setProcessingTime(8999);
    expected.push(record(['key1-3', 10, 3010], 3009), record(['key2-9', 5000, 8000], 7999));
    h.setProcessingTime(9000);
    h.processElement(['key2', 1], 9000);
    h.setProcessingTime(10000);
    h.processElement(['key2', 2], 10000);
    h.setProcessingTime(10500);
    h.processElement(['key2', 10], 10500);
    h.setProcessingTime(10500);
    expected.push(record(['key2-13', 9000, 12000], 11999));
    h.setProcessingTime(13000);
    h.processElement(['key2', 10], 13000);
    h.setProcessingTime(13500);
    h.processElement(['key2', 10], 13500);
    h.setProcessingTime(14000);
    h.processElement(['key2', 1], 14000);
    h.setProcessingTime(16999);
    expected.push(record(['key2-21', 13000, 16000], 15999));
    assertOutputEqualsSorted(h.output, expected);
    h.close();
  });

  it('testLateness', () => {
    const h = harness(
      operator({
        assigner: TumblingEventTimeWindows.of(2000),
        state: reducing(),
        fn: passThrough(),
        trigger: PurgingTrigger.of(EventTimeTrigger.create()),
        lateness: 500,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T2>[] = [];
    h.processElement(['key2', 1], 500);
    h.processWatermark(1500);
    expected.push(watermark(1500));
    h.processElement(['key2', 1], 1300);
    h.processWatermark(2300);
    expected.push(record(['key2', 2], 1999), watermark(2300));
    // Not late: window.maxTimestamp() + allowedLateness > currentWatermark.
    h.processElement(['key2', 1], 1997);
    h.processWatermark(6000);
    // 1 and not 3: the trigger fired and purged.
    expected.push(record(['key2', 1], 1999), watermark(6000));
    // Late: window.maxTimestamp() + allowedLateness < currentWatermark.
    h.processElement(['key2', 1], 1998);
    h.processWatermark(7000);
    expected.push(watermark(7000));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), [{ value: ['key2', 1], timestamp: 1998 }]);
    h.close();
  });

  it('a late firing is emitted from processElement when an element arrives within the allowed lateness', () => {
    const h = harness(
      operator({
        assigner: TumblingEventTimeWindows.of(1000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
        lateness: 1000,
        lateTag,
      }),
    );
    h.processWatermark(999);
    // [0, 1000) is behind the watermark but kept until 999 + 1000: the trigger fires on the element at once.
    h.processElement(['key2', 1], 500);
    h.processElement(['key2', 1], 600);
    assert.deepEqual(h.output, [watermark(999), record(['key2', 1], 999), record(['key2', 2], 999)]);
    h.processWatermark(1999);
    // The window is gone at 1999: an element of it is late and goes to the side output.
    h.processElement(['key2', 1], 700);
    assert.deepEqual(h.output.slice(3), [watermark(1999)]);
    assert.deepEqual(h.sideOutput(lateTag), [{ value: ['key2', 1], timestamp: 700 }]);
    h.close();
  });

  it('with zero lateness, an element exactly at the watermark (its window ended there) goes to the late output', () => {
    const h = harness(
      operator({
        assigner: TumblingEventTimeWindows.of(1000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
        lateness: 0,
        lateTag,
      }),
    );
    h.processWatermark(999);
    h.processElement(['key2', 1], 999);
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1999);
    assert.deepEqual(h.output, [watermark(999), record(['key2', 1], 1999), watermark(1999)]);
    assert.deepEqual(h.sideOutput(lateTag), [{ value: ['key2', 1], timestamp: 999 }]);
    assert.equal(h.numKeyedStateEntries(), 0);
    h.close();
  });

  it('testSideOutputDueToLatenessTumbling', () => {
    const h = harness(
      operator({
        assigner: TumblingEventTimeWindows.of(2000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
        lateness: 0,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T2>[] = [];
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1985);
    expected.push(watermark(1985));
    h.processElement(['key2', 1], 1980);
    h.processWatermark(1999);
    expected.push(record(['key2', 2], 1999), watermark(1999));
    // Late: goes to the side output with its own timestamp.
    h.processElement(['key2', 1], 1998);
    h.processElement(['key2', 1], 2001);
    h.processWatermark(2999);
    expected.push(watermark(2999));
    h.processWatermark(3999);
    expected.push(record(['key2', 1], 3999), watermark(3999));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), [{ value: ['key2', 1], timestamp: 1998 }]);
    h.close();
  });

  it('testSideOutputDueToLatenessSliding', () => {
    const h = harness(
      operator({
        assigner: SlidingEventTimeWindows.of(3000, 1000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
        lateness: 0,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T2>[] = [];
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1999);
    expected.push(record(['key2', 1], 1999), watermark(1999));
    h.processElement(['key2', 1], 2000);
    h.processWatermark(3000);
    expected.push(record(['key2', 2], 2999), watermark(3000));
    h.processElement(['key1', 1], 3001);
    // The 2400 elements go to the windows ending 2999 (already late: dropped), 3999 and 4999 (kept).
    feed(h, [
      ['key2', 1, 2400],
      ['key2', 1, 2400],
      ['key1', 1, 3001],
      ['key2', 1, 3900],
    ]);
    h.processWatermark(6000);
    expected.push(
      record(['key2', 5], 3999),
      record(['key1', 2], 3999),
      record(['key2', 4], 4999),
      record(['key1', 2], 4999),
      record(['key2', 1], 5999),
      record(['key1', 2], 5999),
      watermark(6000),
    );
    h.processElement(['key1', 1], 3001);
    h.processWatermark(25000);
    expected.push(watermark(25000));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), [{ value: ['key1', 1], timestamp: 3001 }]);
    h.close();
  });

  /** The common first part of Flink's session lateness tests (gap 3 s). */
  function sessionLatenessPrefix(h: KeyedOperatorHarness<T2, T3>, expected: HarnessOutput<T3>[]): void {
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1999);
    expected.push(watermark(1999));
    h.processElement(['key2', 1], 2000);
    h.processWatermark(4998);
    expected.push(watermark(4998));
    // Not late: the session it joins ends after the watermark.
    h.processElement(['key2', 1], 4500);
    // A new session.
    h.processElement(['key2', 1], 8500);
    h.processWatermark(7400);
    expected.push(watermark(7400));
    // Merges the two sessions into one.
    h.processElement(['key2', 1], 7000);
    h.processWatermark(11501);
    expected.push(record(['key2-5', 1000, 11500], 11499), watermark(11501));
    // A new session.
    h.processElement(['key2', 1], 11600);
    h.processWatermark(14600);
    expected.push(record(['key2-1', 11600, 14600], 14599), watermark(14600));
  }

  it('testSideOutputDueToLatenessSessionZeroLatenessPurgingTrigger', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: PurgingTrigger.of(EventTimeTrigger.create()),
        lateness: 0,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    sessionLatenessPrefix(h, expected);
    h.processElement(['key2', 1], 10000);
    // Also late: the two late elements must not be merged with each other.
    h.processElement(['key2', 1], 10100);
    h.processElement(['key2', 1], 14500);
    h.processWatermark(20000);
    expected.push(record(['key2-1', 14500, 17500], 17499), watermark(20000));
    h.processWatermark(100000);
    expected.push(watermark(100000));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), [
      { value: ['key2', 1], timestamp: 10000 },
      { value: ['key2', 1], timestamp: 10100 },
    ]);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
    h.close();
  });

  it('testSideOutputDueToLatenessSessionZeroLateness', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: EventTimeTrigger.create(),
        lateness: 0,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    sessionLatenessPrefix(h, expected);
    h.processElement(['key2', 1], 10000);
    h.processElement(['key2', 1], 14500);
    h.processWatermark(20000);
    expected.push(record(['key2-1', 14500, 17500], 17499), watermark(20000));
    h.processWatermark(100000);
    expected.push(watermark(100000));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), [{ value: ['key2', 1], timestamp: 10000 }]);
    h.close();
  });

  it('testDropDueToLatenessSessionWithLatenessPurgingTrigger', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: PurgingTrigger.of(EventTimeTrigger.create()),
        lateness: 10,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    sessionLatenessPrefix(h, expected);
    h.processElement(['key2', 1], 10000);
    expected.push(record(['key2-1', 10000, 14600], 14599));
    h.processElement(['key2', 1], 14500);
    h.processWatermark(20000);
    expected.push(record(['key2-1', 10000, 17500], 17499), watermark(20000));
    h.processWatermark(100000);
    expected.push(watermark(100000));
    assertOutputEqualsSorted(h.output, expected);
    h.close();
  });

  it('testNotSideOutputDueToLatenessSessionWithLateness', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: EventTimeTrigger.create(),
        lateness: 10,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    sessionLatenessPrefix(h, expected);
    // Merged into the session (11600-14600) thanks to the small lateness and the accumulating trigger.
    h.processElement(['key2', 1], 10000);
    h.processElement(['key2', 1], 14500);
    // The session (10000-14600) is already past the watermark, so it fires immediately.
    expected.push(record(['key2-2', 10000, 14600], 14599));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), []);
    h.processWatermark(20000);
    expected.push(record(['key2-3', 10000, 17500], 17499), watermark(20000));
    h.processWatermark(100000);
    expected.push(watermark(100000));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), []);
    h.close();
  });

  it('testNotSideOutputDueToLatenessSessionWithHugeLatenessPurgingTrigger', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: PurgingTrigger.of(EventTimeTrigger.create()),
        lateness: 10000,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    sessionLatenessPrefix(h, expected);
    h.processElement(['key2', 1], 10000);
    expected.push(record(['key2-1', 1000, 14600], 14599));
    assertOutputEqualsSorted(h.output, expected);
    h.processElement(['key2', 1], 14500);
    h.processWatermark(20000);
    expected.push(record(['key2-1', 1000, 17500], 17499), watermark(20000));
    h.processWatermark(100000);
    expected.push(watermark(100000));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), []);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
    h.close();
  });

  it('testNotSideOutputDueToLatenessSessionWithHugeLateness', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: EventTimeTrigger.create(),
        lateness: 10000,
        lateTag,
      }),
    );
    const expected: HarnessOutput<T3>[] = [];
    sessionLatenessPrefix(h, expected);
    h.processElement(['key2', 1], 10000);
    // The merged session's max timestamp is already behind the watermark: it fires at once.
    expected.push(record(['key2-7', 1000, 14600], 14599));
    assertOutputEqualsSorted(h.output, expected);
    h.processElement(['key2', 1], 14500);
    h.processWatermark(20000);
    expected.push(record(['key2-8', 1000, 17500], 17499), watermark(20000));
    h.processWatermark(100000);
    expected.push(watermark(100000));
    assertOutputEqualsSorted(h.output, expected);
    assert.deepEqual(h.sideOutput(lateTag), []);
    h.close();
  });

  const passThroughList = () =>
    new IterableWindowFunction<T2, T2, string, TimeWindow>((_k, _w, input, out) => {
      for (const t of input) out.collect(t);
    });

  it('testCleanupTimerWithEmptyListStateForTumblingWindows', () => {
    const h = harness(
      operator({
        assigner: TumblingEventTimeWindows.of(2000),
        state: listing(),
        fn: passThroughList(),
        trigger: EventTimeTrigger.create(),
        lateness: 1,
      }),
    );
    h.processElement(['key2', 1], 1000);
    for (const wm of [1599, 1999, 2000, 5000]) h.processWatermark(wm);
    assertOutputEqualsSorted(h.output, [
      watermark(1599),
      record(['key2', 1], 1999),
      watermark(1999),
      watermark(2000),
      watermark(5000),
    ]);
    assert.equal(h.numKeyedStateEntries(), 0);
    h.close();
  });

  it('testCleanupTimerWithEmptyReduceStateForTumblingWindows', () => {
    const h = harness(
      operator({
        assigner: TumblingEventTimeWindows.of(2000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
        lateness: 1,
      }),
    );
    h.processElement(['key2', 1], 1000);
    for (const wm of [1599, 1999, 2000, 5000]) h.processWatermark(wm);
    assertOutputEqualsSorted(h.output, [
      watermark(1599),
      record(['key2', 1], 1999),
      watermark(1999),
      watermark(2000),
      watermark(5000),
    ]);
    h.close();
  });

  it('testCleanupTimerWithEmptyListStateForSessionWindows', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: listing(),
        fn: passThroughList(),
        trigger: EventTimeTrigger.create(),
        lateness: 10,
      }),
    );
    h.processElement(['key2', 1], 1000);
    h.processWatermark(4998);
    h.processWatermark(14600);
    assertOutputEqualsSorted(h.output, [record(['key2', 1], 3999), watermark(4998), watermark(14600)]);
    assert.equal(h.numKeyedStateEntries(), 0);
    h.close();
  });

  it('testCleanupTimerWithEmptyReduceStateForSessionWindows', () => {
    const h = harness(
      operator({
        assigner: EventTimeSessionWindows.withGap(3000),
        state: reducing(),
        fn: reducedSessionApply(),
        trigger: EventTimeTrigger.create(),
        lateness: 10,
      }),
    );
    h.processElement(['key2', 1], 1000);
    h.processWatermark(4998);
    h.processWatermark(14600);
    assertOutputEqualsSorted(h.output, [
      record(['key2-1', 1000, 4000], 3999),
      watermark(4998),
      watermark(14600),
    ]);
    h.close();
  });
});

/** EventTimeTrigger's behaviour written as a user would, counting onElement calls; `declares` sets the capability. */
class WindowEndTrigger extends Trigger<unknown, TimeWindow> {
  onElementCalls = 0;

  constructor(private readonly declares: boolean) {
    super();
  }

  override firesOnlyAtWindowEnd(): boolean {
    return this.declares;
  }

  onElement(_e: unknown, _t: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
    this.onElementCalls++;
    if (window.maxTimestamp() <= ctx.getCurrentWatermark()) return TriggerResult.FIRE;
    ctx.registerEventTimeTimer(window.maxTimestamp());
    return TriggerResult.CONTINUE;
  }

  onEventTime(time: number, window: TimeWindow): TriggerResult {
    return time === window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
  }

  onProcessingTime(): TriggerResult {
    return TriggerResult.CONTINUE;
  }

  clear(window: TimeWindow, ctx: TriggerContext): void {
    ctx.deleteEventTimeTimer(window.maxTimestamp());
  }
}

describe('WindowOperator: the window-end trigger capability', () => {
  for (const declares of [true, false]) {
    it(`a trigger ${declares ? 'declaring' : 'not declaring'} firesOnlyAtWindowEnd gives Flink's tumbling results`, () => {
      tumblingEventTimeWindows(
        operator({
          assigner: TumblingEventTimeWindows.of(3000),
          state: reducing(),
          fn: passThrough(),
          trigger: new WindowEndTrigger(declares),
        }),
      );
    });
  }

  it('the trigger is skipped for elements joining an existing pane only when it declares the capability', () => {
    const calls: number[] = [];
    for (const declares of [true, false]) {
      const trigger = new WindowEndTrigger(declares);
      const h = harness(
        operator({
          assigner: TumblingEventTimeWindows.of(3000),
          state: reducing(),
          fn: passThrough(),
          trigger,
        }),
      );
      h.processElement(['k', 1], 0);
      h.processElement(['k', 1], 1000);
      h.processElement(['k', 1], 2000);
      h.processElement(['k', 1], 3500);
      h.processWatermark(2999);
      h.processElement(['k', 1], 4000);
      h.processWatermark(5999);
      assertOutputEqualsSorted(h.output, [
        record(['k', 3], 2999),
        watermark(2999),
        record(['k', 2], 5999),
        watermark(5999),
      ]);
      h.close();
      calls.push(trigger.onElementCalls);
    }
    // Declared: never (the operator registers a new pane's timer itself, as the contract describes). Not declared:
    // once per element.
    assert.deepEqual(calls, [0, 5]);
  });
});

describe('WindowOperator: window-end timers as one list of keys per window end', () => {
  const countPerKey = () =>
    operator({
      assigner: TumblingEventTimeWindows.of(1000),
      state: reducing(),
      fn: passThrough(),
      trigger: EventTimeTrigger.create(),
    });
  const windowTimers = (h: KeyedOperatorHarness<T2, unknown>) =>
    h.timers.services.get('window-timers')!.eventTimers as {
      numListed(): number;
      values(): readonly { timestamp: number; key: unknown; namespace: unknown }[];
    };
  const listing = (h: KeyedOperatorHarness<T2, unknown>) =>
    windowTimers(h)
      .values()
      .map((t) => `${String(t.key)}@${t.timestamp} ${String(t.namespace)}`);

  it('keeps one timer per (key, window) in registration order, fires each with its key, and restores', () => {
    let h = harness(countPerKey());
    feed(h, [
      ['c', 1, 10],
      ['a', 1, 20],
      ['c', 1, 30],
      ['b', 1, 999],
      ['b', 1, 1500],
      ['a', 1, 1100],
    ]);
    assert.deepEqual(listing(h), [
      'c@999 TimeWindow{start=0, end=1000}',
      'a@999 TimeWindow{start=0, end=1000}',
      'b@999 TimeWindow{start=0, end=1000}',
      'b@1999 TimeWindow{start=1000, end=2000}',
      'a@1999 TimeWindow{start=1000, end=2000}',
    ]);
    assert.equal(windowTimers(h).numListed(), 5, 'every timer an array slot');
    h.processWatermark(999);
    assert.deepEqual(h.output, [
      record(['c', 2], 999),
      record(['a', 1], 999),
      record(['b', 1], 999),
      watermark(999),
    ]);
    const snapshot = h.snapshot();
    h.close();
    h = harness(countPerKey(), snapshot);
    assert.deepEqual(listing(h), [
      'b@1999 TimeWindow{start=1000, end=2000}',
      'a@1999 TimeWindow{start=1000, end=2000}',
    ]);
    h.processElement(['d', 1], 1200); // a new key joins a restored window end, after its restored keys
    h.processElement(['a', 1], 1300);
    h.processWatermark(1999);
    assert.deepEqual(h.output, [
      record(['b', 1], 1999),
      record(['a', 2], 1999),
      record(['d', 1], 1999),
      watermark(1999),
    ]);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
    h.close();
  });

  it('keeps the timers listed when elements alternate across a window boundary (one window object per start)', () => {
    for (const assigner of [TumblingEventTimeWindows.of(1000), SlidingEventTimeWindows.of(2000, 1000)]) {
      const h = harness(
        operator({ assigner, state: reducing(), fn: passThrough(), trigger: EventTimeTrigger.create() }),
      );
      feed(h, [
        ['a', 1, 900],
        ['b', 1, 1100],
        ['c', 1, 950],
        ['d', 1, 1050],
        ['e', 1, 990],
      ]);
      const timers = windowTimers(h);
      assert.equal(timers.numListed(), timers.values().length, String(assigner));
      assert.equal(timers.numListed(), assigner instanceof TumblingEventTimeWindows ? 5 : 10);
      h.close();
    }
  });

  it('registers through the trigger, de-duplicated, when the pane state cannot say whether it created the pane', () => {
    // The AppendingState contract returns nothing from add: a backend may not know. Only `true` means "new".
    const unknownAdds: HarnessBackendFactory = (maxParallelism, range, clock) => {
      const backend = new HeapKeyedStateBackend(maxParallelism, range, clock, 'window');
      const create = backend.getOrCreateKeyedState.bind(backend);
      backend.getOrCreateKeyedState = ((descriptor, serializer) => {
        const state = create(descriptor, serializer) as unknown as { add(value: unknown): unknown };
        if (descriptor.name === 'window-contents') {
          const add = state.add.bind(state);
          state.add = (value) => void add(value);
        }
        return state;
      }) as typeof backend.getOrCreateKeyedState;
      return backend;
    };
    const h = new KeyedOperatorHarness<T2, T2>(countPerKey(), key, { backend: unknownAdds });
    feed(h, [
      ['a', 1, 10],
      ['a', 1, 20],
      ['b', 1, 30],
    ]);
    assert.deepEqual(listing(h), [
      'a@999 TimeWindow{start=0, end=1000}',
      'b@999 TimeWindow{start=0, end=1000}',
    ]);
    assert.equal(h.numEventTimeTimers(), 2, "a's second registration is a duplicate");
    h.processWatermark(999);
    assert.deepEqual(h.output, [record(['a', 2], 999), record(['b', 1], 999), watermark(999)]);
    h.close();
  });

  it('with allowed lateness lists the cleanup timers too, and a late element still fires at once', () => {
    const h = harness(
      operator({
        assigner: TumblingEventTimeWindows.of(1000),
        state: reducing(),
        fn: passThrough(),
        trigger: EventTimeTrigger.create(),
        lateness: 500,
        lateTag,
      }),
    );
    feed(h, [
      ['a', 1, 100],
      ['b', 1, 200],
      ['a', 1, 300],
    ]);
    assert.deepEqual(listing(h), [
      'a@999 TimeWindow{start=0, end=1000}',
      'b@999 TimeWindow{start=0, end=1000}',
      'a@1499 TimeWindow{start=0, end=1000}',
      'b@1499 TimeWindow{start=0, end=1000}',
    ]);
    assert.equal(windowTimers(h).numListed(), 4);
    h.processWatermark(1200);
    h.processElement(['c', 1], 400); // late, within the lateness: a pane of its own, fired at once
    h.processElement(['a', 1], 500);
    h.processWatermark(1499);
    h.processElement(['a', 1], 600); // past the cleanup time: the late output
    h.processWatermark(2000);
    assert.deepEqual(h.output, [
      record(['a', 2], 999),
      record(['b', 1], 999),
      watermark(1200),
      record(['c', 1], 999),
      record(['a', 3], 999),
      watermark(1499),
      watermark(2000),
    ]);
    assert.deepEqual(h.sideOutputs.get(lateTag.id), [{ value: ['a', 1], timestamp: 600 }]);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
    h.close();
  });
});
