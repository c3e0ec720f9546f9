// EventTimeTrigger on its own: one timer per window at its end, late panes fire at once (after Flink's EventTimeTriggerTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { TriggerResult } from '../trigger-result.ts';
import { EventTimeTrigger } from './event-time-trigger.ts';

const { CONTINUE, FIRE } = TriggerResult;
const a = new TimeWindow(0, 2);
const b = new TimeWindow(2, 4);
const merged = new TimeWindow(0, 4);

function harness(): TriggerTestHarness<unknown, TimeWindow> {
  return new TriggerTestHarness<unknown, TimeWindow>(EventTimeTrigger.create(), timeWindowSerializer);
}

describe('EventTimeTrigger', () => {
  it('registers one timer per window at its end and fires each window on its own', () => {
    const h = harness();
    for (const w of [a, a, a, b, b]) assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.eventTimeTimers(), ['[0,2)@1', '[2,4)@3']);
    assert.deepEqual(h.advanceWatermark(2), ['[0,2) FIRE']);
    assert.deepEqual(h.advanceWatermark(4), ['[2,4) FIRE']);
    assert.deepEqual(h.eventTimeTimers(), []);
    assert.equal(h.numProcessingTimeTimers(), 0);
  });

  it('fires an element of a window the watermark has reached at once, without a timer', () => {
    const h = harness();
    h.advanceWatermark(1);
    assert.equal(h.processElement(1, 0, a), FIRE);
    assert.deepEqual(h.eventTimeTimers(), []);
    // Only its own end fires a window: the operator's cleanup timer later does not.
    assert.equal(h.invokeOnEventTime(1, a), FIRE);
    assert.equal(h.invokeOnEventTime(101, a), CONTINUE);
  });

  it('clear deletes the timer of its window only', () => {
    const h = harness();
    h.processElement(1, 0, a);
    h.processElement(1, 0, b);
    h.clearTriggerState(b);
    assert.deepEqual(h.eventTimeTimers(), ['[0,2)@1']);
    h.clearTriggerState(a);
    assert.deepEqual(h.eventTimeTimers(), []);
  });

  it('merging registers the timer of the merged window; clearing the merged ones deletes theirs', () => {
    const h = harness();
    h.processElement(1, 0, a);
    h.processElement(1, 0, b);
    h.mergeWindows(merged, [a, b]);
    assert.deepEqual(h.eventTimeTimers(), ['[0,4)@3']);
    assert.deepEqual(h.advanceWatermark(4), ['[0,4) FIRE']);
    assert.equal(h.numStateEntries(), 0);
  });

  it('merging into a window the watermark has reached registers no timer (its element fires it at once)', () => {
    const h = harness();
    h.processElement(1, 0, a);
    h.processElement(1, 0, b);
    assert.deepEqual(h.advanceWatermark(3), ['[0,2) FIRE', '[2,4) FIRE']);
    h.mergeWindows(merged, [a, b]); // the watermark is exactly the merged window's max timestamp
    assert.deepEqual(h.eventTimeTimers(), []);
  });
});
