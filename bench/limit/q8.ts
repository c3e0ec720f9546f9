// Limit for workload q8 (Nexmark q8 "new users who opened auctions": a 10 s tumbling window join of persons, by
// id, with auctions, by seller): isolates the join. Per open window it keeps the window's persons (id → name) and
// its auctions counted per seller, and when the watermark passes the window's end - 1 emits (person id, name,
// window start) once per pair of a person and an auction of theirs, as a window join does. Bids are generated
// (they are 46 of every 50 events) and dropped.
// Run: npm run bench -- --system limit --workload q8

import { ChecksumAccumulator, hashNewPerson, type WorkloadResult } from '../workloads/checksum.ts';
import { AUCTION, fillNexmarkEvent, newNexmarkEvent, PERSON } from '../workloads/generator.ts';
import { windowStart, type WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

interface JoinWindow {
  readonly persons: Map<number, string>;
  readonly auctionsBySeller: Map<number, number>;
}

export async function q8Limit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.nexmark;
  const size = params.nexmarkWindow.sizeMs;
  const bound = config.outOfOrdernessMs;
  const sink = new ChecksumAccumulator();
  const windows = new Map<number, JoinWindow>();
  let nextWindow = Infinity;
  let maxTs = -Infinity;
  const event = newNexmarkEvent();
  let probeAt = firstProbeIndex(params.probe);

  const fireUpTo = (watermark: number): void => {
    let earliest = Infinity;
    for (const [start, window] of windows) {
      if (start + size - 1 <= watermark) {
        for (const [person, name] of window.persons) {
          const auctions = window.auctionsBySeller.get(person);
          if (auctions === undefined) continue;
          const hash = hashNewPerson(person, name, start);
          for (let k = 0; k < auctions; k++) sink.add(hash);
        }
        windows.delete(start);
      } else if (start < earliest) earliest = start;
    }
    nextWindow = earliest;
  };

  const windowOf = (ts: number): JoinWindow => {
    const start = windowStart(ts, size);
    let window = windows.get(start);
    if (window === undefined) {
      window = { persons: new Map(), auctionsBySeller: new Map() };
      windows.set(start, window);
      if (start < nextWindow) nextWindow = start;
    }
    return window;
  };

  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillNexmarkEvent(config, i, event);
    const ts = event.ts;
    if (event.kind === PERSON) windowOf(ts).persons.set(event.id, event.name);
    else if (event.kind === AUCTION) {
      const counts = windowOf(ts).auctionsBySeller;
      counts.set(event.seller, (counts.get(event.seller) ?? 0) + 1);
    }
    if (ts > maxTs) {
      maxTs = ts;
      if (maxTs - bound - 1 >= nextWindow + size - 1) fireUpTo(maxTs - bound - 1);
    }
  }
  fireUpTo(Infinity);
  return sink.result(params.events);
}
