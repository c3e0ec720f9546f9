// Limit for workload 6 (CEP: probe → followedBy large → followedBy drain, within 2 s, per card): isolates
// the NFA work with no engine. Semantics are FlinkCEP's in event time: events are buffered until the
// watermark passes them and then processed per key in (timestamp, arrival) order; every probe starts a
// partial match (the start state is always kept); followedBy is skip-till-next-match (a partial match
// ignores only events that fail its condition, and does not branch on a taking event); skip strategy
// noSkip (partial matches never discard each other); a partial match whose probe is >= withinMs older
// than the current event is pruned first, as NFA.advanceTime does.
// Run: npm run bench -- --system limit --workload cep

import { ChecksumAccumulator, hashCepMatch, type WorkloadResult } from '../workloads/checksum.ts';
import { type Event, fillEvent, newEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

class PartialMatch {
  /** 1: waiting for large; 2: waiting for drain. */
  stage = 1;
  largeId = -1;
  constructor(
    readonly probeId: number,
    readonly probeTs: number,
  ) {}
}

export async function cepLimit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.stream;
  const { probeBelow, largeAtLeast, drainAtLeast, withinMs } = params.cep;
  const bound = config.outOfOrdernessMs;
  const sink = new ChecksumAccumulator();
  const partials = new Map<number, PartialMatch[]>();
  // Events waiting for the watermark, one bucket per millisecond in a ring; pending timestamps span at
  // most bound + 1 ms (no late data), so a ring of more than that never wraps onto a live bucket.
  // Arrival order within a bucket is id order, which is Flink's order for equal timestamps.
  const ringSize = 1 << Math.ceil(Math.log2(2 * (bound + 2)));
  const ringMask = ringSize - 1;
  const ring: Event[][] = Array.from({ length: ringSize }, () => []);
  const pool: Event[] = [];
  let processedUpTo = NaN; // every event with ts <= processedUpTo has been processed
  let maxTs = -Infinity;
  let probeAt = firstProbeIndex(params.probe);

  const processEvent = (event: Event): void => {
    const list = partials.get(event.key);
    if (list !== undefined) {
      let kept = 0;
      for (let j = 0; j < list.length; j++) {
        const partial = list[j] as PartialMatch;
        if (event.ts - partial.probeTs >= withinMs) continue; // timed out: pruned before the event
        if (partial.stage === 1) {
          if (event.value >= largeAtLeast) {
            partial.stage = 2;
            partial.largeId = event.id;
          }
        } else if (event.value >= drainAtLeast) {
          sink.add(hashCepMatch(event.key, partial.probeId, partial.largeId, event.id));
          continue; // complete: leaves the NFA
        }
        list[kept++] = partial;
      }
      list.length = kept; // an emptied list stays in the Map: V8's Map is slow under delete/insert churn
    }
    if (event.value < probeBelow) {
      const partial = new PartialMatch(event.id, event.ts);
      if (list === undefined) partials.set(event.key, [partial]);
      else list.push(partial);
    }
  };

  const advance = (watermark: number): void => {
    for (let t = processedUpTo + 1; t <= watermark; t++) {
      const bucket = ring[t & ringMask] as Event[];
      for (let j = 0; j < bucket.length; j++) {
        const event = bucket[j] as Event;
        processEvent(event);
        pool.push(event);
      }
      bucket.length = 0;
    }
    processedUpTo = watermark;
  };

  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    const event = fillEvent(config, i, pool.pop() ?? newEvent());
    if (i === 0) processedUpTo = event.ts - bound - 1;
    (ring[event.ts & ringMask] as Event[]).push(event);
    if (event.ts > maxTs) {
      maxTs = event.ts;
      if (maxTs - bound - 1 > processedUpTo) advance(maxTs - bound - 1);
    }
  }
  if (params.events > 0) advance(maxTs); // the final watermark releases everything buffered
  return sink.result(params.events);
}
