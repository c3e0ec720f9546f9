// Limit for workload 2 (keyed rolling count, one output per event): isolates a Map get+set per event, the
// least a ValueState<number> lookup can cost. Run: npm run bench -- --system limit --workload rolling-count

import { ChecksumAccumulator, hashRollingCount, type WorkloadResult } from '../workloads/checksum.ts';
import { fillEvent, newEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

export async function rollingCountLimit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.stream;
  const counts = new Map<number, number>();
  const sink = new ChecksumAccumulator();
  const event = newEvent();
  let probeAt = firstProbeIndex(params.probe);
  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillEvent(config, i, event);
    const count = (counts.get(event.key) ?? 0) + 1;
    counts.set(event.key, count);
    sink.add(hashRollingCount(event.key, count));
  }
  return sink.result(params.events);
}
