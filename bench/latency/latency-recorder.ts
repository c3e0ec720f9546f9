// The latency sink's bookkeeping: one latency per output, in the order outputs arrive, and the run's count and
// checksum (verified against the limit like every benchmark run); then the percentiles after the warm-up.
import { ChecksumAccumulator } from '../workloads/checksum.ts';
import type { Pacing } from './paced-source.ts';

/** Latencies in milliseconds, in arrival order, in a growing Float64Array (no allocation per output). */
export class LatencyRecorder {
  readonly checksum = new ChecksumAccumulator();
  private latencies = new Float64Array(1 << 16);
  private size = 0;
  /** Outputs released only by the end of the input (reference -1): counted and hashed, not timed. */
  untimed = 0;

  constructor(private readonly pacing: Pacing) {}

  /**
   * One output, made possible by event `reference` (-1, or an event not emitted yet: by the end of the input, when
   * the source gave up early), with its record hash.
   */
  record(reference: number, hash: number): void {
    this.checksum.add(hash);
    this.recordLatency(reference);
  }

  /** The latency of one output alone (a subset's recorder: the batching job's timer outputs). */
  recordLatency(reference: number): void {
    if (reference < 0 || reference >= this.pacing.emitted) {
      this.untimed++;
      return;
    }
    const latency = performance.now() - this.pacing.dueMs(reference);
    if (this.size === this.latencies.length) {
      const grown = new Float64Array(this.size * 2);
      grown.set(this.latencies);
      this.latencies = grown;
    }
    this.latencies[this.size++] = latency;
  }

  get count(): number {
    return this.size;
  }

  /** The latencies in arrival order. */
  values(): Float64Array {
    return this.latencies.subarray(0, this.size);
  }
}

/** Percentiles of one run, in milliseconds, over the outputs after the warm-up. */
export interface LatencySummary {
  /** Timed outputs (outputs released only by the end of the input are not timed). */
  readonly outputs: number;
  /** Outputs the percentiles are over (the first `warmupFraction` of all outputs left out). */
  readonly measured: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly min: number;
  /** Median of the second tenth and of the last tenth of the outputs: far apart when a system falls behind. */
  readonly p50Early: number;
  readonly p50Late: number;
}

/** The value at quantile q of a sorted array (nearest rank). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

function median(values: Float64Array): number {
  return quantile(Float64Array.from(values).sort(), 0.5);
}

export function summarise(latencies: Float64Array, warmupFraction: number): LatencySummary {
  const n = latencies.length;
  const skip = Math.floor(n * warmupFraction);
  const sorted = Float64Array.from(latencies.subarray(skip)).sort();
  const tenth = Math.max(1, Math.floor(n / 10));
  return {
    outputs: n,
    measured: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    p999: quantile(sorted, 0.999),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
    min: sorted.length > 0 ? sorted[0]! : Number.NaN,
    p50Early: median(latencies.subarray(Math.min(tenth, n - 1), Math.min(2 * tenth, n))),
    p50Late: median(latencies.subarray(Math.max(0, n - tenth))),
  };
}
