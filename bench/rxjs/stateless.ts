// RxJS version of workload 1: map → filter → subscriber that hashes and discards. Isolates RxJS's
// per-operator cost on a synchronous source. Run: npm run bench -- --system rxjs --workload stateless

import { filter, map, lastValueFrom, reduce } from 'rxjs';
import { ChecksumAccumulator, hashStateless, type WorkloadResult } from '../workloads/checksum.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { events$ } from './source.ts';

export async function statelessRx(params: WorkloadParams): Promise<WorkloadResult> {
  const { multiplier, offset, dropModulus } = params.stateless;
  const sink = await lastValueFrom(
    events$(params).pipe(
      map((e) => ({ key: e.key, value: e.value * multiplier + offset })),
      filter((r) => r.value % dropModulus !== 0),
      reduce((acc, r) => {
        acc.add(hashStateless(r.key, r.value));
        return acc;
      }, new ChecksumAccumulator()),
    ),
  );
  return sink.result(params.events);
}
