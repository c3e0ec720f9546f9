// The "limit" system: hand-written loops with Maps and arrays and no engine, the ceiling Weir is measured
// against. Each workload's file says what it isolates; all share the generator and checksums.

import type { BenchSystem } from '../workloads/system.ts';
import { batchingTimerLimit } from './batching-timer.ts';
import { cepLimit } from './cep.ts';
import { hotItemsLimit } from './hot-items.ts';
import { q7Limit } from './q7.ts';
import { q8Limit } from './q8.ts';
import { rollingCountLimit } from './rolling-count.ts';
import { sessionWindowLimit } from './session-window.ts';
import { statelessLimit } from './stateless.ts';
import { tumblingWindowLimit } from './tumbling-window.ts';

export const limitSystem: BenchSystem = {
  name: 'limit',
  workloads: {
    stateless: statelessLimit,
    'rolling-count': rollingCountLimit,
    'tumbling-window': tumblingWindowLimit,
    'hot-items': hotItemsLimit,
    'session-window': sessionWindowLimit,
    cep: cepLimit,
    'batching-timer': batchingTimerLimit,
    q7: q7Limit,
    q8: q8Limit,
  },
  // A Map<number, number> is the least a keyed ValueState<number> can take in JavaScript.
  valueStateHolder: async (keys) => {
    let state: Map<number, number> | undefined = new Map();
    for (let key = 0; key < keys; key++) state.set(key, key);
    return () => {
      state = undefined;
    };
  },
};
