// The generated input as an RxJS Observable, the way a Node user would wrap an iterator: one object per
// event pushed synchronously by a plain loop (RxJS's `range` + `map` costs an extra operator per event).

import { Observable } from 'rxjs';
import { type Event, generateEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { firstProbeIndex, hitProbe } from '../workloads/probe.ts';

export function events$(params: WorkloadParams): Observable<Event> {
  return new Observable<Event>((subscriber) => {
    let probeAt = firstProbeIndex(params.probe);
    for (let i = 0; i < params.events && !subscriber.closed; i++) {
      if (i === probeAt) probeAt = hitProbe(params.probe, i);
      subscriber.next(generateEvent(params.stream, i));
    }
    subscriber.complete();
  });
}
