// How many distinct keys hold state in each workload, the divisor of "bytes of state per key".

import type { WorkloadId, WorkloadParams } from '../workloads/params.ts';

export function stateKeys(workload: WorkloadId, params: WorkloadParams): number {
  switch (workload) {
    case 'stateless':
      return 0;
    case 'hot-items':
      return params.bids.auctions;
    case 'session-window':
      return params.bids.bidders;
    case 'rolling-count':
    case 'tumbling-window':
    case 'cep':
    case 'batching-timer':
      return params.stream.keys;
  }
}
