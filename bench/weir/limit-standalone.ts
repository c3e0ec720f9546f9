// The limit loops through the same standalone reporter, for side-by-side numbers on a shared machine.
// Run: node --import tsx bench/weir/limit-standalone.ts tumbling-window [events]
import { limitSystem } from '../limit/index.ts';
import { defaultParams, type WorkloadId } from '../workloads/params.ts';
import { reportStandalone } from './standalone.ts';

const id = (process.argv[2] ?? 'tumbling-window') as WorkloadId;
await reportStandalone(
  `limit ${id}`,
  limitSystem.workloads[id]!,
  defaultParams(Number(process.argv[3] ?? 4_000_000)),
);
