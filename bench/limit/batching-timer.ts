// Limit for workload 7 (per-user batching in a keyed process function with one event-time timer per key):
// isolates keyed state plus a timer queue with deletion. A batch starts at a user's first event and
// registers a timer at firstTs + timeoutMs; it is emitted as (uid, count, firstTs) when it reaches `size`
// events (the timer is deleted), when the timer fires, or when an event at or past the timer's time
// arrives first (so the result cannot depend on when watermarks happen to be emitted).
// Run: npm run bench -- --system limit --workload batching-timer

import { ChecksumAccumulator, hashBatch, type WorkloadResult } from '../workloads/checksum.ts';
import { fillEvent, newEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';
import { TimerHeap } from './timer-heap.ts';

class Batch {
  count = 0;
  firstTs = 0;
  /** The registered timer's time, or -1 when none is registered (deleted or fired). */
  timerTs = -1;
  constructor(readonly uid: number) {}
}

export async function batchingTimerLimit(params: WorkloadParams): Promise<WorkloadResult> {
  const config = params.stream;
  const { size, timeoutMs } = params.batching;
  const bound = config.outOfOrdernessMs;
  const sink = new ChecksumAccumulator();
  const batches = new Map<number, Batch>();
  // Timer entries carry the batch; an entry is live only while batch.timerTs equals its time.
  const timers = new TimerHeap<Batch>();
  let maxTs = -Infinity;
  const event = newEvent();
  let probeAt = firstProbeIndex(params.probe);

  const emit = (batch: Batch): void => {
    sink.add(hashBatch(batch.uid, batch.count, batch.firstTs));
    batch.count = 0;
    batch.timerTs = -1;
  };

  const fireUpTo = (watermark: number): void => {
    while (timers.size > 0 && timers.peekTime() <= watermark) {
      const time = timers.peekTime();
      const batch = timers.pop();
      if (batch.timerTs === time) emit(batch);
    }
  };

  for (let i = 0; i < params.events; i++) {
    if (i === probeAt) probeAt = hitProbe(params.probe, i);
    fillEvent(config, i, event);
    let batch = batches.get(event.key);
    if (batch === undefined) {
      batch = new Batch(event.key);
      batches.set(event.key, batch);
    }
    if (batch.count > 0 && event.ts >= batch.timerTs) emit(batch);
    if (batch.count === 0) {
      batch.firstTs = event.ts;
      batch.timerTs = event.ts + timeoutMs;
      timers.push(batch.timerTs, batch);
    }
    if (++batch.count === size) emit(batch);
    if (event.ts > maxTs) {
      maxTs = event.ts;
      if (maxTs - bound - 1 >= timers.peekTime()) fireUpTo(maxTs - bound - 1);
    }
  }
  fireUpTo(Infinity);
  return sink.result(params.events);
}
