// The window operator's edges: cleanup timers of merged sessions, firings of empty panes, elements no window takes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListStateDescriptor, ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import { KeyedOperatorHarness, type HarnessSnapshot } from '../../../test/support/keyed-operator-harness.ts';
import { TimerHeap } from '../../time/timer-heap.ts';
import { EventTimeSessionWindows } from '../assigners/event-time-session-windows.ts';
import { ProcessingTimeSessionWindows } from '../assigners/processing-time-session-windows.ts';
import { TumblingEventTimeWindows } from '../assigners/tumbling-event-time-windows.ts';
import { TumblingProcessingTimeWindows } from '../assigners/tumbling-processing-time-windows.ts';
import { ProcessingTimeTrigger } from '../triggers/processing-time-trigger.ts';
import { PassThroughWindowFunction } from './internal-window-function.ts';
import { evictingState } from '../../api/windowed-stream.ts';
import type { Evictor } from '../evictor.ts';
import { CountEvictor } from '../evictors/count-evictor.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import type { Trigger } from '../trigger.ts';
import { ContinuousEventTimeTrigger } from '../triggers/continuous-event-time-trigger.ts';
import { CountTrigger } from '../triggers/count-trigger.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { PurgingTrigger } from '../triggers/purging-trigger.ts';
import { WindowAssigner } from '../window-assigner.ts';
import { IterableWindowFunction } from './internal-window-function.ts';
import { WindowOperator } from './window-operator.ts';

/** One key; each firing emits `'[start,end) values'`. */
function contents(
  assigner: WindowAssigner<any, TimeWindow>,
  trigger: Trigger<any, TimeWindow>,
  options: { lateness?: number; evictor?: Evictor<number, TimeWindow>; restore?: HarnessSnapshot } = {},
) {
  let created: WindowOperator<string, number, any, string, TimeWindow> | undefined;
  const h = new KeyedOperatorHarness<number, string>(
    () =>
      (created = new WindowOperator<string, number, any, string, TimeWindow>({
        assigner,
        trigger,
        windowStateDescriptor:
          options.evictor === undefined
            ? new ListStateDescriptor<number>('window-contents')
            : evictingState<number>(),
        windowFunction: new IterableWindowFunction<number, string, string, TimeWindow>((_k, w, values, out) =>
          out.collect(`[${w.start},${w.end}) ${[...values].join(',')}`),
        ),
        allowedLateness: options.lateness ?? 0,
        lateDataOutputTag: undefined,
        evictor: options.evictor,
      })),
    () => 'k',
    { restore: options.restore },
  );
  return { h, operator: created! };
}

const emitted = (h: KeyedOperatorHarness<number, string>) => h.records().map((r) => r.value);

/** Event-time windows of 100 ms, except for odd values, which it puts in no window at all. */
class EvenOnly extends WindowAssigner<number, TimeWindow> {
  assignWindows(value: number, timestamp: number): readonly TimeWindow[] {
    const start = timestamp - (timestamp % 100);
    return value % 2 === 0 ? [new TimeWindow(start, start + 100)] : [];
  }
  getDefaultTrigger(): Trigger<number, TimeWindow> {
    return EventTimeTrigger.create() as Trigger<number, TimeWindow>;
  }
  getWindowSerializer() {
    return timeWindowSerializer;
  }
  isEventTime(): boolean {
    return true;
  }
}

describe('WindowOperator edges', () => {
  it('refuses a negative or NaN allowed lateness', () => {
    for (const lateness of [-1, Number.NaN]) {
      assert.throws(
        () => contents(TumblingEventTimeWindows.of(100), EventTimeTrigger.create(), { lateness }),
        {
          message: `The allowed lateness cannot be negative, got ${lateness}`,
        },
      );
    }
  });

  it('merging sessions delete the cleanup timers of the merged windows (allowed lateness)', () => {
    const { h } = contents(EventTimeSessionWindows.withGap(10), EventTimeTrigger.create(), { lateness: 100 });
    h.processElement(1, 0);
    h.processElement(2, 5); // [0,10) and [5,15) merge into [0,15)
    // the trigger's timer at 14 and the cleanup timer at 114, no timer of [0,10) or [5,15)
    assert.equal(h.numEventTimeTimers(), 2);
    h.processWatermark(14);
    assert.deepEqual(emitted(h), ['[0,15) 1,2']);
    h.processWatermark(114);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
  });

  it("sessions that open, grow, merge and fire never build a window's start:end key", () => {
    const { h } = contents(EventTimeSessionWindows.withGap(10), EventTimeTrigger.create());
    const key = TimeWindow.prototype.key;
    let built = 0;
    TimeWindow.prototype.key = function (this: TimeWindow) {
      built++;
      return key.call(this);
    };
    try {
      h.processElement(1, 0); // [0,10)
      h.processElement(2, 5); // grows to [0,15)
      h.processElement(3, 25); // [25,35)
      h.processElement(4, 15); // [15,25) touches both: [0,35)
      h.processElement(5, 100); // [100,110)
      h.processWatermark(200);
    } finally {
      TimeWindow.prototype.key = key;
    }
    assert.deepEqual(emitted(h), ['[0,35) 1,2,3,4', '[100,110) 5']);
    assert.equal(built, 0);
  });

  it("a grown session's old timer is retired where it is queued: never counted, listed, snapshotted or fired", () => {
    const { h } = contents(EventTimeSessionWindows.withGap(10), EventTimeTrigger.create());
    const timers = (harness: KeyedOperatorHarness<number, string>): string[] => {
      const listed: string[] = [];
      harness.timers.forEachTimer('event', (_service, t) => {
        const w = t.namespace as TimeWindow;
        listed.push(`${t.timestamp} ${String(t.key)} [${w.start},${w.end})`);
      });
      return listed;
    };
    const remove = TimerHeap.prototype.remove;
    let searched = 0;
    TimerHeap.prototype.remove = function (this: TimerHeap<unknown>, ...args) {
      searched++;
      return remove.apply(this, args);
    };
    try {
      h.processElement(1, 0); // [0,10), its timer at 9
      h.processElement(2, 5); // [0,15): the timer at 9 retired, one at 14
      h.processElement(3, 12); // [0,22): the timer at 14 retired, one at 21
      assert.equal(searched, 0, 'no old timer looked for');
    } finally {
      TimerHeap.prototype.remove = remove;
    }
    assert.equal(h.numEventTimeTimers(), 1);
    assert.deepEqual(timers(h), ['21 k [0,22)']);
    const snapshot = h.snapshot();
    h.processWatermark(14); // passes both retired timers: nothing fires
    assert.deepEqual(emitted(h), []);
    assert.equal(h.numEventTimeTimers(), 1);
    h.processElement(4, 20); // [0,30)
    assert.deepEqual(timers(h), ['29 k [0,30)']);
    h.processWatermark(29);
    assert.deepEqual(emitted(h), ['[0,30) 1,2,3,4']);
    assert.equal(h.numEventTimeTimers(), 0);
    assert.equal(h.numKeyedStateEntries(), 0);

    // Restored, the timer holds another window object than the key's set (an equal one): its move removes it.
    const again = contents(EventTimeSessionWindows.withGap(10), EventTimeTrigger.create(), {
      restore: snapshot,
    }).h;
    assert.deepEqual(timers(again), ['21 k [0,22)']);
    again.processElement(4, 20); // [0,30)
    assert.deepEqual(timers(again), ['29 k [0,30)']);
    again.processElement(5, 25); // [0,35): this timer's window is the set's, retired in place
    assert.deepEqual(timers(again), ['34 k [0,35)']);
    again.processWatermark(34);
    assert.deepEqual(emitted(again), ['[0,35) 1,2,3,4,5']);
    assert.equal(again.numEventTimeTimers(), 0);
    assert.equal(again.numKeyedStateEntries(), 0);
  });

  it("merging sessions clear the merged windows' triggers (no allowed lateness)", () => {
    const { h } = contents(EventTimeSessionWindows.withGap(10), EventTimeTrigger.create());
    h.processElement(1, 0);
    h.processElement(2, 5);
    assert.equal(h.numEventTimeTimers(), 1, 'only [0,15) at 14');
  });

  it("merging processing-time sessions delete the merged windows' cleanup timers", () => {
    const { h } = contents(ProcessingTimeSessionWindows.withGap(10), CountTrigger.of(100));
    h.processElement(1, 0);
    h.setProcessingTime(5);
    h.processElement(2, 0); // [0,10) and [5,15) merge into [0,15)
    assert.equal(h.numProcessingTimeTimers(), 1, 'only the cleanup of [0,15) at 14');
    assert.equal(h.numEventTimeTimers(), 0);
    h.setProcessingTime(14);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.deepEqual(emitted(h), []);
  });

  it('fixed-size windows whose starts share the heap backend hash (2^30 ms apart) keep their panes apart', () => {
    const size = 2 ** 29;
    const { h } = contents(TumblingEventTimeWindows.of(size), EventTimeTrigger.create());
    h.processElement(1, 1);
    h.processElement(2, 2 ** 30 + 1);
    h.processElement(3, 2);
    h.processElement(4, 2 ** 30 + 2);
    assert.equal(h.numKeyedStateEntries(), 2);
    h.processWatermark(size - 1);
    assert.deepEqual(emitted(h), ['[0,536870912) 1,3']);
    assert.equal(h.numKeyedStateEntries(), 1);
    h.processWatermark(Number.POSITIVE_INFINITY);
    assert.deepEqual(emitted(h), ['[0,536870912) 1,3', '[1073741824,1610612736) 2,4']);
    assert.equal(h.numKeyedStateEntries(), 0);
  });

  it('a timer firing an empty pane (purged earlier) calls no function', () => {
    const { h } = contents(
      TumblingEventTimeWindows.of(100),
      PurgingTrigger.of(ContinuousEventTimeTrigger.of(10)),
    );
    h.processElement(1, 5);
    h.processWatermark(10);
    h.processWatermark(20);
    h.processWatermark(99);
    assert.deepEqual(emitted(h), ['[0,100) 1']);
  });

  it('a timer firing a pane its evictor emptied calls no function', () => {
    const { h } = contents(TumblingEventTimeWindows.of(100), ContinuousEventTimeTrigger.of(10), {
      evictor: CountEvictor.of(0, true),
    });
    h.processElement(1, 5);
    h.processWatermark(10);
    h.processWatermark(20);
    h.processElement(2, 25);
    h.processWatermark(30);
    assert.deepEqual(emitted(h), ['[0,100) 1', '[0,100) 2']);
  });

  it('a timer firing a reduced pane that was purged calls no function', () => {
    const h = new KeyedOperatorHarness<number, number>(
      () =>
        new WindowOperator<string, number, number, number, TimeWindow>({
          assigner: TumblingEventTimeWindows.of(100),
          trigger: PurgingTrigger.of(ContinuousEventTimeTrigger.of(10)),
          windowStateDescriptor: new ReducingStateDescriptor<number>('window-contents', (a, b) => a + b),
          windowFunction: new PassThroughWindowFunction<number>() as never,
          allowedLateness: 0,
          lateDataOutputTag: undefined,
        }),
      () => 'k',
    );
    h.processElement(1, 5);
    h.processElement(2, 6);
    h.processWatermark(10);
    h.processWatermark(20);
    assert.deepEqual(
      h.records().map((r) => r.value),
      [3],
    );
  });

  it('processing-time windows are cleaned up at their end, whatever the allowed lateness', () => {
    const { h } = contents(TumblingProcessingTimeWindows.of(100), ProcessingTimeTrigger.create(), {
      lateness: 50,
    });
    h.processElement(1, 0);
    h.setProcessingTime(99);
    assert.deepEqual(emitted(h), ['[0,100) 1']);
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numProcessingTimeTimers(), 0);
  });

  it('an evictor works with the window-end trigger on non-merging windows', () => {
    const { h } = contents(TumblingEventTimeWindows.of(100), EventTimeTrigger.create(), {
      evictor: CountEvictor.of(2),
    });
    for (const ts of [1, 2, 3]) h.processElement(ts, ts);
    h.processWatermark(99);
    assert.deepEqual(emitted(h), ['[0,100) 2,3']);
  });

  it('an element no window takes is dropped, and counted late only if it is behind the watermark', () => {
    const { h, operator } = contents(new EvenOnly(), EventTimeTrigger.create());
    h.processWatermark(100);
    h.processElement(1, 150); // ahead of the watermark: not late
    assert.equal(operator.numLateRecordsDropped, 0);
    h.processElement(3, 50); // behind it
    assert.equal(operator.numLateRecordsDropped, 1);
    h.processElement(2, 150);
    h.processWatermark(199);
    assert.deepEqual(emitted(h), ['[100,200) 2']);
  });
});
