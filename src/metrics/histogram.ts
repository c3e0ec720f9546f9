// DescriptiveStatisticsHistogram: a distribution over a sliding window of the latest values (Flink's).
import type { Histogram, HistogramStatistics } from '../core/metric-group.ts';

/**
 * Flink's DescriptiveStatisticsHistogram: keeps the last `windowSize` values in a ring (no allocation per
 * update); statistics are computed when read (sorting a copy: O(w log w) on the reporter, never per update).
 */
export class DescriptiveStatisticsHistogram implements Histogram {
  private readonly ring: Float64Array;
  private count = 0;

  constructor(readonly windowSize = 1024) {
    if (!(windowSize >= 1))
      throw new RangeError(`A histogram window needs at least 1 value, got ${windowSize}`);
    this.ring = new Float64Array(windowSize);
  }

  update(value: number): void {
    this.ring[this.count % this.windowSize] = value;
    this.count++;
  }

  getCount(): number {
    return this.count;
  }

  getStatistics(): HistogramStatistics {
    const n = Math.min(this.count, this.windowSize);
    return new SortedStatistics(Array.from(this.ring.subarray(0, n)).sort((a, b) => a - b));
  }
}

/**
 * Statistics over sorted values; quantiles by linear interpolation (Commons Math's default estimation). Also what a
 * histogram mirrored from a worker thread reports, over the values its statistics held there.
 */
export class SortedStatistics implements HistogramStatistics {
  constructor(private readonly sorted: number[]) {}

  getQuantile(quantile: number): number {
    const n = this.sorted.length;
    if (n === 0) return 0;
    const position = quantile * (n + 1);
    if (position < 1) return this.sorted[0]!;
    if (position >= n) return this.sorted[n - 1]!;
    const lower = Math.floor(position);
    const d = position - lower;
    return this.sorted[lower - 1]! + d * (this.sorted[lower]! - this.sorted[lower - 1]!);
  }
  getValues(): number[] {
    return [...this.sorted];
  }
  size(): number {
    return this.sorted.length;
  }
  getMean(): number {
    if (this.sorted.length === 0) return 0;
    let sum = 0;
    for (const v of this.sorted) sum += v;
    return sum / this.sorted.length;
  }
  getStdDev(): number {
    const n = this.sorted.length;
    if (n < 2) return 0;
    const mean = this.getMean();
    let sq = 0;
    for (const v of this.sorted) sq += (v - mean) * (v - mean);
    return Math.sqrt(sq / (n - 1));
  }
  getMax(): number {
    return this.sorted.length === 0 ? 0 : this.sorted[this.sorted.length - 1]!;
  }
  getMin(): number {
    return this.sorted.length === 0 ? 0 : this.sorted[0]!;
  }
}
