// Per-split watermarks: the minimum over active splits leaves; idle and released splits do not hold it back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutputTag } from '../core/output-tag.ts';
import { ManualClock } from '../core/clock.ts';
import { WatermarkStrategy } from '../time/watermark-strategy.ts';
import type { Output } from './output.ts';
import type { WatermarkEmission } from '../time/watermark-emission.ts';
import { SplitWatermarks } from './split-watermarks.ts';
import { createLogger } from '../core/logger.ts';
import { IdlenessLog } from './idleness-log.ts';

/** Records what leaves the subtask, in order: "r:<value>@<ts>", "w:<watermark>", "idle", "active". */
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

/** Flink's rule, so these cases drive emission with the clock alone. */
const CLOCK_EVERY_100_MS: WatermarkEmission = {
  mode: 'processing-time',
  intervalMs: 100,
  everyRecords: 100,
};

function setup(idleTimeoutMs?: number) {
  const clock = new ManualClock(0);
  const trace = new Trace();
  let strategy = WatermarkStrategy.forBoundedOutOfOrderness<string>(10);
  if (idleTimeoutMs !== undefined) strategy = strategy.withIdleness(idleTimeoutMs);
  // The log lines, without their time, in the same trace so their order against the output shows.
  const logger = createLogger({
    level: 'info',
    stream: { write: (line: string) => trace.events.push(line.replace(/^\S+ /, '').trimEnd()) },
  });
  const idleness = new IdlenessLog(logger, 'orders', 1);
  const splits = new SplitWatermarks(strategy, clock, trace, CLOCK_EVERY_100_MS, false, idleness);
  splits.startPeriodicEmission();
  return { clock, trace, splits };
}

describe('SplitWatermarks', () => {
  it('emits the minimum over splits; a split without a watermark holds the subtask back', () => {
    const { clock, trace, splits } = setup();
    const a = splits.outputFor('a');
    const b = splits.outputFor('b');
    a.collect('a1', 1000);
    a.collect('a2', 5000);
    clock.advanceTo(100);
    // b has emitted nothing yet: no watermark may leave.
    assert.deepEqual(trace.events, ['r:a1@1000', 'r:a2@5000']);
    b.collect('b1', 2000);
    clock.advanceTo(200);
    assert.deepEqual(trace.events.slice(2), ['r:b1@2000', 'w:1989']);
    b.collect('b2', 9000);
    clock.advanceTo(300);
    assert.deepEqual(trace.events.slice(4), ['r:b2@9000', 'w:4989']);
  });

  it('ignores idle splits and marks the subtask idle when all are; a new record makes it active', () => {
    const { clock, trace, splits } = setup(250);
    const a = splits.outputFor('a');
    const b = splits.outputFor('b');
    a.collect('a1', 1000);
    b.collect('b1', 3000);
    clock.advanceTo(100);
    assert.deepEqual(trace.events.slice(2), ['w:989']);
    a.collect('a2', 1500); // a stays active; b has been quiet since 0
    clock.advanceTo(300);
    // At 300 a's tick raises the minimum to 1489 (b's 2989 still counts), then b goes idle (300 - 0 >= 250).
    assert.deepEqual(trace.events.slice(3), [
      'r:a2@1500',
      'w:1489',
      "INFO weir: 'orders' (subtask 1) split b is idle: the subtask's watermark no longer waits for it operator=orders subtask=1 split=b idle=true",
    ]);
    clock.advanceTo(400);
    assert.deepEqual(trace.events.slice(6), [
      "INFO weir: 'orders' (subtask 1) split a is idle: the subtask's watermark no longer waits for it operator=orders subtask=1 split=a idle=true",
      "INFO weir: 'orders' (subtask 1) is idle: its watermark no longer holds back downstream operators operator=orders subtask=1 idle=true",
      'idle',
    ]);
    b.collect('b2', 4000);
    // Its record leaves first (the generator sees a record after it was forwarded, as in Flink); then b is back
    // with the watermark it had promised (2989).
    assert.deepEqual(trace.events.slice(9), [
      'r:b2@4000',
      "INFO weir: 'orders' (subtask 1) split b is active again: the subtask's watermark waits for it again operator=orders subtask=1 split=b idle=false",
      "INFO weir: 'orders' (subtask 1) is active again: its watermark counts downstream again operator=orders subtask=1 idle=false",
      'active',
      'w:2989',
    ]);
    clock.advanceTo(500);
    // a stays idle (its last record at 100), so b alone leads.
    assert.deepEqual(trace.events.slice(14), ['w:3989']);
  });

  it('stops counting a released split', () => {
    const { clock, trace, splits } = setup();
    splits.outputFor('a').collect('a1', 1000);
    splits.outputFor('b').collect('b1', 8000);
    clock.advanceTo(100);
    splits.release('a');
    assert.deepEqual(trace.events.slice(2), ['w:989', 'w:7989']);
  });

  it('passes records through with their own timestamps when the job has no watermark strategy', () => {
    const trace = new Trace();
    const splits = new SplitWatermarks<string>(
      undefined,
      new ManualClock(0),
      trace,
      CLOCK_EVERY_100_MS,
      false,
    );
    splits.outputFor('a').collect('x', 7);
    assert.deepEqual(trace.events, ['r:x@7']);
  });
});

/**
 * A generator driven by its records: 'idle' and 'active' mark the split, 'w<n>' emits watermark n; each periodic
 * emit is written into the trace as 'periodic <split's last event>'.
 */
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

function scriptedSetup(emission: WatermarkEmission, bounded = false, withLog = false) {
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
  const splits = new SplitWatermarks(
    scripted(trace),
    clock,
    trace,
    emission,
    bounded,
    withLog ? new IdlenessLog(logger, 'orders', 1) : undefined,
  );
  splits.startPeriodicEmission();
  return { clock, trace, splits };
}

describe('SplitWatermarks, step by step', () => {
  it("a split's watermark counts only when it rises; the subtask emits the minimum when that rises", () => {
    const { trace, splits } = scriptedSetup(CLOCK_EVERY_100_MS);
    const a = splits.outputFor('a');
    const b = splits.outputFor('b');
    assert.equal(splits.outputFor('a'), a);
    a.collect('w100', 1);
    b.collect('w50', 2);
    a.collect('w40', 3); // lower than a's 100: ignored
    b.collect('w50', 4);
    b.collect('w200', 5);
    assert.deepEqual(trace.events, [
      'r:w100@1',
      'r:w50@2',
      'w:50',
      'r:w40@3',
      'r:w50@4',
      'r:w200@5',
      'w:100',
    ]);
  });

  it('the final watermark of a split (+Infinity) is left to the driver', () => {
    const { trace, splits } = scriptedSetup(CLOCK_EVERY_100_MS);
    const a = splits.outputFor('a');
    a.collect('w10', 1);
    a.collect('wInfinity', 2);
    assert.deepEqual(trace.events, ['r:w10@1', 'w:10', 'r:wInfinity@2']);
  });

  it('idle and active marks: once each, logged per split and for the subtask; a watermark makes a split active', () => {
    const { trace, splits } = scriptedSetup(CLOCK_EVERY_100_MS, false, true);
    const a = splits.outputFor('a');
    a.collect('w10', 1);
    a.collect('active', 2); // already active: nothing
    a.collect('idle', 3);
    a.collect('idle', 4); // already idle: nothing
    a.collect('w20', 5);
    assert.deepEqual(trace.events, [
      'r:w10@1',
      'w:10',
      'r:active@2',
      'r:idle@3',
      "'orders' (subtask 1) split a is idle",
      "'orders' (subtask 1) is idle",
      'idle',
      'r:idle@4',
      'r:w20@5',
      "'orders' (subtask 1) split a is active again",
      "'orders' (subtask 1) is active again",
      'active',
      'w:20',
    ]);
    trace.events.length = 0;
    a.collect('idle', 6);
    a.collect('active', 7);
    assert.deepEqual(trace.events, [
      'r:idle@6',
      "'orders' (subtask 1) split a is idle",
      "'orders' (subtask 1) is idle",
      'idle',
      'r:active@7',
      "'orders' (subtask 1) split a is active again",
      "'orders' (subtask 1) is active again",
      'active',
    ]);
  });

  it('idleness without a log: the same marks, nothing logged', () => {
    const { trace, splits } = scriptedSetup(CLOCK_EVERY_100_MS);
    const a = splits.outputFor('a');
    a.collect('idle', 1);
    a.collect('active', 2);
    assert.deepEqual(trace.events, ['r:idle@1', 'idle', 'r:active@2', 'active']);
  });

  it('an idle split does not hold the others back, and the subtask stays active while one is not idle', () => {
    const { trace, splits } = scriptedSetup(CLOCK_EVERY_100_MS);
    const a = splits.outputFor('a');
    const b = splits.outputFor('b');
    a.collect('w10', 1);
    b.collect('idle', 2);
    b.collect('idle', 3);
    assert.deepEqual(trace.events, ['r:w10@1', 'r:idle@2', 'w:10', 'r:idle@3']);
  });

  it('releasing the last split makes the subtask idle; a subtask that never had a split is not marked', () => {
    const { trace, splits } = scriptedSetup(CLOCK_EVERY_100_MS);
    splits.combine();
    assert.deepEqual(trace.events, ['idle']);
    trace.events.length = 0;
    splits.outputFor('a');
    splits.release('a');
    splits.release('a');
    assert.deepEqual(trace.events, ['active', 'idle']);
  });

  it('without a strategy no watermark status is ever emitted', () => {
    const trace = new Trace();
    const splits = new SplitWatermarks<string>(
      undefined,
      new ManualClock(0),
      trace,
      CLOCK_EVERY_100_MS,
      false,
    );
    splits.startPeriodicEmission();
    splits.outputFor('a').collect('x', 1);
    splits.release('a');
    splits.combine();
    assert.deepEqual(trace.events, ['r:x@1']);
  });

  it('deterministic mode: a periodic emit after every everyRecords-th record of each split', () => {
    const { trace, splits } = scriptedSetup({ mode: 'deterministic', intervalMs: 0, everyRecords: 2 });
    const a = splits.outputFor('a');
    const b = splits.outputFor('b');
    a.collect('a1', 1);
    b.collect('b1', 2);
    a.collect('a2', 3);
    a.collect('a3', 4);
    b.collect('b2', 5);
    a.collect('a4', 6);
    assert.deepEqual(trace.events, [
      'r:a1@1',
      'r:b1@2',
      'r:a2@3',
      'periodic a2',
      'r:a3@4',
      'r:b2@5',
      'periodic b2',
      'r:a4@6',
      'periodic a4',
    ]);
  });

  it('processing-time mode ignores record counts; the clock emits every interval, per split', () => {
    const { clock, trace, splits } = scriptedSetup({
      mode: 'processing-time',
      intervalMs: 100,
      everyRecords: 1,
    });
    const a = splits.outputFor('a');
    a.collect('a1', 1);
    a.collect('a2', 2);
    splits.outputFor('b').collect('b1', 3);
    clock.advanceTo(99);
    assert.deepEqual(trace.events, ['r:a1@1', 'r:a2@2', 'r:b1@3']);
    clock.advanceTo(100);
    clock.advanceTo(199);
    clock.advanceTo(200);
    assert.deepEqual(trace.events.slice(3), ['periodic a2', 'periodic b1', 'periodic a2', 'periodic b1']);
  });

  it('the clock drives an unbounded input in deterministic mode too, but not a bounded one, nor interval 0', () => {
    for (const [emission, bounded, expected] of [
      [{ mode: 'deterministic', intervalMs: 100, everyRecords: 1_000 }, false, 1],
      [{ mode: 'deterministic', intervalMs: 100, everyRecords: 1_000 }, true, 0],
      [{ mode: 'processing-time', intervalMs: 100, everyRecords: 1_000 }, true, 1],
      [{ mode: 'processing-time', intervalMs: 0, everyRecords: 1_000 }, false, 0],
    ] as const) {
      const { clock, trace, splits } = scriptedSetup(emission, bounded);
      splits.outputFor('a').collect('a1', 1);
      clock.advanceTo(100);
      assert.equal(
        trace.events.filter((e) => e.startsWith('periodic')).length,
        expected,
        JSON.stringify(emission),
      );
    }
  });

  it('finish: one last periodic emit per split, then none; after stop, none at all', () => {
    const { clock, trace, splits } = scriptedSetup(CLOCK_EVERY_100_MS);
    splits.outputFor('a').collect('a1', 1);
    splits.finish();
    splits.finish();
    clock.advanceTo(500);
    assert.deepEqual(trace.events, ['r:a1@1', 'periodic a1']);

    const stopped = scriptedSetup(CLOCK_EVERY_100_MS);
    stopped.splits.outputFor('a').collect('a1', 1);
    stopped.splits.stop();
    stopped.clock.advanceTo(500);
    stopped.splits.finish();
    assert.deepEqual(stopped.trace.events, ['r:a1@1']);
  });

  it("the assigner sees the record's timestamp or none, and must return a number", () => {
    const seen: string[] = [];
    const trace = new Trace();
    const strategy = WatermarkStrategy.forMonotonousTimestamps<string>().withTimestampAssigner((v, ts) => {
      seen.push(`${v}:${ts}`);
      return v === 'nan' ? Number.NaN : v === 'text' ? ('12' as never) : (ts ?? 99);
    });
    const splits = new SplitWatermarks(strategy, new ManualClock(0), trace, CLOCK_EVERY_100_MS, false);
    const a = splits.outputFor('a');
    a.collect('x', 5);
    a.collect('y');
    for (const [bad, shown] of [
      ['nan', 'NaN'],
      ['text', '12'],
    ]) {
      assert.throws(
        () => a.collect(bad!, 1),
        (e: unknown) =>
          e instanceof TypeError &&
          e.message === `The timestamp assigner returned ${shown}, not a number of milliseconds`,
      );
    }
    assert.deepEqual(seen, ['x:5', 'y:undefined', 'nan:1', 'text:1']);
    assert.deepEqual(trace.events, ['r:x@5', 'r:y@99']);
  });
});
