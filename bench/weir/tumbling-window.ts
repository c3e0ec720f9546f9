// Weir's workload 3 (keyed 1 s tumbling event-time windows, count and sum, emitted with the window start):
// the full runtime path source → timestamps/watermarks → keyBy → window(...).aggregate(fn, processFn) → sink.
// Run: npm run bench -- --system limit,weir --workload tumbling-window
//      (or alone: node --import tsx bench/weir/tumbling-window.ts [events])

import type { Collector } from '../../src/core/functions.ts';
import type { AggregateFunction } from '../../src/core/aggregate-function.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../../src/windowing/assigners/tumbling-event-time-windows.ts';
import type {
  ProcessWindowContext,
  ProcessWindowFunction,
} from '../../src/windowing/process-window-function.ts';
import type { TimeWindow } from '../../src/windowing/time-window.ts';
import { ChecksumAccumulator, hashWindowAggregate, type WorkloadResult } from '../workloads/checksum.ts';
import type { Event } from '../workloads/generator.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, checksumSink, EventRecord, eventSource } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

/** One mutable accumulator per (key, window). */
export class CountSum {
  count = 0;
  sum = 0;
}

export interface WindowAggregate {
  key: number;
  start: number;
  count: number;
  sum: number;
}

const countSum: AggregateFunction<Event, CountSum, CountSum> = {
  createAccumulator: () => new CountSum(),
  add: (e, acc) => {
    acc.count++;
    acc.sum += e.value;
    return acc;
  },
  getResult: (acc) => acc,
  merge: (a, b) => {
    a.count += b.count;
    a.sum += b.sum;
    return a;
  },
};

/** Adds the key and the window start to the aggregate ("aggregate with window"). */
const withWindow: ProcessWindowFunction<CountSum, WindowAggregate, number, TimeWindow> = {
  process(
    key: number,
    context: ProcessWindowContext<TimeWindow>,
    elements: readonly CountSum[],
    out: Collector<WindowAggregate>,
  ) {
    const acc = elements[0]!;
    out.collect({ key, start: context.window.start, count: acc.count, sum: acc.sum });
  },
};

export async function tumblingWindowWeir(params: WorkloadParams): Promise<WorkloadResult> {
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  env
    .fromSource(
      eventSource(params),
      WatermarkStrategy.forBoundedOutOfOrderness<Event>(params.stream.outOfOrdernessMs).withTimestampAssigner(
        (e) => e.ts,
      ),
      'events',
    )
    .setParallelism(params.parallelism)
    .returns(EventRecord)
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(params.tumbling.sizeMs))
    .aggregate(countSum, withWindow, { accumulatorType: CountSum })
    .sinkTo(
      checksumSink(accumulator, (r: WindowAggregate) => hashWindowAggregate(r.key, r.start, r.count, r.sum)),
    );
  const job = await env.execute('tumbling-window');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone(
    'tumbling-window',
    tumblingWindowWeir,
    defaultParams(Number(process.argv[2] ?? 4_000_000)),
  );
}
