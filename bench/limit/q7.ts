// Limit for workload q7 (Nexmark q7 "highest bid": per 10 s tumbling window, the bid(s) with the highest price):
// isolates one running maximum per window. Per open window it keeps the highest price and the bids at it, and
// emits them when the watermark passes the window's end - 1.
// Run: npm run bench -- --system limit --workload q7

import { ChecksumAccumulator, hashHighestBid, type WorkloadResult } from '../workloads/checksum.ts';
import { fillBid, newBid } from '../workloads/generator.ts';
import { windowStart, type WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

interface HighestBids {
  price: number;
  /** auction, bidder pairs of the bids at `price`, in arrival order. */
  bids: number[];
}

export async function q7Limit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.bids;
  const size = params.nexmarkWindow.sizeMs;
  const bound = config.outOfOrdernessMs;
  const sink = new ChecksumAccumulator();
  const windows = new Map<number, HighestBids>();
  let cachedStart = NaN;
  let cached: HighestBids | undefined;
  // Start of the earliest open window; every window that ended at or before the watermark has fired.
  let nextWindow = Infinity;
  let maxTs = -Infinity;
  const bid = newBid();
  let probeAt = firstProbeIndex(params.probe);

  const fireUpTo = (watermark: number): void => {
    let earliest = Infinity;
    for (const [start, highest] of windows) {
      if (start + size - 1 <= watermark) {
        const bids = highest.bids;
        for (let k = 0; k < bids.length; k += 2)
          sink.add(hashHighestBid(start + size, bids[k]!, bids[k + 1]!, highest.price));
        windows.delete(start);
      } else if (start < earliest) earliest = start;
    }
    nextWindow = earliest;
    cachedStart = NaN;
    cached = undefined;
  };

  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillBid(config, i, bid);
    const ts = bid.ts;
    const start = windowStart(ts, size);
    if (start !== cachedStart) {
      cached = windows.get(start);
      if (cached === undefined) {
        cached = { price: 0, bids: [] };
        windows.set(start, cached);
        if (start < nextWindow) nextWindow = start;
      }
      cachedStart = start;
    }
    const highest = cached as HighestBids;
    if (bid.price > highest.price) {
      highest.price = bid.price;
      highest.bids.length = 0;
      highest.bids.push(bid.auction, bid.bidder);
    } else if (bid.price === highest.price) {
      highest.bids.push(bid.auction, bid.bidder);
    }
    if (ts > maxTs) {
      maxTs = ts;
      if (maxTs - bound - 1 >= nextWindow + size - 1) fireUpTo(maxTs - bound - 1);
    }
  }
  fireUpTo(Infinity);
  return sink.result(params.events);
}
