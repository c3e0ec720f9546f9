// The Weir system for the benchmark runner: register each workload implementation here as it is written
// (one file per workload in this folder; see README.md for what a workload must compute and return).

import type { BenchSystem } from '../workloads/system.ts';
import { batchingTimerWeir } from './batching-timer.ts';
import { cepWeir } from './cep.ts';
import { hotItemsWeir } from './hot-items.ts';
import { q7Weir } from './q7.ts';
import { q8Weir } from './q8.ts';
import { rollingCountWeir } from './rolling-count.ts';
import { statelessWeir } from './stateless.ts';
import { weirValueStateHolder } from './value-state-holder.ts';
import { sessionWindowWeir } from './session-window.ts';
import { tumblingWindowWeir } from './tumbling-window.ts';

export const weirSystem: BenchSystem = {
  name: 'weir',
  workloads: {
    stateless: statelessWeir,
    'rolling-count': rollingCountWeir,
    'tumbling-window': tumblingWindowWeir,
    'hot-items': hotItemsWeir,
    'session-window': sessionWindowWeir,
    cep: cepWeir,
    'batching-timer': batchingTimerWeir,
    q7: q7Weir,
    q8: q8Weir,
  },
  valueStateHolder: weirValueStateHolder,
};
