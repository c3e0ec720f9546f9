// The RxJS system: workloads 1-3 as a Node user would write them today with RxJS 7. Workloads 4-7 have no
// idiomatic RxJS form (sliding event-time windows, sessions, CEP, keyed timers) and are reported as such.

import type { BenchSystem } from '../workloads/system.ts';
import { rollingCountRx } from './rolling-count.ts';
import { statelessRx } from './stateless.ts';
import { tumblingWindowRx } from './tumbling-window.ts';

export const rxjsSystem: BenchSystem = {
  name: 'rxjs',
  workloads: {
    stateless: statelessRx,
    'rolling-count': rollingCountRx,
    'tumbling-window': tumblingWindowRx,
  },
};
