// The result record of one (system, workload) cell of the benchmark, shared by the Node and Flink runners,
// the verifier and the reports (bench/results/latest.json holds an array of them).

import type { WorkloadId } from '../workloads/params.ts';
import type { Spread } from './stats.ts';

export interface RunSample {
  /** The timed run: the call's wall time less `startupMs`. */
  readonly ms: number;
  /** Worker-thread start-up the run left out (weir-p2; see WorkloadResult.startupMs). */
  readonly startupMs?: number;
  readonly count: number;
  readonly checksum: number;
  readonly events: number;
  /** Checkpoints completed during the run (cells with checkpointing on; Flink: those its sink heard of). */
  readonly checkpoints?: number;
}

export type CellStatus = 'ok' | 'not-implemented' | 'unavailable' | 'failed';

export interface Measurement {
  readonly system: string;
  readonly workload: WorkloadId;
  readonly status: CellStatus;
  /** Why the cell has no numbers, or what to know about them. */
  readonly note?: string;
  readonly events: number;
  readonly parallelism: number;
  readonly runs: readonly RunSample[];
  readonly eventsPerSecond?: Spread;
  /** Peak resident set of the process that ran the cell (a child per cell for Node, the JVM for Flink). */
  readonly rssPeakBytes?: number;
  /** Node: largest heapUsed seen at the end of a run (garbage included); Flink: peak of the heap pools. */
  readonly heapPeakBytes?: number;
  /** Heap growth between the probe's baseline and measure indices, after full GCs, per key holding state. */
  readonly stateBytesPerKey?: number;
  readonly stateKeys?: number;
  /** When the cell's last run ended (ISO time): cells kept from an earlier run (--keep-others) keep their own. */
  readonly endedAt?: string;
  /** The machine's 1-minute load average when the cell ended: above half the cores, other work ran beside it. */
  readonly loadAverage?: number;
}
