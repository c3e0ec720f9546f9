// The names assigners, triggers and evictors give themselves (Flink's toString), as errors and job plans show them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DynamicEventTimeSessionWindows } from './assigners/dynamic-event-time-session-windows.ts';
import { DynamicProcessingTimeSessionWindows } from './assigners/dynamic-processing-time-session-windows.ts';
import { EventTimeSessionWindows } from './assigners/event-time-session-windows.ts';
import { GlobalWindows } from './assigners/global-windows.ts';
import { ProcessingTimeSessionWindows } from './assigners/processing-time-session-windows.ts';
import { SlidingEventTimeWindows } from './assigners/sliding-event-time-windows.ts';
import { SlidingProcessingTimeWindows } from './assigners/sliding-processing-time-windows.ts';
import { TumblingEventTimeWindows } from './assigners/tumbling-event-time-windows.ts';
import { TumblingProcessingTimeWindows } from './assigners/tumbling-processing-time-windows.ts';
import { CountEvictor } from './evictors/count-evictor.ts';
import { DeltaEvictor } from './evictors/delta-evictor.ts';
import { TimeEvictor } from './evictors/time-evictor.ts';
import { ContinuousEventTimeTrigger } from './triggers/continuous-event-time-trigger.ts';
import { ContinuousProcessingTimeTrigger } from './triggers/continuous-processing-time-trigger.ts';
import { CountTrigger } from './triggers/count-trigger.ts';
import { DeltaTrigger } from './triggers/delta-trigger.ts';
import { EventTimeTrigger } from './triggers/event-time-trigger.ts';
import { ProcessingTimeTrigger } from './triggers/processing-time-trigger.ts';
import { ProcessingTimeoutTrigger } from './triggers/processing-timeout-trigger.ts';
import { PurgingTrigger } from './triggers/purging-trigger.ts';

function distance(a: number, b: number): number {
  return Math.abs(a - b);
}

describe('windowing names', () => {
  it('assigners', () => {
    assert.deepEqual(
      [
        TumblingEventTimeWindows.of(1000),
        TumblingProcessingTimeWindows.of(2000),
        SlidingEventTimeWindows.of(1000, 500),
        SlidingProcessingTimeWindows.of(2000, 250),
        EventTimeSessionWindows.withGap(300),
        ProcessingTimeSessionWindows.withGap(400),
        DynamicEventTimeSessionWindows.withDynamicGap<number>((n) => n),
        DynamicProcessingTimeSessionWindows.withDynamicGap<number>((n) => n),
        GlobalWindows.create(),
      ].map(String),
      [
        'TumblingEventTimeWindows(1000)',
        'TumblingProcessingTimeWindows(2000)',
        'SlidingEventTimeWindows(1000, 500)',
        'SlidingProcessingTimeWindows(2000, 250)',
        'EventTimeSessionWindows(300)',
        'ProcessingTimeSessionWindows(400)',
        'DynamicEventTimeSessionWindows()',
        'DynamicProcessingTimeSessionWindows()',
        'GlobalWindows()',
      ],
    );
  });

  it('triggers, the global windows default ones and a nested trigger inside its wrapper', () => {
    assert.deepEqual(
      [
        EventTimeTrigger.create(),
        ProcessingTimeTrigger.create(),
        CountTrigger.of(3),
        ContinuousEventTimeTrigger.of(100),
        ContinuousProcessingTimeTrigger.of(200),
        DeltaTrigger.of(2, distance),
        DeltaTrigger.of(2, (a: number, b: number) => b - a),
        PurgingTrigger.of(CountTrigger.of(4)),
        ProcessingTimeoutTrigger.of(CountTrigger.of(5), 1000),
        GlobalWindows.create().getDefaultTrigger(),
        GlobalWindows.createWithEndOfStreamTrigger().getDefaultTrigger(),
      ].map(String),
      [
        'EventTimeTrigger()',
        'ProcessingTimeTrigger()',
        'CountTrigger(3)',
        'ContinuousEventTimeTrigger(100)',
        'ContinuousProcessingTimeTrigger(200)',
        'DeltaTrigger(distance, 2)',
        'DeltaTrigger(deltaFunction, 2)',
        'PurgingTrigger(CountTrigger(4))',
        'TimeoutTrigger(CountTrigger(5))',
        'NeverTrigger()',
        'EndOfStreamTrigger()',
      ],
    );
  });

  it('evictors', () => {
    assert.deepEqual(
      [
        CountEvictor.of(3),
        TimeEvictor.of(1000),
        DeltaEvictor.of(2, distance),
        DeltaEvictor.of(2, (a: number, b: number) => b - a),
      ].map(String),
      ['CountEvictor(3)', 'TimeEvictor(1000)', 'DeltaEvictor(distance, 2)', 'DeltaEvictor(deltaFunction, 2)'],
    );
  });
});
