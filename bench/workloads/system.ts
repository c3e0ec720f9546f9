// The pluggable "system" interface of the benchmark runner: a name and one async function per workload.
// A system may implement any subset; the runner reports the rest as "not implemented".

import type { WorkloadResult } from './checksum.ts';
import type { WorkloadId, WorkloadParams } from './params.ts';

/** Runs one workload to completion over params.events input events. */
export type WorkloadFn = (params: WorkloadParams) => Promise<WorkloadResult>;

/**
 * Builds ValueState<number> for `keys` keys (key i holds value i) and keeps it reachable until the
 * returned release function is called; the micro-benchmark measures the heap in between.
 */
export type ValueStateHolder = (keys: number) => Promise<() => void>;

export interface BenchSystem {
  readonly name: string;
  readonly workloads: Partial<Record<WorkloadId, WorkloadFn>>;
  /** Optional: the 1,000,000-key ValueState micro-benchmark. */
  readonly valueStateHolder?: ValueStateHolder;
}
