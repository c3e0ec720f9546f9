// ProcessingTimeTrigger on its own: one timer per window at its end (after Flink's ProcessingTimeTriggerTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { TriggerResult } from '../trigger-result.ts';
import { ProcessingTimeTrigger } from './processing-time-trigger.ts';

const { CONTINUE, FIRE } = TriggerResult;
const a = new TimeWindow(0, 2);
const b = new TimeWindow(2, 4);
const merged = new TimeWindow(0, 4);

function harness(): TriggerTestHarness<unknown, TimeWindow> {
  return new TriggerTestHarness<unknown, TimeWindow>(ProcessingTimeTrigger.create(), timeWindowSerializer);
}

describe('ProcessingTimeTrigger', () => {
  it('registers one timer per window at its end and fires each window on its own', () => {
    const h = harness();
    for (const w of [a, a, a, b, b]) assert.equal(h.processElement(1, 0, w), CONTINUE);
    assert.equal(h.numStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
    assert.deepEqual(h.processingTimeTimers(), ['[0,2)@1', '[2,4)@3']);
    assert.deepEqual(h.advanceProcessingTime(2), ['[0,2) FIRE']);
    assert.deepEqual(h.processingTimeTimers(), ['[2,4)@3']);
    assert.deepEqual(h.advanceProcessingTime(4), ['[2,4) FIRE']);
    assert.deepEqual(h.processingTimeTimers(), []);
    assert.equal(h.invokeOnProcessingTime(1, a), FIRE);
  });

  it('clear deletes the timer of its window only', () => {
    const h = harness();
    h.processElement(1, 0, a);
    h.processElement(1, 0, b);
    h.clearTriggerState(b);
    assert.deepEqual(h.processingTimeTimers(), ['[0,2)@1']);
    h.clearTriggerState(a);
    assert.deepEqual(h.processingTimeTimers(), []);
  });

  it('merging registers the timer of the merged window; clearing the merged ones deletes theirs', () => {
    const h = harness();
    h.processElement(1, 0, a);
    h.processElement(1, 0, b);
    h.mergeWindows(merged, [a, b]);
    assert.deepEqual(h.processingTimeTimers(), ['[0,4)@3']);
    assert.deepEqual(h.advanceProcessingTime(4), ['[0,4) FIRE']);
    assert.equal(h.numStateEntries(), 0);
  });

  it('merging into a window whose end the clock has reached registers no timer', () => {
    const h = harness();
    h.processElement(1, 0, a);
    h.processElement(1, 0, b);
    assert.deepEqual(h.advanceProcessingTime(3), ['[0,2) FIRE', '[2,4) FIRE']);
    h.mergeWindows(merged, [a, b]); // the clock is exactly at the merged window's max timestamp
    assert.deepEqual(h.processingTimeTimers(), []);
  });
});
