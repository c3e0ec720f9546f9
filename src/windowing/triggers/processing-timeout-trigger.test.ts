// ProcessingTimeoutTrigger on its own: the timeout timer, its reset and clear options, and the nested trigger's results (after Flink's ProcessingTimeoutTriggerTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import type { Trigger } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import { CountTrigger } from './count-trigger.ts';
import { EventTimeTrigger } from './event-time-trigger.ts';
import { ProcessingTimeTrigger } from './processing-time-trigger.ts';
import { ProcessingTimeoutTrigger } from './processing-timeout-trigger.ts';
import { PurgingTrigger } from './purging-trigger.ts';

const { CONTINUE, FIRE } = TriggerResult;
const w = new TimeWindow(0, 100);

function harness(trigger: Trigger<any, TimeWindow>): TriggerTestHarness<number, TimeWindow> {
  return new TriggerTestHarness(trigger, timeWindowSerializer);
}

describe('ProcessingTimeoutTrigger', () => {
  it('times out a pane 50 ms after its first element, then clears itself and the nested trigger', () => {
    const h = harness(ProcessingTimeoutTrigger.of(CountTrigger.of<TimeWindow>(3), 50, false, true));
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    h.advanceProcessingTime(10);
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.numStateEntries(), 2, 'the timeout and the nested count');
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@50']);
    assert.deepEqual(h.advanceProcessingTime(49), []);
    assert.deepEqual(h.advanceProcessingTime(50), ['[0,100) FIRE']);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.processingTimeTimers(), []);
    // The nested count starts afresh; its firing clears the new timeout.
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@100']);
    assert.equal(h.processElement(1, 0, w), FIRE);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.processingTimeTimers(), []);
  });

  it('with resetTimerOnNewRecord, every element moves the timeout', () => {
    const h = harness(ProcessingTimeoutTrigger.of(CountTrigger.of<TimeWindow>(3), 50, true, true));
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    h.advanceProcessingTime(10);
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.numStateEntries(), 2);
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@60']);
    assert.deepEqual(h.advanceProcessingTime(50), []);
    assert.deepEqual(h.advanceProcessingTime(60), ['[0,100) FIRE']);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.processingTimeTimers(), []);
    for (const expected of [CONTINUE, CONTINUE, FIRE]) assert.equal(h.processElement(1, 0, w), expected);
  });

  it('without shouldClearOnTimeout, the timeout fires once and the nested state stays', () => {
    const h = harness(ProcessingTimeoutTrigger.of(CountTrigger.of<TimeWindow>(3), 50, false, false));
    h.processElement(1, 0, w);
    h.processElement(1, 0, w);
    assert.deepEqual(h.advanceProcessingTime(50), ['[0,100) FIRE']);
    assert.equal(h.numStateEntries(), 2, 'the spent timeout and the count of 2');
    assert.deepEqual(h.processingTimeTimers(), []);
    // The spent timeout still counts as set: no new timer; the third element completes the nested count.
    assert.equal(h.processElement(1, 0, w), FIRE);
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.processingTimeTimers(), []);
  });

  it('purges on timeout when the nested trigger purges', () => {
    const h = harness(
      ProcessingTimeoutTrigger.of(PurgingTrigger.of(ProcessingTimeTrigger.create()), 50, false, false),
    );
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.numStateEntries(), 1, 'the timeout only');
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@50', '[0,100)@99']);
    assert.deepEqual(h.advanceProcessingTime(50), ['[0,100) FIRE_AND_PURGE']);
    // Not cleared: the timeout state and the nested trigger's timer at the window end stay.
    assert.equal(h.numStateEntries(), 1);
    assert.deepEqual(h.processingTimeTimers(), ['[0,100)@99']);
  });

  it('fires on any event-time timer too, purging if the nested trigger purges', () => {
    const h = harness(ProcessingTimeoutTrigger.of(EventTimeTrigger.create(), 50));
    assert.equal(h.processElement(1, 5, w), CONTINUE);
    assert.deepEqual(h.eventTimeTimers(), ['[0,100)@99']);
    assert.deepEqual(h.advanceWatermark(99), ['[0,100) FIRE']);
    // cleared on the firing: the timeout timer is gone
    assert.equal(h.numStateEntries(), 0);
    assert.deepEqual(h.processingTimeTimers(), []);
    // A timer the nested trigger ignores fires the pane all the same.
    assert.equal(h.invokeOnEventTime(7, w), FIRE);

    const purging = harness(
      ProcessingTimeoutTrigger.of(PurgingTrigger.of(EventTimeTrigger.create()), 50, false, false),
    );
    purging.processElement(1, 5, w);
    assert.deepEqual(purging.advanceWatermark(99), ['[0,100) FIRE_AND_PURGE']);
    assert.equal(purging.numStateEntries(), 1, 'not cleared');
    assert.deepEqual(purging.processingTimeTimers(), ['[0,100)@50']);
  });

  it('clear without a pending timeout only clears the nested trigger', () => {
    const h = harness(ProcessingTimeoutTrigger.of(CountTrigger.of<TimeWindow>(3), 50));
    h.clearTriggerState(w);
    assert.equal(h.numStateEntries(), 0);
    assert.equal(
      String(ProcessingTimeoutTrigger.of(CountTrigger.of(3), 50)),
      'TimeoutTrigger(CountTrigger(3))',
    );
  });
});
