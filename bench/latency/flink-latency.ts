// Runs Flink's side of the latency benchmark (bench/flink's LatencyMain, one JVM, a MiniCluster per run) and turns
// its JSON lines into one LatencyCell per (buffer timeout, workload).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LatencyCell, LatencyRunResult, MaxRateRun } from './latency-types.ts';
import type { LatencyWorkload } from './weir-latency-jobs.ts';

const FLINK_DIR = fileURLToPath(new URL('../flink/', import.meta.url));

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

export function runFlinkLatency(
  options: FlinkLatencyOptions,
  log: (line: string) => void,
): Promise<LatencyCell[]> {
  const classpath = `${FLINK_DIR}target/classes:${readFileSync(`${FLINK_DIR}target/classpath.txt`, 'utf8').trim()}`;
  const args = [
    '-cp',
    classpath,
    'dev.weir.bench.LatencyMain',
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
  return new Promise((resolve, reject) => {
    const child = spawn('java', args, { cwd: FLINK_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: FlinkLine[] = [];
    let pending = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const text = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as FlinkLine;
        lines.push(line);
        log(
          line.type === 'max'
            ? `  ${line.system} ${line.workload}: max ${Math.round(line.rate).toLocaleString('en-US')} events/s`
            : `  ${line.system} ${line.workload} ${line.rate}/s: p50 ${line.latency.p50 ?? '–'} ms p99 ${line.latency.p99 ?? '–'} ms${line.fellBehind ? ' (fell behind)' : ''}`,
        );
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`Flink exited with ${code}:\n${stderr.split('\n').slice(-30).join('\n')}`));
        return;
      }
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
      resolve(cells);
    });
  });
}
