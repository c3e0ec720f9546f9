// The latency benchmark's result records, shared by Weir's cells, the Flink driver, the verifier and the report
// (bench/results/latency.json holds them).
import type { LatencySummary } from './latency-recorder.ts';
import type { LatencyWorkload } from './weir-latency-jobs.ts';

/** A rate as asked for: events per second, or half of the system's maximum measured in the same run. */
export type RateSpec = number | 'half';

/** One paced run. */
export interface LatencyRunResult {
  /** The rate as asked for ('half' = 50 % of the measured maximum) and the rate it resolved to, events/s. */
  readonly rateSpec: RateSpec;
  readonly rate: number;
  readonly events: number;
  readonly count: number;
  readonly checksum: number;
  /** Outputs released only by the end of the input: verified, not timed. */
  readonly untimed: number;
  /** Events over the time from the first poll to the last event's emission. */
  readonly achievedRate: number;
  /** How late the source emitted the last event, ms: large when the system could not keep up. */
  readonly lagMs: number;
  readonly fellBehind: boolean;
  readonly latency: LatencySummary;
  /** Batching only: the timer outputs alone. */
  readonly timerLatency?: LatencySummary;
}

/** The unpaced run that gives the system's maximum rate for this job. */
export interface MaxRateRun {
  readonly events: number;
  readonly ms: number;
  readonly rate: number;
  readonly count: number;
  readonly checksum: number;
}

/** Every run of one (system, workload). */
export interface LatencyCell {
  /** weir, flink-p1 (default buffer timeout), flink-p1-bt0 (buffer timeout 0). */
  readonly system: string;
  readonly workload: LatencyWorkload;
  readonly status: 'ok' | 'failed';
  readonly note?: string;
  readonly max?: MaxRateRun;
  readonly runs: readonly LatencyRunResult[];
}

/** A run fell behind when its source emitted the last event later than this after its due time. */
export function fellBehind(lagMs: number, durationMs: number): boolean {
  return lagMs > Math.max(50, durationMs * 0.05);
}
