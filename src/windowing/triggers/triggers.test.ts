// Built-in triggers inside the real window operator: delta semantics, timeouts, continuous firing, cleanup.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListStateDescriptor } from '../../core/state-descriptor.ts';
import { GlobalWindows } from '../assigners/global-windows.ts';
import { TumblingEventTimeWindows } from '../assigners/tumbling-event-time-windows.ts';
import { EventTimeSessionWindows } from '../assigners/event-time-session-windows.ts';
import { IterableWindowFunction } from '../operator/internal-window-function.ts';
import { WindowOperator } from '../operator/window-operator.ts';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import type { Trigger } from '../trigger.ts';
import { TriggerResult, triggerResultName } from '../trigger-result.ts';
import type { Window } from '../window.ts';
import type { WindowAssigner } from '../window-assigner.ts';
import { checkTrigger } from '../../api/windowed-stream.ts';
import { ContinuousProcessingTimeTrigger } from './continuous-processing-time-trigger.ts';
import { CountTrigger } from './count-trigger.ts';
import { DeltaTrigger } from './delta-trigger.ts';
import { EventTimeTrigger } from './event-time-trigger.ts';
import { ProcessingTimeoutTrigger } from './processing-timeout-trigger.ts';
import { PurgingTrigger } from './purging-trigger.ts';

/** A keyed window operator over numbers (one key) whose results are the window's contents. */
function contents(assigner: WindowAssigner<any, any>, trigger: Trigger<any, any>, lateness = 0) {
  return new KeyedOperatorHarness<number, number[]>(
    () =>
      new WindowOperator<string, number, readonly number[], number[], Window>({
        assigner,
        trigger,
        windowStateDescriptor: new ListStateDescriptor<number>('window-contents'),
        windowFunction: new IterableWindowFunction<number, number[], string, Window>((_k, _w, values, out) =>
          out.collect([...values]),
        ),
        allowedLateness: lateness,
        lateDataOutputTag: undefined,
      }),
    () => 'k',
  );
}

describe('triggers', () => {
  it('TriggerResult flags and names', () => {
    assert.equal(TriggerResult.FIRE_AND_PURGE, TriggerResult.FIRE | TriggerResult.PURGE);
    assert.equal(triggerResultName(TriggerResult.PURGE), 'PURGE');
  });

  it('DeltaTrigger compares with the element of the last firing, not the previous element', () => {
    const h = contents(
      GlobalWindows.create(),
      DeltaTrigger.of(2.5, (a: number, b: number) => b - a),
    );
    for (const v of [1, 2, 3, 4, 7, 8, 12]) h.processElement(v, 0);
    // Steps of 1 never exceed 2.5, but 4 is 3 away from the reference 1: it fires and becomes the reference.
    assert.deepEqual(
      h.records().map((r) => r.value),
      [
        [1, 2, 3, 4],
        [1, 2, 3, 4, 7],
        [1, 2, 3, 4, 7, 8, 12],
      ],
    );
  });

  it('DeltaTrigger fires only when the delta is strictly greater than the threshold', () => {
    const h = contents(
      GlobalWindows.create(),
      DeltaTrigger.of(3, (a: number, b: number) => b - a),
    );
    for (const v of [1, 4, 5, 8]) h.processElement(v, 0);
    // 4 - 1 = 3 equals the threshold: no firing; 5 - 1 = 4 fires and 5 becomes the reference; 8 - 5 = 3 again.
    assert.deepEqual(
      h.records().map((r) => r.value),
      [[1, 4, 5]],
    );
  });

  it('CountTrigger fires every n elements and its count is cleared with the window', () => {
    const h = contents(TumblingEventTimeWindows.of(1000), CountTrigger.of(2));
    for (const ts of [1, 2, 3]) h.processElement(ts, ts);
    assert.deepEqual(
      h.records().map((r) => r.value),
      [[1, 2]],
    );
    assert.equal(h.numKeyedStateEntries(), 2, 'contents + the count of the open window');
    h.processWatermark(999);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
  });

  it('ProcessingTimeoutTrigger fires after the timeout, then clears the nested count', () => {
    const h = contents(
      GlobalWindows.create(),
      PurgingTrigger.of(ProcessingTimeoutTrigger.of(CountTrigger.of(3), 50)),
    );
    h.processElement(1, 0);
    h.setProcessingTime(10);
    h.processElement(2, 0);
    h.setProcessingTime(49);
    assert.deepEqual(h.records(), []);
    h.setProcessingTime(50);
    assert.deepEqual(
      h.records().map((r) => r.value),
      [[1, 2]],
    );
    // The count restarted: three new elements fire before the new timeout (60 + 50).
    h.setProcessingTime(60);
    for (const v of [3, 4, 5]) h.processElement(v, 0);
    assert.deepEqual(
      h.records().map((r) => r.value),
      [
        [1, 2],
        [3, 4, 5],
      ],
    );
    assert.equal(h.numProcessingTimeTimers(), 0, 'firing through the nested trigger cleared the timeout');
    h.setProcessingTime(1000);
    assert.equal(h.records().length, 2);
    assert.equal(h.numKeyedStateEntries(), 0);
  });

  it('ProcessingTimeoutTrigger with resetTimerOnNewRecord is an inactivity timeout', () => {
    const h = contents(
      GlobalWindows.create(),
      PurgingTrigger.of(ProcessingTimeoutTrigger.of(CountTrigger.of(100), 50, true, true)),
    );
    h.processElement(1, 0);
    h.setProcessingTime(40);
    h.processElement(2, 0);
    h.setProcessingTime(89);
    assert.deepEqual(h.records(), []);
    h.setProcessingTime(90);
    assert.deepEqual(
      h.records().map((r) => r.value),
      [[1, 2]],
    );
  });

  it('ContinuousProcessingTimeTrigger fires at aligned intervals while elements arrive', () => {
    const h = contents(GlobalWindows.create(), ContinuousProcessingTimeTrigger.of(1000));
    h.setProcessingTime(500);
    h.processElement(1, 0);
    h.setProcessingTime(999);
    assert.deepEqual(h.records(), []);
    h.setProcessingTime(1000);
    h.processElement(2, 0);
    h.setProcessingTime(2500);
    assert.deepEqual(
      h.records().map((r) => r.value),
      [[1], [1, 2]],
    );
    assert.deepEqual(
      h.records().map((r) => r.timestamp),
      [Infinity, Infinity],
      'global window results carry the end of time',
    );
  });

  it('EventTimeTrigger fires late elements within the allowed lateness at once', () => {
    const h = contents(TumblingEventTimeWindows.of(1000), EventTimeTrigger.create(), 500);
    h.processElement(1, 100);
    h.processWatermark(1000);
    h.processElement(2, 200);
    assert.deepEqual(
      h.records().map((r) => [r.value, r.timestamp]),
      [
        [[1], 999],
        [[1, 2], 999],
      ],
    );
    h.processWatermark(1499);
    assert.equal(h.numKeyedStateEntries(), 0);
  });

  it('a merging assigner rejects triggers that cannot merge, naming both', () => {
    assert.throws(
      () =>
        checkTrigger(
          EventTimeSessionWindows.withGap(10),
          ProcessingTimeoutTrigger.of(EventTimeTrigger.create(), 5),
        ),
      /EventTimeSessionWindows\(10\) with TimeoutTrigger\(EventTimeTrigger\(\)\)/,
    );
    assert.throws(
      () =>
        checkTrigger(
          EventTimeSessionWindows.withGap(10),
          DeltaTrigger.of(1, (a: number, b: number) => a - b),
        ),
      /does not support merging/,
    );
    checkTrigger(EventTimeSessionWindows.withGap(10), PurgingTrigger.of(CountTrigger.of(3)));
  });
});
