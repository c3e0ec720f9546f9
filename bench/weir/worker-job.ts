// The job module of weir-p2's worker threads: each worker imports it and builds the same workload the main thread
// runs (named, with its parameters, in WEIR_BENCH_JOB), so its execute() attaches to the worker's slots.
import type { WorkloadId, WorkloadParams } from '../workloads/params.ts';
import { weirSystem } from './index.ts';

const cell = process.env.WEIR_BENCH_JOB;
if (cell !== undefined) {
  const { workload, params } = JSON.parse(cell) as { workload: WorkloadId; params: WorkloadParams };
  await weirSystem.workloads[workload]!(params);
}
