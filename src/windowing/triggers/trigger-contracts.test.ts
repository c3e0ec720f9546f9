// What each built-in trigger answers outside its own work: argument checks, merging support, the other time domain.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GlobalWindows } from '../assigners/global-windows.ts';
import { GlobalWindow } from '../global-window.ts';
import { TimeWindow } from '../time-window.ts';
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { timeWindowSerializer } from '../time-window.ts';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  ValueStateDescriptor,
} from '../../core/state-descriptor.ts';
import { TriggerResult } from '../trigger-result.ts';
import { ContinuousEventTimeTrigger } from './continuous-event-time-trigger.ts';
import { ContinuousProcessingTimeTrigger } from './continuous-processing-time-trigger.ts';
import { CountTrigger } from './count-trigger.ts';
import { DeltaTrigger } from './delta-trigger.ts';
import { EventTimeTrigger } from './event-time-trigger.ts';
import { ProcessingTimeTrigger } from './processing-time-trigger.ts';
import { ProcessingTimeoutTrigger } from './processing-timeout-trigger.ts';

/** These calls read no state and set no timers: a context that fails if touched. */
const untouched = new Proxy({} as TriggerContext, {
  get: (_t, name) => {
    throw new Error(`the trigger used its context (${String(name)})`);
  },
});
const window = new TimeWindow(0, 1000);

describe('trigger contracts', () => {
  it('refuses intervals, counts and timeouts that are not positive', () => {
    assert.throws(() => ContinuousEventTimeTrigger.of(0), {
      message: 'ContinuousEventTimeTrigger needs a positive interval, got 0',
    });
    assert.throws(() => ContinuousProcessingTimeTrigger.of(-1), {
      message: 'ContinuousProcessingTimeTrigger needs a positive interval, got -1',
    });
    assert.throws(() => ContinuousProcessingTimeTrigger.of(0), {
      message: 'ContinuousProcessingTimeTrigger needs a positive interval, got 0',
    });
    assert.throws(() => ProcessingTimeoutTrigger.of(CountTrigger.of(1), 0), {
      message: 'ProcessingTimeoutTrigger needs a positive timeout, got 0',
    });
    assert.throws(() => CountTrigger.of(0), { message: 'CountTrigger needs a positive count, got 0' });
    assert.throws(() => ProcessingTimeoutTrigger.of(CountTrigger.of(1), Number.NaN), {
      message: 'ProcessingTimeoutTrigger needs a positive timeout, got NaN',
    });
    // the smallest valid values
    assert.equal(String(ContinuousEventTimeTrigger.of(1)), 'ContinuousEventTimeTrigger(1)');
    assert.equal(String(ContinuousProcessingTimeTrigger.of(1)), 'ContinuousProcessingTimeTrigger(1)');
    assert.equal(String(CountTrigger.of(1)), 'CountTrigger(1)');
  });

  it('the time triggers and the count trigger can merge (session windows); the delta trigger cannot', () => {
    assert.deepEqual(
      [
        EventTimeTrigger.create(),
        ProcessingTimeTrigger.create(),
        ContinuousEventTimeTrigger.of(10),
        ContinuousProcessingTimeTrigger.of(10),
        CountTrigger.of(2),
        DeltaTrigger.of(1, (a: number, b: number) => b - a),
      ].map((t) => t.canMerge()),
      [true, true, true, true, true, false],
    );
  });

  it('only the event-time trigger fires only at the end of its window', () => {
    assert.equal(EventTimeTrigger.create().firesOnlyAtWindowEnd(), true);
    assert.equal(ProcessingTimeTrigger.create().firesOnlyAtWindowEnd(), false);
    assert.equal(ContinuousEventTimeTrigger.of(10).firesOnlyAtWindowEnd(), false);
  });

  it('a trigger of one time domain ignores the timers of the other, and count and delta triggers ignore both', () => {
    assert.equal(EventTimeTrigger.create().onProcessingTime(999, window, untouched), TriggerResult.CONTINUE);
    assert.equal(ProcessingTimeTrigger.create().onEventTime(999, window, untouched), TriggerResult.CONTINUE);
    assert.equal(
      ContinuousEventTimeTrigger.of(10).onProcessingTime(999, window, untouched),
      TriggerResult.CONTINUE,
    );
    assert.equal(
      ContinuousProcessingTimeTrigger.of(10).onEventTime(999, window, untouched),
      TriggerResult.CONTINUE,
    );
    for (const t of [CountTrigger.of(2), DeltaTrigger.of(1, (a: number, b: number) => b - a)]) {
      assert.equal(t.onEventTime(999, window, untouched), TriggerResult.CONTINUE);
      assert.equal(t.onProcessingTime(999, window, untouched), TriggerResult.CONTINUE);
    }
  });

  it('the global windows never fire by themselves, or only at the end of the stream', () => {
    const never = GlobalWindows.create().getDefaultTrigger();
    const end = GlobalWindows.createWithEndOfStreamTrigger().getDefaultTrigger();
    const g = GlobalWindow.get();
    assert.equal(never.onElement(1, 5, g, untouched), TriggerResult.CONTINUE);
    assert.equal(never.onEventTime(g.maxTimestamp(), g, untouched), TriggerResult.CONTINUE);
    assert.equal(never.onProcessingTime(5, g, untouched), TriggerResult.CONTINUE);
    assert.equal(end.onProcessingTime(g.maxTimestamp(), g, untouched), TriggerResult.CONTINUE);
    assert.equal(end.onEventTime(5, g, untouched), TriggerResult.CONTINUE);
    assert.equal(end.onEventTime(g.maxTimestamp(), g, untouched), TriggerResult.FIRE);
  });
});

/** Keeps the elements in list state and their sum in aggregating state, and merges both; `mergeValue` also merges a value state. */
class MergingStates extends Trigger<number, TimeWindow> {
  private readonly seen = new ListStateDescriptor<number>('seen');
  private readonly total = new AggregatingStateDescriptor<number, number, number>('total', {
    createAccumulator: () => 0,
    add: (v, acc) => acc + v,
    getResult: (acc) => acc,
    merge: (a, b) => a + b,
  });
  private readonly last = new ValueStateDescriptor<number>('last');
  readonly observed: string[] = [];
  constructor(private readonly mergeValue: boolean) {
    super();
  }
  onElement(element: number, _ts: number, _w: TimeWindow, ctx: TriggerContext): TriggerResult {
    const seen = ctx.getPartitionedState(this.seen);
    const total = ctx.getPartitionedState(this.total);
    seen.add(element);
    total.add(element);
    this.observed.push(`${seen.get().join(',')} ${total.get()}`);
    return TriggerResult.CONTINUE;
  }
  onEventTime(): TriggerResult {
    return TriggerResult.CONTINUE;
  }
  onProcessingTime(): TriggerResult {
    return TriggerResult.CONTINUE;
  }
  override canMerge(): boolean {
    return true;
  }
  override onMerge(_w: TimeWindow, ctx: OnMergeContext): void {
    ctx.mergePartitionedState(this.seen);
    ctx.mergePartitionedState(this.total);
    if (this.mergeValue) ctx.mergePartitionedState(this.last);
  }
  clear(): void {}
}

describe('trigger state when windows merge', () => {
  it('list and aggregating state merge into the merged window', () => {
    const trigger = new MergingStates(false);
    const h = new TriggerTestHarness(trigger, timeWindowSerializer);
    h.processElement(1, 0, new TimeWindow(0, 10));
    h.processElement(2, 0, new TimeWindow(5, 15));
    h.mergeWindows(new TimeWindow(0, 15), [new TimeWindow(0, 10), new TimeWindow(5, 15)]);
    h.processElement(3, 0, new TimeWindow(0, 15));
    assert.deepEqual(trigger.observed, ['1 1', '2 2', '1,2,3 6']);
  });

  it('a state that cannot merge is refused, naming it and its kind', () => {
    const h = new TriggerTestHarness(new MergingStates(true), timeWindowSerializer);
    h.processElement(1, 0, new TimeWindow(0, 10));
    assert.throws(
      () => h.mergeWindows(new TimeWindow(0, 15), [new TimeWindow(0, 10), new TimeWindow(5, 15)]),
      {
        message:
          "The state descriptor 'last' does not refer to a mergeable state (value state cannot merge; use list, reducing or aggregating state)",
      },
    );
  });
});
