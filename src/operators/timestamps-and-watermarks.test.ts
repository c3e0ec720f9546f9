// TimestampsAndWatermarks driven by hand: assigned timestamps, rising watermarks only, idleness, and the periodic
// emission rule (record counts in deterministic mode, the clock for unbounded inputs or in processing-time mode).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../core/clock.ts';
import { createLogger } from '../core/logger.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { WatermarkStrategy } from '../time/watermark-strategy.ts';
import type { WatermarkEmission } from '../time/watermark-emission.ts';
import type { Output } from './output.ts';
import type { OperatorContext } from './stream-operator.ts';
import { TimestampsAndWatermarks } from './timestamps-and-watermarks.ts';
import { TimestampsAndWatermarksOperator } from './timestamps-and-watermarks-operator.ts';

class Trace implements Output<string> {
  readonly events: string[] = [];
  collect(value: string, timestamp: number): void {
    this.events.push(`r:${value}@${timestamp}`);
  }
  collectSide<X>(_tag: OutputTag<X>, _value: X): void {}
  emitWatermark(watermark: number): void {
    this.events.push(`w:${watermark}`);
  }
  emitWatermarkStatus(idle: boolean): void {
    this.events.push(idle ? 'idle' : 'active');
  }
}

/** 'idle' / 'active' mark the input, 'w<n>' emits watermark n; periodic emits are traced with the last event. */
function scripted(trace: Trace): WatermarkStrategy<string> {
  return WatermarkStrategy.forGenerator<string>(() => {
    let last = '-';
    return {
      onEvent(v, _ts, out) {
        last = v;
        if (v === 'idle') out.markIdle();
        else if (v === 'active') out.markActive();
        else if (v.startsWith('w')) out.emitWatermark(Number(v.slice(1)));
      },
      onPeriodicEmit() {
        trace.events.push(`periodic ${last}`);
      },
    };
  });
}

function setup(
  emission: WatermarkEmission,
  bounded = false,
  strategy?: (t: Trace) => WatermarkStrategy<string>,
) {
  const clock = new ManualClock(0);
  const trace = new Trace();
  const logger = createLogger({
    level: 'info',
    stream: {
      write: (line: string) =>
        trace.events.push(
          line
            .trimEnd()
            .replace(/^.*weir: /, '')
            .replace(/:.*/, ''),
        ),
    },
  });
  const context = { operatorName: 'stamps', subtaskIndex: 0, clock, logger } as unknown as OperatorContext;
  const tw = new TimestampsAndWatermarks((strategy ?? scripted)(trace), context, trace, emission, bounded);
  tw.startPeriodicEmission();
  /** What the operators do per record: assign, forward, then let the generator see it. */
  const record = (value: string, timestamp = Number.NaN) => {
    const ts = tw.assignTimestamp(value, timestamp);
    trace.collect(value, ts);
    tw.onEvent(value, ts);
  };
  return { clock, trace, tw, record };
}

const CLOCK_100: WatermarkEmission = { mode: 'processing-time', intervalMs: 100, everyRecords: 1 };

describe('TimestampsAndWatermarks', () => {
  it('emits only rising watermarks', () => {
    const { trace, record } = setup(CLOCK_100);
    record('w10', 1);
    record('w10', 2);
    record('w5', 3);
    record('w11', 4);
    assert.deepEqual(trace.events, ['r:w10@1', 'w:10', 'r:w10@2', 'r:w5@3', 'r:w11@4', 'w:11']);
  });

  it('marks idle and active once each, logging both; a watermark makes an idle input active first', () => {
    const { trace, record } = setup(CLOCK_100);
    record('active', 1);
    record('idle', 2);
    record('idle', 3);
    record('w7', 4);
    record('w7', 5);
    assert.deepEqual(trace.events, [
      'r:active@1',
      'r:idle@2',
      "'stamps' (subtask 0) is idle",
      'idle',
      'r:idle@3',
      'r:w7@4',
      "'stamps' (subtask 0) is active again",
      'active',
      'w:7',
      'r:w7@5',
    ]);
    trace.events.length = 0;
    record('idle', 6);
    record('active', 7);
    record('active', 8);
    assert.deepEqual(trace.events, [
      'r:idle@6',
      "'stamps' (subtask 0) is idle",
      'idle',
      'r:active@7',
      "'stamps' (subtask 0) is active again",
      'active',
      'r:active@8',
    ]);
  });

  it('a watermark that does not rise leaves an idle input idle (as Flink)', () => {
    const { trace, record } = setup(CLOCK_100);
    record('w7', 1);
    record('idle', 2);
    record('w7', 3);
    record('w6', 4);
    assert.deepEqual(trace.events, [
      'r:w7@1',
      'w:7',
      'r:idle@2',
      "'stamps' (subtask 0) is idle",
      'idle',
      'r:w7@3',
      'r:w6@4',
    ]);
  });

  it('a cut runs one periodic emit and gives the position; a restore restates it, and nothing lower leaves', () => {
    const { trace, tw, record } = setup(CLOCK_100);
    record('w7', 1);
    record('idle', 2);
    assert.deepEqual(tw.state(), { watermark: 7, idle: true });
    tw.emitPeriodicNow();
    assert.equal(trace.events.at(-1), 'periodic idle');
    const fresh = setup(CLOCK_100);
    fresh.tw.restore({ watermark: 7, idle: true });
    fresh.record('w5', 3);
    fresh.record('w8', 4);
    assert.deepEqual(fresh.trace.events, [
      'w:7',
      "'stamps' (subtask 0) is idle",
      'idle',
      'r:w5@3',
      'r:w8@4',
      "'stamps' (subtask 0) is active again",
      'active',
      'w:8',
    ]);
    const never = setup(CLOCK_100);
    never.tw.restore({ watermark: Number.NEGATIVE_INFINITY, idle: false });
    assert.deepEqual(never.trace.events, []);
  });

  it('deterministic mode: a periodic emit after every everyRecords-th record; processing-time mode: none', () => {
    const det = setup({ mode: 'deterministic', intervalMs: 0, everyRecords: 2 });
    for (const v of ['a', 'b', 'c', 'd', 'e']) det.record(v, 1);
    assert.deepEqual(det.trace.events, [
      'r:a@1',
      'r:b@1',
      'periodic b',
      'r:c@1',
      'r:d@1',
      'periodic d',
      'r:e@1',
    ]);
    const pt = setup({ mode: 'processing-time', intervalMs: 0, everyRecords: 2 });
    for (const v of ['a', 'b', 'c']) pt.record(v, 1);
    assert.deepEqual(pt.trace.events, ['r:a@1', 'r:b@1', 'r:c@1']);
  });

  it('the clock emits every interval for unbounded inputs, or in processing-time mode; not with interval 0', () => {
    for (const [emission, bounded, expected] of [
      [{ mode: 'deterministic', intervalMs: 100, everyRecords: 1_000 }, false, 2],
      [{ mode: 'deterministic', intervalMs: 100, everyRecords: 1_000 }, true, 0],
      [{ mode: 'processing-time', intervalMs: 100, everyRecords: 1_000 }, true, 2],
      [{ mode: 'processing-time', intervalMs: 0, everyRecords: 1_000 }, false, 0],
    ] as const) {
      const { clock, trace, record } = setup(emission, bounded);
      record('a', 1);
      clock.advanceTo(99);
      assert.deepEqual(trace.events, ['r:a@1']);
      clock.advanceTo(100);
      clock.advanceTo(150);
      clock.advanceTo(200);
      assert.equal(trace.events.filter((e) => e === 'periodic a').length, expected, JSON.stringify(emission));
    }
  });

  it('finish: one last periodic emit, then none; stop: none at all', () => {
    const f = setup(CLOCK_100);
    f.record('a', 1);
    f.tw.finish();
    f.tw.finish();
    f.clock.advanceTo(500);
    assert.deepEqual(f.trace.events, ['r:a@1', 'periodic a']);
    const s = setup(CLOCK_100);
    s.record('a', 1);
    s.tw.stop();
    s.clock.advanceTo(500);
    s.tw.finish();
    assert.deepEqual(s.trace.events, ['r:a@1']);
  });

  it("without an assigner the record's timestamp stays; an assigner sees it (or none) and must return a number", () => {
    const plain = setup(CLOCK_100);
    assert.equal(plain.tw.assignTimestamp('a', 5), 5);
    assert.ok(Number.isNaN(plain.tw.assignTimestamp('a', Number.NaN)));
    const seen: string[] = [];
    const { tw } = setup(CLOCK_100, false, () =>
      WatermarkStrategy.forMonotonousTimestamps<string>().withTimestampAssigner((v, ts) => {
        seen.push(`${v}:${ts}`);
        return v === 'nan' ? Number.NaN : v === 'text' ? ('12' as never) : (ts ?? 99);
      }),
    );
    assert.equal(tw.assignTimestamp('x', 5), 5);
    assert.equal(tw.assignTimestamp('y', Number.NaN), 99);
    for (const [bad, shown] of [
      ['nan', 'NaN'],
      ['text', '12'],
    ]) {
      assert.throws(
        () => tw.assignTimestamp(bad!, 1),
        (e: unknown) =>
          e instanceof TypeError &&
          e.message === `The timestamp assigner returned ${shown}, not a number of milliseconds`,
      );
    }
    assert.deepEqual(seen, ['x:5', 'y:undefined', 'nan:1', 'text:1']);
  });
});

describe('TimestampsAndWatermarksOperator', () => {
  it('close stops periodic emission; closing before open is harmless', async () => {
    const early = new TimestampsAndWatermarksOperator<string>(
      WatermarkStrategy.forMonotonousTimestamps<string>(),
      CLOCK_100,
      false,
    );
    early.close();
    const clock = new ManualClock(0);
    const trace = new Trace();
    const op = new TimestampsAndWatermarksOperator<string>(
      WatermarkStrategy.forBoundedOutOfOrderness<string>(0),
      CLOCK_100,
      false,
    );
    op.setup(
      {
        operatorName: 'stamps',
        subtaskIndex: 0,
        clock,
        logger: createLogger({ level: 'error' }),
      } as unknown as OperatorContext,
      trace,
    );
    op.open();
    op.processElement('a', 10);
    clock.advanceTo(100);
    op.processElement('b', 20);
    op.close();
    clock.advanceTo(300);
    assert.deepEqual(trace.events, ['r:a@10', 'w:9', 'r:b@20']);
  });
});
