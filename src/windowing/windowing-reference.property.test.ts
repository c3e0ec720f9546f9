// Property tests: tumbling, sliding and session windows agree with a naive reference on random out-of-order input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertAsyncProperty } from '../../test/support/property.ts';
import type { DataStream } from '../api/data-stream.ts';
import { OutputTag } from '../core/output-tag.ts';
import { TestHarness } from '../testing/index.ts';
import { EventTimeSessionWindows } from './assigners/event-time-session-windows.ts';
import { SlidingEventTimeWindows } from './assigners/sliding-event-time-windows.ts';
import { TumblingEventTimeWindows } from './assigners/tumbling-event-time-windows.ts';
import type { WindowAssigner } from './window-assigner.ts';
import type { TimeWindow } from './time-window.ts';
import { WindowedStream } from '../api/windowed-stream.ts';

type Event = { key: string; v: number };
type Step = { kind: 'e'; key: string; v: number; dt: number } | { kind: 'w'; advance: number; nudge: number };
type Out = { value: string; timestamp: number } | { watermark: number };

const FINAL_WATERMARK = 1e9;

/** Offsets in steps of 100 ms, nudged by ±1, so elements and watermarks often sit exactly on window bounds. */
const offset = fc
  .tuple(
    fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -30, max: 30 })),
    fc.constantFrom(-1, 0, 0, 1),
  )
  .map(([hundreds, nudge]) => hundreds * 100 + nudge);

const steps = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('e' as const),
        key: fc.constantFrom('a', 'b', 'c'),
        v: fc.integer({ min: 1, max: 9 }),
        dt: offset,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('w' as const),
        advance: fc.integer({ min: 1, max: 20 }),
        nudge: fc.constantFrom(-1, 0, 1),
      }),
    },
  ),
  { maxLength: 40 },
);

/**
 * Turns steps into timestamps on a 100 ms grid nudged by ±1, so watermarks and elements often sit exactly on a
 * window's max timestamp or cleanup time (where off-by-one errors live). Elements land around the current
 * watermark (some late); watermarks only rise.
 */
function* timeline(input: Step[]): Generator<{ event: Event; ts: number } | { watermark: number }> {
  let grid = 0;
  let wm = Number.NEGATIVE_INFINITY;
  for (const s of input) {
    if (s.kind === 'w') {
      grid += s.advance * 100;
      const next = grid + s.nudge;
      if (next > wm) yield { watermark: (wm = next) };
    } else yield { event: { key: s.key, v: s.v }, ts: Math.max(0, grid + s.dt) };
  }
  yield { watermark: FINAL_WATERMARK };
}

interface Pane {
  key: string;
  start: number;
  end: number;
  sum: number;
  timer: boolean;
}

/**
 * The reference: EventTimeTrigger + reduce(sum) + allowed lateness, as Flink specifies them, over plain lists.
 * A pane fires when the watermark passes its end (or at once, for an element within the lateness of a closed
 * window); it is dropped at end + lateness; an element no pane accepts is late when ts + lateness <= watermark.
 */
function reference(
  input: Step[],
  lateness: number,
  windowsOf: ((ts: number) => [number, number][]) | 'session',
  gap = 0,
) {
  const out: Out[] = [];
  const late: number[] = [];
  const panes: Pane[] = [];
  let wm = Number.NEGATIVE_INFINITY;
  const emit = (p: Pane) => out.push({ value: `${p.key}:${p.sum}`, timestamp: p.end - 1 });
  const add = (p: Pane, v: number) => {
    p.sum += v;
    if (p.end - 1 <= wm) emit(p);
    else p.timer = true;
  };
  for (const step of timeline(input)) {
    if ('watermark' in step) {
      wm = step.watermark;
      for (const p of panes) {
        if (p.timer && p.end - 1 <= wm) {
          emit(p);
          p.timer = false;
        }
      }
      for (let i = panes.length - 1; i >= 0; i--) if (panes[i]!.end - 1 + lateness <= wm) panes.splice(i, 1);
      out.push({ watermark: wm });
      continue;
    }
    const { event, ts } = step;
    let skipped = true;
    if (windowsOf === 'session') {
      const start = ts;
      const end = ts + gap;
      const overlapping = panes.filter((p) => p.key === event.key && p.start <= end && p.end >= start);
      if (overlapping.length === 0) {
        if (end - 1 + lateness > wm) {
          skipped = false;
          const p = { key: event.key, start, end, sum: 0, timer: false };
          panes.push(p);
          add(p, event.v);
        }
      } else {
        skipped = false;
        const merged: Pane = { key: event.key, start, end, sum: 0, timer: false };
        for (const p of overlapping) {
          merged.start = Math.min(merged.start, p.start);
          merged.end = Math.max(merged.end, p.end);
          merged.sum += p.sum;
          panes.splice(panes.indexOf(p), 1);
        }
        panes.push(merged);
        add(merged, event.v);
      }
    } else {
      for (const [start, end] of windowsOf(ts)) {
        if (end - 1 + lateness <= wm) continue;
        skipped = false;
        let p = panes.find((x) => x.key === event.key && x.start === start);
        if (p === undefined) panes.push((p = { key: event.key, start, end, sum: 0, timer: false }));
        add(p, event.v);
      }
    }
    if (skipped && ts + lateness <= wm) late.push(ts);
  }
  return { out, late };
}

/** Records between two watermarks, sorted (their order depends on timer registration order only). */
function segments(output: readonly Out[]): unknown[] {
  const result: unknown[] = [];
  let records: string[] = [];
  for (const o of output) {
    if ('watermark' in o) {
      result.push(records.sort(), o.watermark);
      records = [];
    } else records.push(`${o.timestamp} ${o.value}`);
  }
  result.push(records.sort());
  return result;
}

async function runWeir(
  input: Step[],
  assigner: WindowAssigner<Event, TimeWindow>,
  lateness: number,
  parallelism: number,
) {
  const lateTag = new OutputTag<Event>('late');
  const h = await TestHarness.create(
    (s: DataStream<Event>) =>
      new WindowedStream(
        s.keyBy((e) => e.key),
        assigner,
      )
        .allowedLateness(lateness)
        .sideOutputLateData(lateTag)
        .reduce((a, b) => ({ key: b.key, v: a.v + b.v }))
        .map((e) => `${e.key}:${e.v}`),
    { parallelism },
  );
  for (const step of timeline(input)) {
    if ('watermark' in step) h.processWatermark(step.watermark);
    else h.processElement(step.event, step.ts);
  }
  const out = h
    .output()
    .map((o) => ('value' in o ? { value: o.value, timestamp: o.timestamp! } : { watermark: o.watermark }));
  const late = h.sideOutput(lateTag).map((r) => r.timestamp!);
  const entries = h.numKeyedStateEntries();
  const timers = h.numEventTimeTimers();
  await h.close();
  return { out, late, entries, timers };
}

const settings = { numRuns: 250 };

describe('windows agree with a naive reference', () => {
  it('tumbling event-time windows', async () => {
    await assertAsyncProperty(
      fc.asyncProperty(
        steps,
        fc.constantFrom(500, 1000, 1500),
        fc.constantFrom(0, 400, 2000),
        fc.integer({ min: 1, max: 3 }),
        async (input, size, lateness, parallelism) => {
          const expected = reference(input, lateness, (ts) => {
            const start = ts - (ts % size);
            return [[start, start + size]];
          });
          const actual = await runWeir(input, TumblingEventTimeWindows.of(size), lateness, parallelism);
          assert.deepEqual(segments(actual.out), segments(expected.out));
          assert.deepEqual([...actual.late].sort(), [...expected.late].sort());
          assert.equal(actual.entries, 0, 'no state left after the final watermark');
          assert.equal(actual.timers, 0, 'no timers left after the final watermark');
        },
      ),
      {
        ...settings,
        // The boundary cases: an element exactly at the watermark and at its window's max timestamp (late with
        // zero lateness), and one exactly at a window's cleanup time with lateness.
        examples: [
          [
            [
              { kind: 'w', advance: 10, nudge: -1 },
              { kind: 'e', key: 'a', v: 1, dt: -1 },
            ],
            1000,
            0,
            1,
          ],
          [
            [
              { kind: 'w', advance: 14, nudge: -1 },
              { kind: 'e', key: 'a', v: 1, dt: -401 },
            ],
            1000,
            400,
            1,
          ],
        ],
      },
    );
  });

  it('sliding event-time windows (size a multiple of the slide or not)', async () => {
    await assertAsyncProperty(
      fc.asyncProperty(
        steps,
        fc.constantFrom([1000, 500], [1500, 500], [1000, 300], [700, 700]),
        fc.constantFrom(0, 600),
        fc.integer({ min: 1, max: 3 }),
        async (input, [size, slide], lateness, parallelism) => {
          const expected = reference(input, lateness, (ts) => {
            const windows: [number, number][] = [];
            for (let start = ts - (ts % slide); start > ts - size; start -= slide)
              windows.push([start, start + size]);
            return windows;
          });
          const actual = await runWeir(input, SlidingEventTimeWindows.of(size, slide), lateness, parallelism);
          assert.deepEqual(segments(actual.out), segments(expected.out));
          assert.deepEqual([...actual.late].sort(), [...expected.late].sort());
          assert.equal(actual.entries, 0);
          assert.equal(actual.timers, 0);
        },
      ),
      settings,
    );
  });

  it('event-time session windows', async () => {
    await assertAsyncProperty(
      fc.asyncProperty(
        steps,
        fc.constantFrom(300, 1000, 2000),
        fc.constantFrom(0, 500, 3000),
        fc.integer({ min: 1, max: 3 }),
        async (input, gap, lateness, parallelism) => {
          const expected = reference(input, lateness, 'session', gap);
          const actual = await runWeir(input, EventTimeSessionWindows.withGap(gap), lateness, parallelism);
          assert.deepEqual(segments(actual.out), segments(expected.out));
          assert.deepEqual([...actual.late].sort(), [...expected.late].sort());
          assert.equal(actual.entries, 0);
          assert.equal(actual.timers, 0);
        },
      ),
      settings,
    );
  });
});
