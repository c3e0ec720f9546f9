// ContinuousEventTimeTrigger on its own, step by step (after Flink's ContinuousEventTimeTriggerTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { TriggerResult } from '../trigger-result.ts';
import { ContinuousEventTimeTrigger } from './continuous-event-time-trigger.ts';

const { CONTINUE, FIRE } = TriggerResult;
const early = new TimeWindow(0, 20);
const late = new TimeWindow(20, 40);

/** Firings every 5 ms of event time. */
function harness(): TriggerTestHarness<number, TimeWindow> {
  return new TriggerTestHarness(ContinuousEventTimeTrigger.of<TimeWindow>(5), timeWindowSerializer);
}

describe('ContinuousEventTimeTrigger', () => {
  it('fires an element of a window the watermark has reached at once, keeping no state or timer', () => {
    const h = harness();
    h.advanceWatermark(19); // exactly the window's max timestamp
    assert.equal(h.processElement(1, 3, early), FIRE);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.eventTimeTimers(), []);
    // The window operator's cleanup timer at the window's end fires it even without a fire time; other times do not.
    assert.equal(h.invokeOnEventTime(19, early), FIRE);
    assert.equal(h.invokeOnEventTime(10, early), CONTINUE);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.eventTimeTimers(), []);
  });

  it('fires at aligned intervals and at the window end, each window on its own', () => {
    const h = harness();
    for (const ts of [3, 4, 12]) assert.equal(h.processElement(1, ts, early), CONTINUE);
    for (const ts of [21, 27]) assert.equal(h.processElement(1, ts, late), CONTINUE);
    // One fire time per window (the first element's, aligned down to the interval, plus the interval).
    assert.equal(h.numStateEntries(), 2);
    assert.deepEqual(h.eventTimeTimers(), ['[0,20)@5', '[0,20)@19', '[20,40)@25', '[20,40)@39']);

    // A timer of the window at another time (a cleanup timer with allowed lateness) neither fires nor moves it.
    assert.equal(h.invokeOnEventTime(7, early), CONTINUE);
    assert.deepEqual(h.eventTimeTimers(), ['[0,20)@5', '[0,20)@19', '[20,40)@25', '[20,40)@39']);

    assert.deepEqual(h.advanceWatermark(5), ['[0,20) FIRE']);
    assert.deepEqual(h.eventTimeTimers(), ['[0,20)@10', '[0,20)@19', '[20,40)@25', '[20,40)@39']);
    // 10, 15, then the window end: the fire time after 15 is capped at 19, the end timer already there.
    assert.deepEqual(h.advanceWatermark(19), ['[0,20) FIRE', '[0,20) FIRE', '[0,20) FIRE']);
    assert.deepEqual(h.eventTimeTimers(), ['[20,40)@25', '[20,40)@39']);
    assert.equal(h.numStateEntries(), 2, 'the last fire time stays until the window is cleared');
    assert.deepEqual(h.advanceWatermark(40), [
      '[20,40) FIRE',
      '[20,40) FIRE',
      '[20,40) FIRE',
      '[20,40) FIRE',
    ]);
    assert.deepEqual(h.eventTimeTimers(), []);
  });

  it('clear removes the fire time and its timer, not the window-end timer, and only of its window', () => {
    const h = harness();
    h.processElement(1, 3, early);
    h.processElement(1, 21, late);
    h.clearTriggerState(late);
    assert.equal(h.numStateEntries(), 1);
    assert.deepEqual(h.eventTimeTimers(), ['[0,20)@5', '[0,20)@19', '[20,40)@39']);
    h.clearTriggerState(early);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.eventTimeTimers(), ['[0,20)@19', '[20,40)@39']);
    // A window without a fire time: nothing to delete.
    h.clearTriggerState(early);
    assert.deepEqual(h.eventTimeTimers(), ['[0,20)@19', '[20,40)@39']);
  });

  it('merging keeps the earliest fire time of the merged windows, with a timer for the merged window', () => {
    const h = harness();
    const a = new TimeWindow(0, 12);
    const b = new TimeWindow(10, 22);
    const merged = new TimeWindow(0, 22);
    h.processElement(1, 3, a);
    h.processElement(1, 11, b);
    assert.deepEqual(h.eventTimeTimers(), ['[0,12)@5', '[0,12)@11', '[10,22)@15', '[10,22)@21']);
    h.mergeWindows(merged, [a, b]);
    // The merged windows' states moved into the merged window, so their clear finds no fire time: their timers stay
    // (the operator ignores timers of windows that no longer exist), as in Flink.
    assert.equal(h.numStateEntries(), 1);
    assert.deepEqual(h.eventTimeTimers(), ['[0,12)@5', '[0,22)@5', '[0,12)@11', '[10,22)@15', '[10,22)@21']);
    assert.deepEqual(h.advanceWatermark(5), ['[0,12) CONTINUE', '[0,22) FIRE']);
    assert.deepEqual(h.eventTimeTimers(), ['[0,22)@10', '[0,12)@11', '[10,22)@15', '[10,22)@21']);
  });

  it('merging windows without a fire time (fired late) registers no timer', () => {
    const h = harness();
    const a = new TimeWindow(0, 12);
    const b = new TimeWindow(10, 22);
    h.advanceWatermark(30);
    assert.equal(h.processElement(1, 3, a), FIRE);
    assert.equal(h.processElement(1, 11, b), FIRE);
    h.mergeWindows(new TimeWindow(0, 22), [a, b]);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.eventTimeTimers(), []);
  });
});
