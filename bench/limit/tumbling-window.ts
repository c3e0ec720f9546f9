// Limit for workload 3 (keyed 1 s tumbling event-time windows, count and sum): isolates the per-(window, key)
// aggregate update plus watermark-driven firing, with no engine. One Map of keys per open window; a window
// fires once the bounded-out-of-orderness watermark passes its end - 1, as Flink's EventTimeTrigger does.
// Run: npm run bench -- --system limit --workload tumbling-window

import { ChecksumAccumulator, hashWindowAggregate, type WorkloadResult } from '../workloads/checksum.ts';
import { fillEvent, newEvent } from '../workloads/generator.ts';
import { windowStart, type WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

class Aggregate {
  count = 0;
  sum = 0;
}

export async function tumblingWindowLimit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.stream;
  const size = params.tumbling.sizeMs;
  const bound = config.outOfOrdernessMs;
  const sink = new ChecksumAccumulator();
  // Open windows by start; event time is nearly ordered, so there are one or two at a time.
  const windows = new Map<number, Map<number, Aggregate>>();
  let cachedStart = NaN;
  let cached: Map<number, Aggregate> | undefined;
  let maxTs = -Infinity;
  let nextFire = Infinity; // smallest end - 1 among open windows
  const event = newEvent();
  let probeAt = firstProbeIndex(params.probe);

  const fireUpTo = (watermark: number): void => {
    const ready = [...windows.keys()].filter((start) => start + size - 1 <= watermark).sort((a, b) => a - b);
    for (const start of ready) {
      const keys = windows.get(start) as Map<number, Aggregate>;
      for (const [key, agg] of keys) sink.add(hashWindowAggregate(key, start, agg.count, agg.sum));
      windows.delete(start);
    }
    cachedStart = NaN;
    cached = undefined;
    nextFire = Infinity;
    for (const start of windows.keys()) nextFire = Math.min(nextFire, start + size - 1);
  };

  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillEvent(config, i, event);
    const ts = event.ts;
    const start = windowStart(ts, size);
    if (start !== cachedStart) {
      cached = windows.get(start);
      if (cached === undefined) {
        cached = new Map();
        windows.set(start, cached);
        if (start + size - 1 < nextFire) nextFire = start + size - 1;
      }
      cachedStart = start;
    }
    const keys = cached as Map<number, Aggregate>;
    let agg = keys.get(event.key);
    if (agg === undefined) {
      agg = new Aggregate();
      keys.set(event.key, agg);
    }
    agg.count++;
    agg.sum += event.value;
    if (ts > maxTs) {
      maxTs = ts;
      if (maxTs - bound - 1 >= nextFire) fireUpTo(maxTs - bound - 1);
    }
  }
  fireUpTo(Infinity); // end of input: the final watermark
  return sink.result(params.events);
}
