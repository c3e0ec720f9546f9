// Limit for workload 1 (stateless map → filter → discarding sink): isolates the cost of generating events
// and hashing the output, the floor every engine pays. Run: npm run bench -- --system limit --workload stateless

import { ChecksumAccumulator, hashStateless, type WorkloadResult } from '../workloads/checksum.ts';
import { fillEvent, newEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

export async function statelessLimit(params: WorkloadParams): Promise<WorkloadResult> {
  const { multiplier, offset, dropModulus } = params.stateless;
  const config = params.stream;
  const sink = new ChecksumAccumulator();
  const event = newEvent();
  let probeAt = firstProbeIndex(params.probe);
  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillEvent(config, i, event);
    const mapped = event.value * multiplier + offset;
    if (mapped % dropModulus !== 0) sink.add(hashStateless(event.key, mapped));
  }
  return sink.result(params.events);
}
