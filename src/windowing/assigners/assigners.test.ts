// Window assigners and TimeWindow, as Flink's *WindowsTest and TimeWindowTest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, IllegalStateError } from '../../core/errors.ts';
import { GlobalWindow, globalWindowSerializer } from '../global-window.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { NeverTrigger } from '../triggers/never-trigger.ts';
import { ProcessingTimeTrigger } from '../triggers/processing-time-trigger.ts';
import type { WindowAssignerContext } from '../window-assigner.ts';
import { DynamicEventTimeSessionWindows } from './dynamic-event-time-session-windows.ts';
import { EventTimeSessionWindows } from './event-time-session-windows.ts';
import { GlobalWindows } from './global-windows.ts';
import { ProcessingTimeSessionWindows } from './processing-time-session-windows.ts';
import { SlidingEventTimeWindows } from './sliding-event-time-windows.ts';
import { SlidingProcessingTimeWindows } from './sliding-processing-time-windows.ts';
import { TumblingEventTimeWindows } from './tumbling-event-time-windows.ts';
import { TumblingProcessingTimeWindows } from './tumbling-processing-time-windows.ts';
import { WindowListCache } from './window-list-cache.ts';
import { SeededRandom } from '../../connectors/seeded-random.ts';

const ctx = (now = 0): WindowAssignerContext => ({ getCurrentProcessingTime: () => now });
const w = (start: number, end: number) => new TimeWindow(start, end);
const bounds = (windows: readonly TimeWindow[]) => windows.map((x) => [x.start, x.end]);

describe('TimeWindow', () => {
  it('getWindowStartWithOffset handles offsets and negative timestamps', () => {
    assert.equal(TimeWindow.getWindowStartWithOffset(1, 0, 7), 0);
    assert.equal(TimeWindow.getWindowStartWithOffset(7, 0, 7), 7);
    assert.equal(TimeWindow.getWindowStartWithOffset(-1, 0, 7), -7);
    assert.equal(TimeWindow.getWindowStartWithOffset(-7, 0, 7), -7);
    assert.equal(TimeWindow.getWindowStartWithOffset(1, 1, 7), 1);
    assert.equal(TimeWindow.getWindowStartWithOffset(0, 1, 7), -6);
    assert.equal(TimeWindow.getWindowStartWithOffset(-1, -1, 7), -1);
  });

  it('intersects (touching counts), cover, maxTimestamp, equality of keys', () => {
    assert.ok(w(0, 5).intersects(w(5, 10)));
    assert.ok(!w(0, 5).intersects(w(6, 10)));
    assert.deepEqual(bounds([w(0, 5).cover(w(3, 12))]), [[0, 12]]);
    assert.equal(w(0, 1000).maxTimestamp(), 999);
    assert.equal(timeWindowSerializer.key(w(1, 2)), timeWindowSerializer.key(w(1, 2)));
    assert.notEqual(timeWindowSerializer.key(w(1, 2)), timeWindowSerializer.key(w(1, 3)));
    assert.equal(String(w(0, 3)), 'TimeWindow{start=0, end=3}');
  });

  it('serializes to bytes and back', () => {
    for (const s of [timeWindowSerializer, fixedSizeTimeWindowSerializer]) {
      const back = s.serializer.deserialize(s.serializer.serialize(w(-5, 1e12)));
      assert.ok(back instanceof TimeWindow && back.equals(w(-5, 1e12)));
    }
    assert.equal(
      globalWindowSerializer.serializer.deserialize(
        globalWindowSerializer.serializer.serialize(GlobalWindow.get()),
      ),
      GlobalWindow.get(),
    );
  });

  it('mergeWindows groups overlapping windows after sorting by start', () => {
    const calls: [number[][], number[]][] = [];
    TimeWindow.mergeWindows(
      [w(10, 15), w(0, 3), w(2, 5), w(20, 25), w(14, 18), w(30, 31)],
      (merged, result) => calls.push([bounds(merged), [result.start, result.end]]),
    );
    assert.deepEqual(calls, [
      [
        [
          [0, 3],
          [2, 5],
        ],
        [0, 5],
      ],
      [
        [
          [10, 15],
          [14, 18],
        ],
        [10, 18],
      ],
    ]);
  });
});

describe('assigners', () => {
  it('TumblingEventTimeWindows', () => {
    const a = TumblingEventTimeWindows.of(5000);
    assert.deepEqual(bounds(a.assignWindows(null, 0, ctx())), [[0, 5000]]);
    assert.deepEqual(bounds(a.assignWindows(null, 4999, ctx())), [[0, 5000]]);
    assert.deepEqual(bounds(a.assignWindows(null, 5000, ctx())), [[5000, 10000]]);
    assert.deepEqual(bounds(a.assignWindows(null, -1, ctx())), [[-5000, 0]]);
    const o = TumblingEventTimeWindows.of(5000, 100);
    assert.deepEqual(bounds(o.assignWindows(null, 100, ctx())), [[100, 5100]]);
    assert.deepEqual(bounds(o.assignWindows(null, 5099, ctx())), [[100, 5100]]);
    assert.deepEqual(bounds(o.assignWindows(null, 5100, ctx())), [[5100, 10100]]);
    assert.ok(a.isEventTime());
    assert.equal(a.getDefaultTrigger(), EventTimeTrigger.create());
    assert.equal(String(a), 'TumblingEventTimeWindows(5000)');
    // Consecutive elements of one window share the cached array (no allocation per element).
    assert.equal(a.assignWindows(null, 1, ctx()), a.assignWindows(null, 2, ctx()));
    assert.throws(() => a.assignWindows(null, Number.NaN, ctx()), IllegalStateError);
  });

  it('rejects invalid parameters when the job is built', () => {
    assert.throws(() => TumblingEventTimeWindows.of(-1), ConfigurationError);
    assert.throws(() => TumblingEventTimeWindows.of(10000, 20000), /abs\(offset\) < size/);
    assert.throws(() => TumblingEventTimeWindows.of(10000, -11000), ConfigurationError);
    assert.throws(() => TumblingProcessingTimeWindows.of(0), ConfigurationError);
    assert.throws(() => SlidingEventTimeWindows.of(-2, 1), /size > 0/);
    assert.throws(() => SlidingEventTimeWindows.of(2000, 1000, 1000), /abs\(offset\) < slide/);
    assert.throws(() => SlidingProcessingTimeWindows.of(2000, -1), ConfigurationError);
    assert.throws(() => EventTimeSessionWindows.withGap(0), /0 < size/);
    assert.throws(() => ProcessingTimeSessionWindows.withGap(-1), ConfigurationError);
  });

  it('SlidingEventTimeWindows lists windows latest start first', () => {
    const a = SlidingEventTimeWindows.of(5000, 1000);
    assert.deepEqual(bounds(a.assignWindows(null, 0, ctx())), [
      [0, 5000],
      [-1000, 4000],
      [-2000, 3000],
      [-3000, 2000],
      [-4000, 1000],
    ]);
    assert.deepEqual(bounds(a.assignWindows(null, 4999, ctx())), [
      [4000, 9000],
      [3000, 8000],
      [2000, 7000],
      [1000, 6000],
      [0, 5000],
    ]);
    assert.deepEqual(bounds(a.assignWindows(null, 5000, ctx())), [
      [5000, 10000],
      [4000, 9000],
      [3000, 8000],
      [2000, 7000],
      [1000, 6000],
    ]);
    const o = SlidingEventTimeWindows.of(5000, 1000, 100);
    assert.deepEqual(bounds(o.assignWindows(null, 100, ctx())), [
      [100, 5100],
      [-900, 4100],
      [-1900, 3100],
      [-2900, 2100],
      [-3900, 1100],
    ]);
    // A size that is not a multiple of the slide: the count depends on where in the slide the element is.
    const odd = SlidingEventTimeWindows.of(5, 3);
    assert.deepEqual(bounds(odd.assignWindows(null, 3, ctx())), [
      [3, 8],
      [0, 5],
    ]);
    assert.deepEqual(bounds(odd.assignWindows(null, 5, ctx())), [[3, 8]]);
  });

  it('hands out one window object per window start, out of order across a boundary too', () => {
    const tumbling = TumblingEventTimeWindows.of(1000);
    const [a] = tumbling.assignWindows(null, 999, ctx());
    const [b] = tumbling.assignWindows(null, 1000, ctx());
    assert.equal(tumbling.assignWindows(null, 998, ctx())[0], a, 'the window before the boundary');
    assert.equal(tumbling.assignWindows(null, 1001, ctx())[0], b);
    assert.notEqual(tumbling.assignWindows(null, 2000, ctx())[0], a);
    assert.equal(tumbling.assignWindows(null, 1500, ctx())[0], b, 'the last two windows are kept');
    assert.deepEqual(bounds(tumbling.assignWindows(null, 10, ctx())), [[0, 1000]]);

    const sliding = SlidingEventTimeWindows.of(5000, 1000);
    const first = sliding.assignWindows(null, 999, ctx());
    const second = sliding.assignWindows(null, 1000, ctx());
    assert.deepEqual(bounds(second), [
      [1000, 6000],
      [0, 5000],
      [-1000, 4000],
      [-2000, 3000],
      [-3000, 2000],
    ]);
    assert.deepEqual(second.slice(1), first.slice(0, 4), 'the windows both lists hold are the same objects');
    for (let i = 1; i < 5; i++) assert.equal(second[i], first[i - 1]);
    assert.equal(sliding.assignWindows(null, 998, ctx()), first, 'back across the boundary: the cached list');
    assert.equal(sliding.assignWindows(null, 1001, ctx()), second);
    const third = sliding.assignWindows(null, 2000, ctx());
    assert.equal(third[1], second[0], 'a new list takes the objects of the last one');
    assert.equal(third[4], first[2]);
    assert.equal(sliding.assignWindows(null, 1999, ctx()), second, 'and keeps the list before it');

    // A size that is not a multiple of the slide: lists of two lengths within one slide, each reused.
    const odd = SlidingEventTimeWindows.of(5, 3);
    const long = odd.assignWindows(null, 3, ctx());
    const short = odd.assignWindows(null, 5, ctx());
    assert.deepEqual(bounds(short), [[3, 8]]);
    assert.equal(short[0], long[0]);
    assert.equal(odd.assignWindows(null, 4, ctx()), long);
    assert.equal(odd.assignWindows(null, 5, ctx()), short);
  });

  it("event-time assigners answer as Flink's formula does, on runs of times with the latest slide skipping the start", () => {
    // Reference: the start by Flink's formula for every element, then its windows, latest start first.
    // -0 and 0 are one start (they are ===, and Java's longs have no -0): both read as 0.
    const reference = (timestamp: number, size: number, slide: number, offset: number) => {
      const lastStart = TimeWindow.getWindowStartWithOffset(timestamp, offset, slide);
      const windows: [number, number][] = [];
      for (let start = lastStart; start > timestamp - size; start -= slide)
        windows.push([start + 0, start + size + 0]);
      return windows;
    };
    const assigned = (windows: readonly TimeWindow[]) => windows.map((x) => [x.start + 0, x.end + 0]);
    const random = new SeededRandom(20261203);
    const pick = <T>(xs: readonly T[]): T => xs[random.nextInt(xs.length)]!;
    for (let round = 0; round < 300; round++) {
      const slide = pick([1, 3, 7, 1000, 2000, 0.5, 2.5]);
      const size = slide * pick([1, 1, 2, 5]) + (random.nextBoolean(0.2) ? 1 : 0);
      const offset = random.nextBoolean(0.5) ? 0 : pick([1, -1, 0.25]) * Math.floor(random.next() * slide);
      const assigner =
        size === slide && random.nextBoolean(0.5)
          ? TumblingEventTimeWindows.of(size, offset)
          : SlidingEventTimeWindows.of(size, slide, offset);
      // Near 2^53 only whole slides: there a fractional slide is below the spacing of doubles, where Flink's loop
      // of subtractions (and ours) would not advance.
      const origins = [0, -5_000, 1_764_800_000_000, 2 ** 51 - 3_000, -(2 ** 51)];
      const origin = pick(Number.isInteger(slide) ? [...origins, 2 ** 53 - 5_000] : origins);
      // The same lists through the cache's formula path alone (no offset given: it never skips the start), whose
      // window objects must pair one to one with the assigner's: the skip hands out the same objects, not only
      // equal windows (the timers of a window end are one list of keys only while they share one object).
      const formulaOnly = new WindowListCache(size, slide);
      const toAssigned = new Map<TimeWindow, TimeWindow>();
      const toFormula = new Map<TimeWindow, TimeWindow>();
      let time = origin;
      for (let i = 0; i < 200; i++) {
        // Mostly forward in whole milliseconds, some jitter back across a boundary, some fractions and jumps.
        const step = random.nextInt(10);
        time +=
          step < 6
            ? random.nextInt(Math.ceil(slide / 2) + 1)
            : step < 8
              ? -random.nextInt(Math.ceil(slide) + 2)
              : step < 9
                ? random.next() * slide
                : random.nextInt(Math.ceil(size) * 3 + 1);
        const timestamp = random.nextBoolean(0.05) ? -0 : time;
        const where = `${String(assigner)} offset ${offset} at ${timestamp} (round ${round}, element ${i})`;
        const windows = assigner.assignWindows(null, timestamp, ctx());
        assert.deepEqual(assigned(windows), reference(timestamp, size, slide, offset), where);
        const lastStart = TimeWindow.getWindowStartWithOffset(timestamp, offset, slide);
        const same = formulaOnly.windowsFor(
          lastStart,
          assigner instanceof TumblingEventTimeWindows ? lastStart : timestamp,
        );
        for (let k = 0; k < windows.length; k++) {
          assert.equal(toAssigned.get(same[k]!) ?? windows[k], windows[k], where);
          assert.equal(toFormula.get(windows[k]!) ?? same[k], same[k], where);
          toAssigned.set(same[k]!, windows[k]!);
          toFormula.set(windows[k]!, same[k]!);
        }
      }
    }
  });

  it('processing-time assigners use the clock, not the timestamp', () => {
    assert.deepEqual(bounds(TumblingProcessingTimeWindows.of(1000).assignWindows(null, 99_999, ctx(1500))), [
      [1000, 2000],
    ]);
    assert.deepEqual(bounds(SlidingProcessingTimeWindows.of(2000, 1000).assignWindows(null, 0, ctx(1500))), [
      [1000, 3000],
      [0, 2000],
    ]);
    assert.deepEqual(bounds(ProcessingTimeSessionWindows.withGap(300).assignWindows(null, 0, ctx(1500))), [
      [1500, 1800],
    ]);
    assert.equal(TumblingProcessingTimeWindows.of(1000).getDefaultTrigger(), ProcessingTimeTrigger.create());
    assert.ok(!ProcessingTimeSessionWindows.withGap(1).isEventTime());
  });

  it('session windows, static and dynamic gaps', () => {
    const a = EventTimeSessionWindows.withGap(5000);
    assert.deepEqual(bounds(a.assignWindows(null, 0, ctx())), [[0, 5000]]);
    assert.deepEqual(bounds(a.assignWindows(null, 4999, ctx())), [[4999, 9999]]);
    const d = DynamicEventTimeSessionWindows.withDynamicGap((n: number) => n);
    assert.deepEqual(bounds(d.assignWindows(7, 10, ctx())), [[10, 17]]);
    assert.throws(() => d.assignWindows(0, 10, ctx()), /0 < gap/);
    assert.ok(
      EventTimeSessionWindows.withDynamicGap((n: number) => n) instanceof DynamicEventTimeSessionWindows,
    );
  });

  it('GlobalWindows', () => {
    const a = GlobalWindows.create();
    assert.deepEqual(a.assignWindows(null, 5, ctx()), [GlobalWindow.get()]);
    assert.ok(a.getDefaultTrigger() instanceof NeverTrigger);
    assert.ok(!a.isEventTime());
    assert.equal(GlobalWindow.get().maxTimestamp(), Infinity);
  });
});
