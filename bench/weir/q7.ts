// Weir's workload q7 (Nexmark q7 "highest bid"): bids → windowAll(TumblingEventTimeWindows.of(10 s)).aggregate(
// the highest price and the bids at it, with a ProcessAllWindowFunction adding the window end) → one record per
// bid at the window's highest price: (window end, auction, bidder, price) → sink.
// Run: npm run bench -- --system limit,weir --workload q7
//      (or alone: node --import tsx bench/weir/q7.ts [events])

import type { AggregateFunction } from '../../src/core/aggregate-function.ts';
import type { Collector } from '../../src/core/functions.ts';
import { Types } from '../../src/core/record-type.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../../src/windowing/assigners/tumbling-event-time-windows.ts';
import type {
  ProcessAllWindowContext,
  ProcessAllWindowFunction,
} from '../../src/windowing/process-window-function.ts';
import type { TimeWindow } from '../../src/windowing/time-window.ts';
import { ChecksumAccumulator, hashHighestBid, type WorkloadResult } from '../workloads/checksum.ts';
import type { Bid } from '../workloads/generator.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, BidRecord, bidSource, checksumSink } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

/** The highest price so far and the bids at it, as auction, bidder pairs in arrival order. */
interface HighestBids {
  price: number;
  bids: number[];
}

interface HighestBid {
  windowEnd: number;
  auction: number;
  bidder: number;
  price: number;
}

const HighestBidRecord = Types.record({
  windowEnd: 'number',
  auction: 'number',
  bidder: 'number',
  price: 'number',
});

const highestBids: AggregateFunction<Bid, HighestBids, HighestBids> = {
  createAccumulator: () => ({ price: 0, bids: [] }),
  add(bid, acc) {
    if (bid.price > acc.price) {
      acc.price = bid.price;
      acc.bids.length = 0;
      acc.bids.push(bid.auction, bid.bidder);
    } else if (bid.price === acc.price) {
      acc.bids.push(bid.auction, bid.bidder);
    }
    return acc;
  },
  getResult: (acc) => acc,
  merge(a, b) {
    if (a.price !== b.price) return a.price > b.price ? a : b;
    return { price: a.price, bids: [...a.bids, ...b.bids] };
  },
};

const withWindowEnd: ProcessAllWindowFunction<HighestBids, HighestBid, TimeWindow> = {
  process(
    context: ProcessAllWindowContext<TimeWindow>,
    results: readonly HighestBids[],
    out: Collector<HighestBid>,
  ) {
    const highest = results[0]!;
    const windowEnd = context.window.end;
    for (let k = 0; k < highest.bids.length; k += 2)
      out.collect({
        windowEnd,
        auction: highest.bids[k]!,
        bidder: highest.bids[k + 1]!,
        price: highest.price,
      });
  },
};

export async function q7Weir(params: WorkloadParams): Promise<WorkloadResult> {
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  env
    .fromSource(
      bidSource(params),
      WatermarkStrategy.forBoundedOutOfOrderness<Bid>(params.bids.outOfOrdernessMs).withTimestampAssigner(
        (b) => b.ts,
      ),
      'bids',
    )
    .setParallelism(params.parallelism)
    .returns(BidRecord)
    .windowAll(TumblingEventTimeWindows.of(params.nexmarkWindow.sizeMs))
    .aggregate(highestBids, withWindowEnd)
    .returns(HighestBidRecord)
    .sinkTo(
      checksumSink(accumulator, (r: HighestBid) => hashHighestBid(r.windowEnd, r.auction, r.bidder, r.price)),
    );
  const job = await env.execute('q7');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone('q7', q7Weir, defaultParams(Number(process.argv[2] ?? 1_000_000)));
}
