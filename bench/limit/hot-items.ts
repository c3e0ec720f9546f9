// Limit for workload 4 (Nexmark q5 "hot items": per 10 s window sliding by 2 s, the auctions with the most
// bids): isolates sliding-window counting. Instead of one counter per (auction, window) — five per bid —
// it counts per 2 s pane and sums the five panes of a window when the watermark passes its end - 1.
// Run: npm run bench -- --system limit --workload hot-items

import { ChecksumAccumulator, hashHotItem, type WorkloadResult } from '../workloads/checksum.ts';
import { fillBid, newBid } from '../workloads/generator.ts';
import { windowStart, type WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

export async function hotItemsLimit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.bids;
  const { sizeMs: size, slideMs: slide } = params.sliding;
  const bound = config.outOfOrdernessMs;
  const sink = new ChecksumAccumulator();
  const panes = new Map<number, Map<number, number>>();
  let cachedPane = NaN;
  let cached: Map<number, number> | undefined;
  // Start of the earliest window not yet fired; windows before it ended at or before the watermark.
  let nextWindow = Infinity;
  let maxTs = -Infinity;
  const merged = new Map<number, number>();
  const bid = newBid();
  let probeAt = firstProbeIndex(params.probe);

  const fireWindow = (start: number): void => {
    merged.clear();
    for (let pane = start; pane < start + size; pane += slide) {
      const counts = panes.get(pane);
      if (counts === undefined) continue;
      for (const [auction, count] of counts) merged.set(auction, (merged.get(auction) ?? 0) + count);
    }
    let max = 0;
    for (const count of merged.values()) if (count > max) max = count;
    for (const [auction, count] of merged) if (count === max) sink.add(hashHotItem(start, auction, count));
    panes.delete(start); // no later window contains the pane that starts where this window starts
  };

  const fireUpTo = (watermark: number): void => {
    while (nextWindow + size - 1 <= watermark && panes.size > 0) {
      fireWindow(nextWindow);
      nextWindow += slide;
    }
    if (panes.size === 0) nextWindow = Infinity;
    cachedPane = NaN;
    cached = undefined;
  };

  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillBid(config, i, bid);
    const ts = bid.ts;
    const pane = windowStart(ts, slide);
    if (pane !== cachedPane) {
      cached = panes.get(pane);
      if (cached === undefined) {
        cached = new Map();
        panes.set(pane, cached);
        // The first window containing this pane; never earlier than one already fired (no late data).
        if (pane - size + slide < nextWindow) nextWindow = pane - size + slide;
      }
      cachedPane = pane;
    }
    const counts = cached as Map<number, number>;
    counts.set(bid.auction, (counts.get(bid.auction) ?? 0) + 1);
    if (ts > maxTs) {
      maxTs = ts;
      if (maxTs - bound - 1 >= nextWindow + size - 1) fireUpTo(maxTs - bound - 1);
    }
  }
  fireUpTo(Infinity);
  return sink.result(params.events);
}
