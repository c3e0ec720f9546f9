// What a job logs as it runs: late records dropped (the first, then counts at most once a minute) and idleness.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CEP } from '../src/api/cep.ts';
import type { DataStream } from '../src/api/data-stream.ts';
import { Pattern } from '../src/cep/pattern/pattern.ts';
import { createLogger, type Logger } from '../src/core/logger.ts';
import { OutputTag } from '../src/core/output-tag.ts';
import { TestHarness } from '../src/testing/test-harness.ts';
import { WatermarkStrategy } from '../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../src/windowing/assigners/tumbling-event-time-windows.ts';

/** A logger writing text lines into `lines`, each without its leading time. */
function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    format: 'text',
    stream: { write: (line: string) => lines.push(line.replace(/^\S+ /, '').trimEnd()) },
  });
  return { logger, lines };
}

type Reading = readonly [sensor: string, value: number];

const LATE = new OutputTag<Reading>('late');

function perSecond(input: DataStream<Reading>): DataStream<Reading> {
  return input
    .keyBy((r) => r[0])
    .window(TumblingEventTimeWindows.of(1000))
    .reduce((a, b): Reading => [a[0], a[1] + b[1]])
    .name('per-second');
}

const FIRST_LATE_LINE =
  "WARN weir: window operator 'per-second' (subtask 0) dropped a late record: timestamp 200 is behind watermark 1500 and no late-data side output is set; further drops are counted in numLateRecordsDropped and logged at most once every 60 s operator=per-second subtask=0 timestamp=200 watermark=1500";

describe('operational logs', () => {
  it('logs the first late record a window drops at once, then counts at most once a minute, and the rest at close', async () => {
    const { logger, lines } = capture();
    const h = await TestHarness.create(perSecond, { logger });
    h.processElement(['a', 1], 100);
    h.processWatermark(1500); // fires [0, 1000)
    assert.deepEqual(h.records(), [['a', 1]]);
    assert.deepEqual(lines, []);
    h.processElement(['a', 10], 200); // behind the watermark: dropped, logged at once
    assert.deepEqual(lines, [FIRST_LATE_LINE]);
    h.processElement(['b', 10], 300);
    h.processElement(['a', 10], 999);
    h.processWatermark(1600); // processing time 0: the minute since the first line has not passed
    assert.deepEqual(lines, [FIRST_LATE_LINE]);
    h.setProcessingTime(59_999);
    h.processWatermark(1700);
    assert.deepEqual(lines, [FIRST_LATE_LINE]);
    h.setProcessingTime(60_000);
    h.processWatermark(1800);
    assert.deepEqual(lines.slice(1), [
      "WARN weir: window operator 'per-second' (subtask 0) dropped 2 more late records (3 in all) operator=per-second subtask=0 dropped=2 total=3",
    ]);
    h.processWatermark(1900); // nothing new dropped: no line
    h.setProcessingTime(200_000);
    h.processWatermark(1950);
    assert.equal(lines.length, 2);
    h.processElement(['a', 10], 400);
    h.processElement(['a', 1], 1999); // on time: counted in [1000, 2000)
    h.processWatermark(2000);
    assert.deepEqual(lines.slice(2), [
      "WARN weir: window operator 'per-second' (subtask 0) dropped 1 more late record (4 in all) operator=per-second subtask=0 dropped=1 total=4",
    ]);
    h.processElement(['b', 10], 500);
    h.processWatermark(2100); // 0 ms since the last line
    assert.equal(lines.length, 3);
    await h.close(); // the drops not logged yet are logged at close
    assert.deepEqual(lines.slice(3), [
      "WARN weir: window operator 'per-second' (subtask 0) dropped 1 more late record (5 in all) operator=per-second subtask=0 dropped=1 total=5",
    ]);
    assert.deepEqual(h.records(), [
      ['a', 1],
      ['a', 1],
    ]);
  });

  it('logs nothing for late records that go to the late-data side output', async () => {
    const { logger, lines } = capture();
    const h = await TestHarness.create(
      (input: DataStream<Reading>) =>
        input
          .keyBy((r) => r[0])
          .window(TumblingEventTimeWindows.of(1000))
          .sideOutputLateData(LATE)
          .reduce((a, b): Reading => [a[0], a[1] + b[1]])
          .name('per-second'),
      { logger },
    );
    h.processWatermark(1500);
    h.processElement(['a', 10], 200);
    await h.close();
    assert.deepEqual(lines, []);
    assert.deepEqual(h.sideOutput(LATE), [{ value: ['a', 10], timestamp: 200 }]);
  });

  it('logs the first late record a CEP operator drops, and the count at close', async () => {
    const { logger, lines } = capture();
    const h = await TestHarness.create(
      (input: DataStream<Reading>) =>
        CEP.pattern(
          input.keyBy((r) => r[0]),
          Pattern.begin<Reading, 'high'>('high').where((r) => r[1] > 5),
        )
          .select((m) => `high ${m.high[0]![0]}`)
          .name('alerts'),
      { logger },
    );
    h.processElement(['a', 9], 10);
    h.processWatermark(10);
    assert.deepEqual(h.records(), ['high a']);
    h.processElement(['a', 9], 10); // at the watermark: late
    h.processElement(['b', 9], 3);
    await h.close();
    assert.deepEqual(lines, [
      "WARN weir: CEP operator 'alerts' (subtask 0) dropped a late record: timestamp 10 is behind watermark 10 and no late-data side output is set; further drops are counted in numLateRecordsDropped and logged at most once every 60 s operator=alerts subtask=0 timestamp=10 watermark=10",
      "WARN weir: CEP operator 'alerts' (subtask 0) dropped 1 more late record (2 in all) operator=alerts subtask=0 dropped=1 total=2",
    ]);
  });

  it('a CEP operator logs the count of further drops at a watermark once a minute of processing time passed', async () => {
    const { logger, lines } = capture();
    const h = await TestHarness.create(
      (input: DataStream<Reading>) =>
        CEP.pattern(
          input.keyBy((r) => r[0]),
          Pattern.begin<Reading, 'high'>('high').where((r) => r[1] > 5),
        )
          .select((m) => `high ${m.high[0]![0]}`)
          .name('alerts'),
      { logger },
    );
    h.processWatermark(10);
    h.processElement(['a', 9], 4);
    h.processElement(['a', 9], 5);
    h.processElement(['a', 9], 6);
    h.setProcessingTime(59_999);
    h.processWatermark(11);
    assert.equal(lines.length, 1);
    h.setProcessingTime(60_000);
    h.processWatermark(12);
    assert.deepEqual(lines.slice(1), [
      "WARN weir: CEP operator 'alerts' (subtask 0) dropped 2 more late records (3 in all) operator=alerts subtask=0 dropped=2 total=3",
    ]);
    await h.close();
    assert.equal(lines.length, 2);
  });

  it('logs an input going idle and becoming active again', async () => {
    const { logger, lines } = capture();
    const h = await TestHarness.create(
      (input: DataStream<Reading>) =>
        input
          .assignTimestampsAndWatermarks(
            WatermarkStrategy.forMonotonousTimestamps<Reading>()
              .withTimestampAssigner((r) => r[1])
              .withIdleness(1000),
          )
          .name('readings'),
      { logger, autoWatermarkInterval: 200 },
    );
    h.processElement(['a', 5]);
    h.setProcessingTime(800);
    assert.deepEqual(lines, []);
    h.setProcessingTime(1000); // 1000 ms without a record
    assert.deepEqual(lines, [
      "INFO weir: 'readings' (subtask 0) is idle: its watermark no longer holds back downstream operators operator=readings subtask=0 idle=true",
    ]);
    h.setProcessingTime(3000); // still idle: no second line
    assert.equal(lines.length, 1);
    h.processElement(['a', 7]);
    h.setProcessingTime(3200);
    assert.deepEqual(lines.slice(1), [
      "INFO weir: 'readings' (subtask 0) is active again: its watermark counts downstream again operator=readings subtask=0 idle=false",
    ]);
    await h.close();
  });
});
