// Runs Flink's side of the latency benchmark (bench/flink's LatencyMain, one JVM, a MiniCluster per run) and turns
// its JSON lines into one LatencyCell per (buffer timeout, workload).
import { runFlinkMain } from '../runner/flink-main.ts';
import type { LatencyCell, LatencyRunResult, MaxRateRun } from './latency-types.ts';
import type { LatencyWorkload } from './weir-latency-jobs.ts';

export interface FlinkLatencyOptions {
  readonly rates: readonly (number | 'half')[];
  readonly seconds: number;
  readonly runs: number;
  readonly maxEvents: number;
  readonly warmupFraction: number;
  readonly workloads: readonly LatencyWorkload[];
  readonly seed: number;
  readonly keys: number;
  /** `default` (Flink's 100 ms: system flink-p1) and/or milliseconds (env.setBufferTimeout: flink-p1-bt<ms>). */
  readonly bufferTimeouts: readonly string[];
}

type FlinkLine =
  | ({ type: 'max'; system: string; workload: LatencyWorkload } & MaxRateRun)
  | ({ type: 'latency'; system: string; workload: LatencyWorkload } & LatencyRunResult);

export async function runFlinkLatency(
  options: FlinkLatencyOptions,
  log: (line: string) => void,
): Promise<LatencyCell[]> {
  const args = [
    '--rates',
    options.rates.join(','),
    '--seconds',
    String(options.seconds),
    '--runs',
    String(options.runs),
    '--max-events',
    String(options.maxEvents),
    '--warmup-fraction',
    String(options.warmupFraction),
    '--workloads',
    options.workloads.join(','),
    '--seed',
    String(options.seed),
    '--keys',
    String(options.keys),
    '--buffer-timeouts',
    options.bufferTimeouts.join(','),
  ];
  const lines = await runFlinkMain<FlinkLine>('LatencyMain', args, (line) =>
    log(
      line.type === 'max'
        ? `  ${line.system} ${line.workload}: max ${Math.round(line.rate).toLocaleString('en-US')} events/s`
        : `  ${line.system} ${line.workload} ${line.rate}/s: p50 ${line.latency.p50 ?? '–'} ms p99 ${line.latency.p99 ?? '–'} ms${line.fellBehind ? ' (fell behind)' : ''}`,
    ),
  );
  const cells: LatencyCell[] = [];
  for (const timeout of options.bufferTimeouts) {
    const system = timeout === 'default' ? 'flink-p1' : `flink-p1-bt${timeout}`;
    for (const workload of options.workloads) {
      const mine = lines.filter((l) => l.system === system && l.workload === workload);
      const max = mine.find((l) => l.type === 'max');
      const runs = mine.filter((l) => l.type === 'latency');
      cells.push({
        system,
        workload,
        status: max === undefined ? 'failed' : 'ok',
        ...(max === undefined
          ? { note: 'no result from LatencyMain' }
          : {
              max: {
                events: max.events,
                ms: max.ms,
                rate: max.rate,
                count: max.count,
                checksum: max.checksum,
              },
            }),
        runs: runs.map(({ type: _type, system: _system, workload: _workload, ...run }) => run),
      });
    }
  }
  return cells;
}
