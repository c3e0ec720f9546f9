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
