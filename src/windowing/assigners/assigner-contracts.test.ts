// What every assigner declares (time domain, merging path, default trigger), its exact argument checks, and its caches.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimeWindow } from '../time-window.ts';
import type { WindowAssignerContext } from '../window-assigner.ts';
import { DynamicEventTimeSessionWindows } from './dynamic-event-time-session-windows.ts';
import { DynamicProcessingTimeSessionWindows } from './dynamic-processing-time-session-windows.ts';
import { EventTimeSessionWindows } from './event-time-session-windows.ts';
import { GlobalWindows } from './global-windows.ts';
import { ProcessingTimeSessionWindows } from './processing-time-session-windows.ts';
import { SlidingEventTimeWindows } from './sliding-event-time-windows.ts';
import { SlidingProcessingTimeWindows } from './sliding-processing-time-windows.ts';
import { TumblingEventTimeWindows } from './tumbling-event-time-windows.ts';
import { TumblingProcessingTimeWindows } from './tumbling-processing-time-windows.ts';

const ctx = (now = 0): WindowAssignerContext => ({ getCurrentProcessingTime: () => now });
const gap = () => 10;

describe('assigner contracts', () => {
  it('each assigner names its time domain, its merging path and its default trigger', () => {
    const assigners = [
      TumblingEventTimeWindows.of(10),
      TumblingProcessingTimeWindows.of(10),
      SlidingEventTimeWindows.of(10, 5),
      SlidingProcessingTimeWindows.of(10, 5),
      EventTimeSessionWindows.withGap(10),
      ProcessingTimeSessionWindows.withGap(10),
      EventTimeSessionWindows.withDynamicGap(gap),
      ProcessingTimeSessionWindows.withDynamicGap(gap),
      GlobalWindows.create(),
    ];
    assert.deepEqual(
      assigners.map((a) => [
        a.isEventTime(),
        'mergesIntersectingTimeWindows' in a ? a.mergesIntersectingTimeWindows() : '-',
        String(a.getDefaultTrigger()),
      ]),
      [
        [true, '-', 'EventTimeTrigger()'],
        [false, '-', 'ProcessingTimeTrigger()'],
        [true, '-', 'EventTimeTrigger()'],
        [false, '-', 'ProcessingTimeTrigger()'],
        [true, true, 'EventTimeTrigger()'],
        [false, true, 'ProcessingTimeTrigger()'],
        [true, true, 'EventTimeTrigger()'],
        [false, true, 'ProcessingTimeTrigger()'],
        [false, '-', 'NeverTrigger()'],
      ],
    );
    assert.ok(DynamicEventTimeSessionWindows.withDynamicGap(gap) instanceof DynamicEventTimeSessionWindows);
    assert.ok(
      ProcessingTimeSessionWindows.withDynamicGap(gap) instanceof DynamicProcessingTimeSessionWindows,
    );
  });

  it('session assigners merge windows that touch or overlap', () => {
    for (const a of [
      ProcessingTimeSessionWindows.withGap(10),
      EventTimeSessionWindows.withDynamicGap(gap),
      ProcessingTimeSessionWindows.withDynamicGap(gap),
    ]) {
      const merges: string[] = [];
      a.mergeWindows([new TimeWindow(0, 3), new TimeWindow(3, 5), new TimeWindow(9, 10)], (merged, result) =>
        merges.push(`${merged.length} -> [${result.start},${result.end})`),
      );
      assert.deepEqual(merges, ['2 -> [0,5)'], String(a));
    }
  });

  it('argument checks at their limits, with their messages', () => {
    assert.throws(() => ProcessingTimeSessionWindows.withGap(0), {
      message: 'ProcessingTimeSessionWindows parameters must satisfy 0 < size, got 0',
    });
    assert.throws(() => SlidingEventTimeWindows.of(0, 5), {
      message:
        'SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0, got size 0, slide 5 and offset 0',
    });
    assert.throws(() => SlidingProcessingTimeWindows.of(0, 5), {
      message:
        'SlidingProcessingTimeWindows parameters must satisfy abs(offset) < slide and size > 0, got size 0, slide 5 and offset 0',
    });
    assert.throws(() => SlidingProcessingTimeWindows.of(10, 5, 5), /abs\(offset\) < slide/);
    assert.throws(() => TumblingEventTimeWindows.of(10, 10), /abs\(offset\) < size/);
    assert.throws(() => TumblingProcessingTimeWindows.of(10, 10), {
      message:
        'TumblingProcessingTimeWindows parameters must satisfy abs(offset) < size, got size 10 and offset 10',
    });
    // the smallest valid ones
    assert.doesNotThrow(() => SlidingProcessingTimeWindows.of(1, 5, 4));
    assert.doesNotThrow(() => TumblingEventTimeWindows.of(10, 9));
  });

  it('an event-time assigner refuses an element without a timestamp, saying why', () => {
    assert.throws(() => TumblingEventTimeWindows.of(10).assignWindows(1, Number.NaN, ctx()), {
      message:
        "Record has no timestamp. Is the job using processing time, or did you forget to call 'assignTimestampsAndWatermarks(...)' before an event-time window?",
    });
  });

  it('elements of the same windows share one array of windows; another start gets a new one', () => {
    const tumbling = TumblingProcessingTimeWindows.of(10);
    const first = tumbling.assignWindows(1, 0, ctx(3));
    assert.equal(tumbling.assignWindows(1, 0, ctx(7)), first);
    assert.notEqual(tumbling.assignWindows(1, 0, ctx(12)), first);

    const sliding = SlidingEventTimeWindows.of(10, 5);
    const a = sliding.assignWindows(1, 6, ctx());
    assert.equal(sliding.assignWindows(1, 9, ctx()), a);
    assert.deepEqual(
      sliding.assignWindows(1, 11, ctx()).map((x) => x.start),
      [10, 5],
    );
    // A size that is no multiple of the slide: the windows differ within a slide, so nothing is shared.
    const uneven = SlidingEventTimeWindows.of(10, 4);
    assert.deepEqual(
      [uneven.assignWindows(1, 8, ctx()), uneven.assignWindows(1, 10, ctx())].map((ws) =>
        ws.map((x) => x.start),
      ),
      [
        [8, 4, 0],
        [8, 4],
      ],
    );
  });
});
