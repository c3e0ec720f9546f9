// RxJS version of workload 3: 1 s tumbling event-time windows, count and sum per key. RxJS has no event
// time, so this is what a Node user writes: a bounded-out-of-orderness watermark Subject fed every 1,000
// events (periodic, like Flink's), groupBy(window start) with a duration selector that closes a window
// group once the watermark passes its end - 1, and a reduce into a Map of keys per window.
// Run: npm run bench -- --system rxjs --workload tumbling-window

import { filter, from, groupBy, lastValueFrom, mergeMap, reduce, Subject, tap } from 'rxjs';
import { ChecksumAccumulator, hashWindowAggregate, type WorkloadResult } from '../workloads/checksum.ts';
import { type Event } from '../workloads/generator.ts';
import { windowStart, type WorkloadParams } from '../workloads/params.ts';
import { events$ } from './source.ts';

const WATERMARK_EVERY = 1_000;

interface Aggregate {
  count: number;
  sum: number;
}

export async function tumblingWindowRx(params: WorkloadParams): Promise<WorkloadResult> {
  const size = params.tumbling.sizeMs;
  const bound = params.stream.outOfOrdernessMs;
  const watermarks = new Subject<number>();
  let maxTs = -Infinity;
  let seen = 0;
  const sink = await lastValueFrom(
    events$(params).pipe(
      // Emitted before the event reaches groupBy: the event is never late, so it cannot be in a closed window.
      tap((e: Event) => {
        if (e.ts > maxTs) maxTs = e.ts;
        if (++seen % WATERMARK_EVERY === 0) watermarks.next(maxTs - bound - 1);
      }),
      groupBy((e) => windowStart(e.ts, size), {
        duration: (window) => watermarks.pipe(filter((wm) => wm >= window.key + size - 1)),
      }),
      mergeMap((window) =>
        window.pipe(
          reduce((keys, e) => {
            const agg = keys.get(e.key);
            if (agg === undefined) keys.set(e.key, { count: 1, sum: e.value });
            else {
              agg.count++;
              agg.sum += e.value;
            }
            return keys;
          }, new Map<number, Aggregate>()),
          mergeMap((keys) =>
            from([...keys].map(([key, agg]) => hashWindowAggregate(key, window.key, agg.count, agg.sum))),
          ),
        ),
      ),
      reduce((acc, hash) => {
        acc.add(hash);
        return acc;
      }, new ChecksumAccumulator()),
    ),
  );
  return sink.result(params.events);
}
