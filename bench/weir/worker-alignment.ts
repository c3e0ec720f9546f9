// Watermark alignment for the bench's sources, opted into by an environment variable (a system of its own).
import type { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';

/**
 * `WEIR_BENCH_ALIGN=drift:interval` (ms) aligns the source subtasks of the workloads that read it (hot items, sessions, CEP) in
 * one group with that drift and update interval, for `worker-cpu.ts ... p2,p2+WEIR_BENCH_ALIGN=500:5`, or for a whole
 * bench run: Flink's jobs of the same workloads read the same variable (`Workload.benchAlignment` in bench/flink), so
 * weir-p2 and flink-p2 cells of such a run both align. Unset: the strategy as it is.
 */
export function benchAlignment<T>(strategy: WatermarkStrategy<T>): WatermarkStrategy<T> {
  const setting = process.env.WEIR_BENCH_ALIGN;
  if (setting === undefined || setting === '') return strategy;
  const [drift, interval] = setting.split(':').map(Number);
  return strategy.withWatermarkAlignment('bench', drift!, interval ?? 1000);
}
