// ContinuousProcessingTimeTrigger on its own and in the window operator (after Flink's ContinuousProcessingTimeTriggerTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListStateDescriptor } from '../../core/state-descriptor.ts';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import { ProcessingTimeSessionWindows } from '../assigners/processing-time-session-windows.ts';
import { TumblingEventTimeWindows } from '../assigners/tumbling-event-time-windows.ts';
import { TumblingProcessingTimeWindows } from '../assigners/tumbling-processing-time-windows.ts';
import { IterableWindowFunction } from '../operator/internal-window-function.ts';
import { WindowOperator } from '../operator/window-operator.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { TriggerResult } from '../trigger-result.ts';
import type { WindowAssigner } from '../window-assigner.ts';
import { ContinuousProcessingTimeTrigger } from './continuous-processing-time-trigger.ts';

const { CONTINUE } = TriggerResult;

/** Firings every 5 ms of processing time. */
function harness(): TriggerTestHarness<number, TimeWindow> {
  return new TriggerTestHarness(ContinuousProcessingTimeTrigger.of<TimeWindow>(5), timeWindowSerializer);
}

/** A window operator (one key) with the trigger firing every 5 ms, emitting `'[start,end) sum'`. */
function sums(assigner: WindowAssigner<any, TimeWindow>) {
  return new KeyedOperatorHarness<number, string>(
    () =>
      new WindowOperator<string, number, readonly number[], string, TimeWindow>({
        assigner,
        trigger: ContinuousProcessingTimeTrigger.of<TimeWindow>(5),
        windowStateDescriptor: new ListStateDescriptor<number>('window-contents'),
        windowFunction: new IterableWindowFunction<number, string, string, TimeWindow>((_k, w, values, out) =>
          out.collect(`[${w.start},${w.end}) ${[...values].reduce((a, b) => a + b, 0)}`),
        ),
        allowedLateness: 0,
        lateDataOutputTag: undefined,
      }),
    () => 'k',
  );
}

function emitted(h: KeyedOperatorHarness<number, string>): string[] {
  return h.records().map((r) => `${r.value} @${r.timestamp}`);
}

describe('ContinuousProcessingTimeTrigger', () => {
  it('fires a processing-time window every interval and at its end', () => {
    const h = sums(TumblingProcessingTimeWindows.of(10));
    h.processElement(1, 0);
    h.setProcessingTime(2);
    h.processElement(2, 0);
    h.setProcessingTime(5);
    assert.deepEqual(emitted(h), ['[0,10) 3 @9']);
    h.setProcessingTime(7);
    h.processElement(3, 0);
    h.setProcessingTime(9);
    assert.deepEqual(emitted(h), ['[0,10) 3 @9', '[0,10) 6 @9']);
    h.setProcessingTime(10);
    h.processElement(3, 0);
    h.setProcessingTime(15);
    h.setProcessingTime(18);
    h.processElement(3, 0);
    h.setProcessingTime(20);
    assert.deepEqual(emitted(h), ['[0,10) 3 @9', '[0,10) 6 @9', '[10,20) 3 @19', '[10,20) 6 @19']);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
  });

  it('fires an event-time window by the clock, its fire times capped at the window end', () => {
    const h = sums(TumblingEventTimeWindows.of(10));
    h.processElement(1, 1);
    h.processElement(2, 3);
    h.processElement(3, 7);
    h.setProcessingTime(5);
    assert.deepEqual(emitted(h), ['[0,10) 6 @9']);
    h.processElement(3, 8);
    h.setProcessingTime(10); // the fire time after 5 is min(10, 9)
    h.processElement(3, 12);
    h.setProcessingTime(15);
    assert.deepEqual(emitted(h), ['[0,10) 6 @9', '[0,10) 9 @9', '[10,20) 3 @19']);
    // The clock is past [0,10)'s max timestamp, its watermark not yet: it fired there once, and fires once more
    // for an element that still joins it.
    h.setProcessingTime(30);
    h.processElement(4, 9);
    h.setProcessingTime(31);
    assert.deepEqual(emitted(h).slice(3), ['[10,20) 3 @19', '[0,10) 13 @9']);
    h.processWatermark(19);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
  });

  it('keeps firing a merged session window on the merged fire time', () => {
    const h = sums(ProcessingTimeSessionWindows.withGap(10));
    h.processElement(1, 0);
    h.setProcessingTime(2);
    h.processElement(2, 0); // [2,12) merges with [0,10) into [0,12)
    h.setProcessingTime(5);
    assert.deepEqual(emitted(h), ['[0,12) 3 @11']);
    h.setProcessingTime(9);
    assert.deepEqual(emitted(h), ['[0,12) 3 @11']);
    h.setProcessingTime(10);
    h.setProcessingTime(15); // the window ends at 11
    h.setProcessingTime(100);
    assert.deepEqual(emitted(h), ['[0,12) 3 @11', '[0,12) 3 @11', '[0,12) 3 @11']);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
  });

  it('registers one fire time per pane, and only its own timer fires it', () => {
    const h = harness();
    const w = new TimeWindow(0, 100);
    h.advanceProcessingTime(3);
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    h.advanceProcessingTime(4);
    assert.equal(h.processElement(2, 0, w), CONTINUE);
    assert.equal(h.numStateEntries(), 1);
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@5']);
    assert.equal(h.invokeOnProcessingTime(4, w), CONTINUE);
    assert.deepEqual(h.advanceProcessingTime(12), ['[0,100) FIRE', '[0,100) FIRE']);
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@15']);
    assert.equal(h.invokeOnEventTime(15, w), CONTINUE);
  });

  it('clear removes the fire time and its timer, only of its window', () => {
    const h = harness();
    const a = new TimeWindow(0, 100);
    const b = new TimeWindow(100, 200);
    h.processElement(1, 0, a);
    h.processElement(1, 0, b);
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@5', '[100,200)@5']);
    h.clearTriggerState(b);
    assert.equal(h.numStateEntries(), 1);
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@5']);
    h.clearTriggerState(a);
    h.clearTriggerState(a);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.processingTimeTimers(), []);
  });

  it('merging keeps the earliest fire time, and an element of the merged window adds no timer', () => {
    const h = harness();
    const a = new TimeWindow(0, 12);
    const b = new TimeWindow(8, 20);
    const merged = new TimeWindow(0, 20);
    h.advanceProcessingTime(10);
    h.processElement(1, 0, a); // min(15, 11)
    h.processElement(1, 0, b);
    assert.deepEqual(h.processingTimeTimers(), ['[0,12)@11', '[8,20)@15']);
    h.mergeWindows(merged, [a, b]);
    // The merged windows' fire times moved into the merged window: their own timers stay, as in Flink.
    assert.equal(h.numStateEntries(), 1);
    assert.deepEqual(h.processingTimeTimers(), ['[0,12)@11', '[0,20)@11', '[8,20)@15']);
    h.processElement(2, 0, merged);
    assert.deepEqual(h.processingTimeTimers(), ['[0,12)@11', '[0,20)@11', '[8,20)@15']);
    assert.deepEqual(h.advanceProcessingTime(16), [
      '[0,12) CONTINUE',
      '[0,20) FIRE',
      '[8,20) CONTINUE',
      '[0,20) FIRE',
    ]);
    assert.deepEqual(h.processingTimeTimers(), ['[0,20)@19']);
  });

  it('merging windows without a fire time registers no timer', () => {
    const h = harness();
    h.mergeWindows(new TimeWindow(0, 20), [new TimeWindow(0, 12), new TimeWindow(8, 20)]);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.processingTimeTimers(), []);
  });
});
