// How many distinct keys hold state in each workload, the divisor of "bytes of state per key".

import { NEXMARK_CYCLE } from '../workloads/generator.ts';
import type { WorkloadId, WorkloadParams } from '../workloads/params.ts';

export function stateKeys(workload: WorkloadId, params: WorkloadParams): number {
  switch (workload) {
    case 'stateless':
      return 0;
    case 'hot-items':
      return params.bids.auctions;
    case 'session-window':
      return params.bids.bidders;
    case 'q7':
      return 1; // one window over all bids (windowAll)
    case 'q8':
      // The persons of one window: the join's keys.
      return Math.ceil((params.nexmark.eventsPerSecond * params.nexmarkWindow.sizeMs) / 1000 / NEXMARK_CYCLE);
    case 'rolling-count':
    case 'tumbling-window':
    case 'cep':
    case 'batching-timer':
      return params.stream.keys;
  }
}
