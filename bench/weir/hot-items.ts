// Weir's workload 4 (Nexmark q5 "hot items"): bids → keyBy(auction) → window(SlidingEventTimeWindows.of(10 s, 2 s))
// .aggregate(count, with window) → keyBy(window start).process(...) that waits for the window's results with an
// event-time timer at window end - 1 and emits every auction whose count is the window's maximum → sink.
// Run: npm run bench -- --system limit,weir --workload hot-items
//      (or alone: node --import tsx bench/weir/hot-items.ts [events])

import type {
  Collector,
  KeyedOnTimerContext,
  KeyedProcessContext,
  KeyedProcessFunction,
} from '../../src/core/functions.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';
import { Types } from '../../src/core/record-type.ts';
import type { AggregateFunction } from '../../src/core/aggregate-function.ts';
import { ListStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ListState } from '../../src/core/state.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { benchAlignment } from './worker-alignment.ts';
import { SlidingEventTimeWindows } from '../../src/windowing/assigners/sliding-event-time-windows.ts';
import type {
  ProcessWindowContext,
  ProcessWindowFunction,
} from '../../src/windowing/process-window-function.ts';
import type { TimeWindow } from '../../src/windowing/time-window.ts';
import { ChecksumAccumulator, hashHotItem, type WorkloadResult } from '../workloads/checksum.ts';
import type { Bid } from '../workloads/generator.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, BidRecord, bidSource, checksumSink } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

interface AuctionCount {
  auction: number;
  start: number;
  end: number;
  count: number;
}

/** Crosses threads on the keyBy(window start) in worker mode. */
const AuctionCountRecord = Types.record({
  auction: 'number',
  start: 'number',
  end: 'number',
  count: 'number',
});

const countBids: AggregateFunction<Bid, number, number> = {
  createAccumulator: () => 0,
  add: (_bid, count) => count + 1,
  getResult: (count) => count,
  merge: (a, b) => a + b,
};

const withWindow: ProcessWindowFunction<number, AuctionCount, number, TimeWindow> = {
  process(
    auction: number,
    context: ProcessWindowContext<TimeWindow>,
    counts: readonly number[],
    out: Collector<AuctionCount>,
  ) {
    out.collect({ auction, start: context.window.start, end: context.window.end, count: counts[0]! });
  },
};

/** Per window start: the window's auction counts, emitted (the maximum ones) once the watermark passes its end. */
class HotItems implements KeyedProcessFunction<number, AuctionCount, AuctionCount> {
  private items!: ListState<AuctionCount>;

  open(context: RuntimeContext): void {
    this.items = context.getListState(new ListStateDescriptor<AuctionCount>('auction-counts'));
  }

  processElement(value: AuctionCount, ctx: KeyedProcessContext<number>): void {
    this.items.add(value);
    ctx.timerService().registerEventTimeTimer(value.end - 1);
  }

  onTimer(_timestamp: number, _ctx: KeyedOnTimerContext<number>, out: Collector<AuctionCount>): void {
    const items = this.items.get() ?? [];
    let max = 0;
    for (const item of items) if (item.count > max) max = item.count;
    for (const item of items) if (item.count === max) out.collect(item);
    this.items.clear();
  }
}

export async function hotItemsWeir(params: WorkloadParams): Promise<WorkloadResult> {
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
    .keyBy((b) => b.auction)
    .window(SlidingEventTimeWindows.of(params.sliding.sizeMs, params.sliding.slideMs))
    .aggregate(countBids, withWindow)
    .returns(AuctionCountRecord)
    .keyBy((r) => r.start)
    .process(new HotItems(), 'HotItems')
    .sinkTo(checksumSink(accumulator, (r: AuctionCount) => hashHotItem(r.start, r.auction, r.count)));
  const job = await env.execute('hot-items');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone('hot-items', hotItemsWeir, defaultParams(Number(process.argv[2] ?? 1_000_000)));
}
