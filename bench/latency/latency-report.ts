// The latency benchmark's Markdown report (bench/results/latency.md): per workload and rate, each system's
// percentiles (the median over the runs of each run's percentile), or "fell behind" with what it achieved.
import type { LatencyCell, LatencyRunResult } from './latency-types.ts';
import type { LatencySummary } from './latency-recorder.ts';
import { LATENCY_WORKLOADS } from './weir-latency-jobs.ts';

export interface LatencyMeta {
  readonly date: string;
  readonly node: string;
  readonly cpus: number;
  readonly loadAverageStart: readonly number[];
  readonly loadAverageEnd: readonly number[];
  readonly seconds: number;
  readonly runs: number;
  readonly maxEvents: number;
  readonly warmupFraction: number;
  readonly keys: number;
  readonly flink?: string;
  readonly flinkSkipped?: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds for the report; NaN (no outputs) arrives from a child process's JSON as null. */
export const ms = (x: number | null): string =>
  x === null || Number.isNaN(x)
    ? '–'
    : x < 10
      ? x.toFixed(2)
      : x < 100
        ? x.toFixed(1)
        : Math.round(x).toLocaleString('en-US');
const rate = (x: number): string =>
  x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${Math.round(x / 1000).toLocaleString('en-US')} k`;

function describeRate(run: LatencyRunResult): string {
  return run.rateSpec === 'half' ? `50 % of max = ${rate(run.rate)}` : rate(run.rate);
}

function row(
  workload: string,
  rateText: string,
  system: string,
  runs: readonly LatencyRunResult[],
  pick: (run: LatencyRunResult) => LatencySummary | undefined,
): string {
  const summaries = runs.map(pick).filter((s): s is LatencySummary => s !== undefined && s.measured > 0);
  const behind = runs.filter((r) => r.fellBehind);
  const outputs = summaries.map((s) => s.measured).reduce((a, b) => a + b, 0);
  if (behind.length > 0) {
    const worst = behind.reduce((a, b) => (a.lagMs > b.lagMs ? a : b));
    const s = pick(worst);
    return `| ${workload} | ${rateText} | ${system} | fell behind in ${behind.length} of ${runs.length} runs: achieved ${rate(worst.achievedRate)}/s, source ${ms(worst.lagMs)} ms late at the end, median latency ${s === undefined ? '–' : `${ms(s.p50Early)} → ${ms(s.p50Late)}`} ms | | | | ${outputs.toLocaleString('en-US')} |`;
  }
  if (summaries.length === 0) return `| ${workload} | ${rateText} | ${system} | no timed outputs | | | | 0 |`;
  return `| ${workload} | ${rateText} | ${system} | ${ms(median(summaries.map((s) => s.p50)))} | ${ms(median(summaries.map((s) => s.p99)))} | ${ms(median(summaries.map((s) => s.p999)))} | ${ms(Math.max(...summaries.map((s) => s.max)))} | ${outputs.toLocaleString('en-US')} |`;
}

export function renderLatencyMarkdown(meta: LatencyMeta, cells: readonly LatencyCell[]): string {
  const lines: string[] = [];
  lines.push(
    `Measured ${meta.date} on Node ${meta.node}, ${meta.cpus} cores, load average ${meta.loadAverageStart.map((x) => x.toFixed(2)).join(' ')} at the start and ${meta.loadAverageEnd.map((x) => x.toFixed(2)).join(' ')} at the end.`,
    `${meta.runs} paced run(s) of ${meta.seconds} s per rate; maximum rate from one unpaced run of ${meta.maxEvents.toLocaleString('en-US')} events after an unpaced warm-up; the first ${Math.round(meta.warmupFraction * 100)} % of each run's outputs left out; ${meta.keys.toLocaleString('en-US')} keys.`,
    meta.flink !== undefined ? `Flink: ${meta.flink}.` : `Flink: ${meta.flinkSkipped ?? 'not run'}.`,
    'Every run (paced and unpaced) was verified equal (count and checksum) to the limit loop before this table was written.',
    '',
    '| system | workload | maximum (unpaced) |',
    '| ------ | -------- | ----------------: |',
  );
  for (const cell of cells) {
    lines.push(
      `| ${cell.system} | ${cell.workload} | ${cell.status === 'ok' && cell.max !== undefined ? `${rate(cell.max.rate)}/s` : `${cell.status}: ${cell.note ?? ''}`} |`,
    );
  }
  lines.push(
    '',
    "Latency in milliseconds (median over the runs of each run's percentile; max: the largest of all runs).",
    '',
    '| workload | input rate (events/s) | system | p50 | p99 | p99.9 | max | timed outputs |',
    '| -------- | --------------------: | ------ | --: | --: | ----: | --: | ------------: |',
  );
  for (const workload of LATENCY_WORKLOADS) {
    const mine = cells.filter((c) => c.workload === workload && c.status === 'ok');
    // Rates in the order asked, each system's runs at that rate spec.
    const specs: LatencyRunResult['rateSpec'][] = [];
    for (const c of mine) for (const r of c.runs) if (!specs.includes(r.rateSpec)) specs.push(r.rateSpec);
    for (const spec of specs) {
      for (const cell of mine) {
        const runs = cell.runs.filter((r) => r.rateSpec === spec);
        if (runs.length === 0) continue;
        lines.push(row(workload, describeRate(runs[0]!), cell.system, runs, (r) => r.latency));
        if (workload === 'batching-timer')
          lines.push(
            row(
              `${workload} (timer outputs)`,
              describeRate(runs[0]!),
              cell.system,
              runs,
              (r) => r.timerLatency,
            ),
          );
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
