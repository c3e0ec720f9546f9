// Property: a bounded job's output is a function of its input and the job: batch sizes, clock speed, parallelism
// and the test harness change nothing, late side outputs included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CollectSink,
  GeneratorSource,
  ManualClock,
  OutputTag,
  StreamExecutionEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
  type DataStream,
  type WatermarkEmissionMode,
} from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';
import { assertAsyncProperty } from './support/property.ts';

interface Reading {
  key: number;
  ts: number;
  value: number;
}

/** The job under test, from the stream of readings on: timestamps, keyed windows with lateness, late output. */
interface JobShape {
  outOfOrdernessMs: number;
  windowMs: number;
  latenessMs: number;
}

const lateTag = new OutputTag<Reading>('late-readings');

function pipeline(input: DataStream<Reading>, job: JobShape, clock: ManualClock, msPerRecord: number) {
  const windows = input
    // Straight after the source, so there is one generator whatever the parallelism downstream.
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness(job.outOfOrdernessMs).withTimestampAssigner((r) => r.ts),
    )
    // Processing time passes while records are handled: as much as a slow or loaded machine would take.
    .map((r) => {
      if (msPerRecord > 0) clock.advanceTo(clock.now() + msPerRecord);
      return r;
    })
    .keyBy((r) => r.key)
    .window(TumblingEventTimeWindows.of(job.windowMs))
    .allowedLateness(job.latenessMs)
    .sideOutputLateData(lateTag)
    .process<string>({
      process(key, ctx, elements, out) {
        const values = elements.map((r) => r.value).join(',');
        out.collect(`k${key} [${ctx.window.start},${ctx.window.end}) ${values}`);
      },
    });
  return { windows, late: windows.getSideOutput(lateTag) };
}

interface Run {
  windows: string[];
  late: string[];
}

const lateKey = (r: Reading): string => `k${r.key}@${r.ts}#${r.value}`;

async function runJob(
  readings: readonly Reading[],
  job: JobShape,
  variant: { parallelism: number; batchSize: number; msPerRecord: number; records: number },
  mode: WatermarkEmissionMode = 'deterministic',
): Promise<Run> {
  const clock = new ManualClock(0);
  const env = StreamExecutionEnvironment.create({
    parallelism: variant.parallelism,
    clock,
    autoWatermarkRecords: variant.records,
    autoWatermarkInterval: 50,
    watermarkEmission: mode,
  });
  const source = env
    .fromSource(
      GeneratorSource.of(readings.length, (i) => readings[i]!, { batchSize: variant.batchSize }),
      undefined,
      'readings',
    )
    .setParallelism(1);
  const { windows, late } = pipeline(source, job, clock, variant.msPerRecord);
  const windowSink = new CollectSink<string>();
  const lateSink = new CollectSink<Reading>();
  windows.sinkTo(windowSink);
  late.sinkTo(lateSink);
  await env.execute('deterministic event time');
  return { windows: windowSink.values, late: lateSink.values.map(lateKey) };
}

async function runHarness(
  readings: readonly Reading[],
  job: JobShape,
  parallelism: number,
  records: number,
): Promise<Run> {
  const clock = new ManualClock(0);
  const h = await TestHarness.create((input: DataStream<Reading>) => pipeline(input, job, clock, 0).windows, {
    parallelism,
    autoWatermarkRecords: records,
  });
  for (const r of readings) h.processElement(r);
  h.endInput();
  const run = { windows: h.records(), late: h.sideOutput(lateTag).map((e) => lateKey(e.value)) };
  await h.close();
  return run;
}

/** Readings whose timestamps mostly rise, with stragglers far enough behind to be late. */
const readingsArbitrary = fc
  .array(
    fc.record({
      key: fc.integer({ min: 0, max: 3 }),
      step: fc.integer({ min: 0, max: 20 }),
      straggle: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 400 })),
    }),
    { minLength: 1, maxLength: 300 },
  )
  .map((steps) => {
    let now = 1_000;
    return steps.map((s, value): Reading => {
      now += s.step;
      return { key: s.key, ts: now - s.straggle, value };
    });
  });

const jobArbitrary = fc.record({
  outOfOrdernessMs: fc.integer({ min: 0, max: 50 }),
  windowMs: fc.integer({ min: 10, max: 200 }),
  latenessMs: fc.integer({ min: 0, max: 100 }),
});

const sorted = (values: readonly string[]): string[] => [...values].sort();

describe('deterministic event time (property)', () => {
  it('the same output at every batch size, clock speed, parallelism and in the harness', async () => {
    let lateSeen = 0;
    await assertAsyncProperty(
      fc.asyncProperty(
        readingsArbitrary,
        jobArbitrary,
        fc.integer({ min: 1, max: 12 }),
        async (readings, job, records) => {
          const reference = await runJob(readings, job, {
            parallelism: 1,
            batchSize: 1,
            msPerRecord: 0,
            records,
          });
          lateSeen += reference.late.length;
          const variants = [
            { parallelism: 1, batchSize: 1_000, msPerRecord: 0, records },
            { parallelism: 1, batchSize: 7, msPerRecord: 1_000, records },
            { parallelism: 3, batchSize: 2, msPerRecord: 13, records },
            { parallelism: 4, batchSize: 64, msPerRecord: 250, records },
          ];
          for (const variant of variants) {
            const run = await runJob(readings, job, variant, 'deterministic');
            if (variant.parallelism === 1) {
              // One window subtask: even the order is the same.
              assert.deepEqual(run, reference, JSON.stringify(variant));
            } else {
              // Several window subtasks write to the sinks in turn: the same records, interleaved differently.
              assert.deepEqual(sorted(run.windows), sorted(reference.windows), JSON.stringify(variant));
              assert.deepEqual(sorted(run.late), sorted(reference.late), JSON.stringify(variant));
            }
          }
          for (const parallelism of [1, 2]) {
            const run = await runHarness(readings, job, parallelism, records);
            assert.deepEqual(sorted(run.windows), sorted(reference.windows), `harness p=${parallelism}`);
            assert.deepEqual(sorted(run.late), sorted(reference.late), `harness p=${parallelism}`);
          }
        },
      ),
      { numRuns: 25 },
    );
    assert.ok(lateSeen > 0, 'the generated inputs exercise the late side output');
  });

  it("Flink's clock-driven rule does not have the property: clock speed changes what is late", async () => {
    const readings: Reading[] = [
      { key: 1, ts: 1_000, value: 0 },
      { key: 1, ts: 1_200, value: 1 },
      { key: 1, ts: 1_050, value: 2 },
    ];
    const job = { outOfOrdernessMs: 10, windowMs: 100, latenessMs: 0 };
    const fast = await runJob(
      readings,
      job,
      { parallelism: 1, batchSize: 1_000, msPerRecord: 0, records: 100 },
      'processing-time',
    );
    const slow = await runJob(
      readings,
      job,
      { parallelism: 1, batchSize: 1_000, msPerRecord: 100, records: 100 },
      'processing-time',
    );
    assert.deepEqual(fast.late, [], 'a fast machine sees no watermark before the end: nothing is late');
    assert.deepEqual(slow.late, ['k1@1050#2'], 'a slow one emits watermark 1189 after the second reading');
    const deterministic = await runJob(
      readings,
      job,
      { parallelism: 1, batchSize: 1_000, msPerRecord: 100, records: 1 },
      'deterministic',
    );
    assert.deepEqual(deterministic.late, ['k1@1050#2'], 'with one record per watermark, on any machine');
  });
});
