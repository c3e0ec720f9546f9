// RxJS version of workload 2: keyed rolling count written the idiomatic way, groupBy(key) and a scan per
// group (RxJS has no keyed state; a group's scan accumulator plays ValueState). Isolates groupBy's
// per-key subjects. Run: npm run bench -- --system rxjs --workload rolling-count

import { groupBy, lastValueFrom, map, mergeMap, reduce, scan } from 'rxjs';
import { ChecksumAccumulator, hashRollingCount, type WorkloadResult } from '../workloads/checksum.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { events$ } from './source.ts';

export async function rollingCountRx(params: WorkloadParams): Promise<WorkloadResult> {
  const sink = await lastValueFrom(
    events$(params).pipe(
      groupBy((e) => e.key),
      mergeMap((group) =>
        group.pipe(
          scan((count) => count + 1, 0),
          map((count) => ({ key: group.key, count })),
        ),
      ),
      reduce((acc, r) => {
        acc.add(hashRollingCount(r.key, r.count));
        return acc;
      }, new ChecksumAccumulator()),
    ),
  );
  return sink.result(params.events);
}
