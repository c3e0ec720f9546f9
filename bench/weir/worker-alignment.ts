// Watermark alignment for the bench's sources, opted into by an environment variable (a system of its own).
import type { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';

/**
 * `WEIR_BENCH_ALIGN=drift:interval` (ms) aligns the source subtasks of the workloads that read it (hot items, sessions, CEP) in
 * one group with that drift and update interval, for `worker-cpu.ts ... p2,p2+WEIR_BENCH_ALIGN=500:5`: a separate
 * system, because Flink's jobs in the suite do not align theirs. Unset: the strategy as it is.
 */
export function benchAlignment<T>(strategy: WatermarkStrategy<T>): WatermarkStrategy<T> {
  const setting = process.env.WEIR_BENCH_ALIGN;
  if (setting === undefined || setting === '') return strategy;
  const [drift, interval] = setting.split(':').map(Number);
  return strategy.withWatermarkAlignment('bench', drift!, interval ?? 1000);
}
