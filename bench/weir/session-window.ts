// Weir's workload 5 (Nexmark q11: bids per bidder in event-time sessions with a 10 s gap): the full runtime path
// bids → timestamps/watermarks → keyBy(bidder) → window(EventTimeSessionWindows).aggregate(count, with window) → sink.
// Run: npm run bench -- --system limit,weir --workload session-window
//      (or alone: node --import tsx bench/weir/session-window.ts [events])

import type { Collector } from '../../src/core/functions.ts';
import type { AggregateFunction } from '../../src/core/aggregate-function.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { benchAlignment } from './worker-alignment.ts';
import { EventTimeSessionWindows } from '../../src/windowing/assigners/event-time-session-windows.ts';
import type {
  ProcessWindowContext,
  ProcessWindowFunction,
} from '../../src/windowing/process-window-function.ts';
import type { TimeWindow } from '../../src/windowing/time-window.ts';
import { ChecksumAccumulator, hashSession, type WorkloadResult } from '../workloads/checksum.ts';
import type { Bid } from '../workloads/generator.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, BidRecord, bidSource, checksumSink } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

interface Session {
  bidder: number;
  start: number;
  end: number;
  count: number;
}

const countBids: AggregateFunction<Bid, number, number> = {
  createAccumulator: () => 0,
  add: (_bid, count) => count + 1,
  getResult: (count) => count,
  merge: (a, b) => a + b,
};

const withSession: ProcessWindowFunction<number, Session, number, TimeWindow> = {
  process(
    bidder: number,
    context: ProcessWindowContext<TimeWindow>,
    counts: readonly number[],
    out: Collector<Session>,
  ) {
    out.collect({ bidder, start: context.window.start, end: context.window.end, count: counts[0]! });
  },
};

export async function sessionWindowWeir(params: WorkloadParams): Promise<WorkloadResult> {
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  env
    .fromSource(
      bidSource(params),
      benchAlignment(
        WatermarkStrategy.forBoundedOutOfOrderness<Bid>(params.bids.outOfOrdernessMs),
      ).withTimestampAssigner((b) => b.ts),
      'bids',
    )
    .setParallelism(params.parallelism)
    .returns(BidRecord)
    .keyBy((b) => b.bidder)
    .window(EventTimeSessionWindows.withGap(params.session.gapMs))
    .aggregate(countBids, withSession)
    .sinkTo(checksumSink(accumulator, (s: Session) => hashSession(s.bidder, s.start, s.end, s.count)));
  const job = await env.execute('session-window');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone(
    'session-window',
    sessionWindowWeir,
    defaultParams(Number(process.argv[2] ?? 1_000_000)),
  );
}
