// The latency benchmark: end-to-end latency percentiles at fixed input rates of processing time, in-process (no
// Kafka), on the rolling count, the batching job and CEP. Method and definitions: docs/performance.md, "Latency".
//
//   npm run bench:latency -- [--rates 100000,1000000,half] [--seconds 5] [--runs 3] [--max-events 1000000]
//                            [--workload rolling-count,batching-timer,cep] [--warmup-fraction 0.1]
//                            [--seed 42] [--keys 10000] [--out DIR] [--no-flink] [--buffer-timeouts default,0]
//   npm run bench:latency -- --smoke    # Weir only, in-process, 50,000 events/s for 0.6 s, 100 keys; writes to a
//                                       # temporary folder
//
// `half` is 50 % of the system's maximum rate, measured by an unpaced run of the same job in the same process just
// before. Each Weir workload runs in a fresh child process; Flink (when Java and Maven are there; never with --smoke)
// runs in one JVM, a MiniCluster per run, with its default buffer timeout (flink-p1) and with 0 (flink-p1-bt0). Every run is verified (count and checksum) against the
// limit loop before anything is written. Writes bench/results/latency.{json,md}.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limitSystem } from '../limit/index.ts';
import { buildFlink, detectToolchain, flinkVersion } from '../runner/flink-runner.ts';
import type { WorkloadResult } from '../workloads/checksum.ts';
import { DEFAULT_KEYS, defaultParams } from '../workloads/params.ts';
import { ms, renderLatencyMarkdown, type LatencyMeta } from './latency-report.ts';
import { runFlinkLatency } from './flink-latency.ts';
import type { LatencyCell, RateSpec } from './latency-types.ts';
import { runWeirLatencyCell, type WeirLatencyCellSpec } from './weir-latency-cell.ts';
import { LATENCY_WORKLOADS, type LatencyWorkload } from './weir-latency-jobs.ts';

export interface LatencyOptions {
  readonly smoke: boolean;
  readonly rates: readonly RateSpec[];
  readonly seconds: number;
  readonly runs: number;
  readonly maxEvents: number;
  readonly warmupFraction: number;
  readonly workloads: readonly LatencyWorkload[];
  readonly seed: number;
  readonly keys: number;
  readonly out: string;
  readonly flink: boolean;
  readonly bufferTimeouts: readonly string[];
}

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CELL = join(HERE, 'weir-latency-cell.ts');

export function parseLatencyOptions(argv: readonly string[]): LatencyOptions {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, fallback: number): number => {
    const raw = value(name);
    const parsed = raw === undefined ? fallback : Number(raw);
    if (Number.isNaN(parsed)) throw new Error(`--${name} needs a number, got ${raw}`);
    return parsed;
  };
  const smoke = argv.includes('--smoke');
  const rates = (value('rates') ?? (smoke ? '50000' : '100000,1000000,half')).split(',').map((r) => {
    if (r === 'half') return 'half' as const;
    const n = Number(r);
    if (!(n > 0)) throw new Error(`--rates takes events per second or 'half', got ${r}`);
    return n;
  });
  const workloads = (value('workload')?.split(',') ?? [...LATENCY_WORKLOADS]) as LatencyWorkload[];
  for (const w of workloads)
    if (!LATENCY_WORKLOADS.includes(w))
      throw new Error(`unknown workload ${w}; the latency benchmark has ${LATENCY_WORKLOADS.join(', ')}`);
  return {
    smoke,
    rates,
    seconds: num('seconds', smoke ? 0.6 : 5),
    runs: num('runs', smoke ? 1 : 3),
    maxEvents: num('max-events', smoke ? 20_000 : 1_000_000),
    warmupFraction: num('warmup-fraction', 0.1),
    workloads,
    seed: num('seed', 42),
    // The smoke run's 30,000 events span 300 ms of event time: 100 keys fill batches and complete matches in it.
    keys: num('keys', smoke ? 100 : DEFAULT_KEYS),
    out:
      value('out') ??
      (smoke ? mkdtempSync(join(tmpdir(), 'weir-latency-smoke-')) : join(HERE, '..', 'results')),
    flink: !smoke && !argv.includes('--no-flink'),
    bufferTimeouts: (value('buffer-timeouts') ?? 'default,0').split(','),
  };
}

function runWeirCellInChild(spec: WeirLatencyCellSpec): Promise<LatencyCell> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CELL, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
    child.on('close', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code === 0 && line !== undefined) resolve(JSON.parse(line.slice(7)) as LatencyCell);
      else
        resolve({
          system: 'weir',
          workload: spec.workload,
          status: 'failed',
          note: `child exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
          runs: [],
        });
    });
  });
}

/** Every disagreement with the limit (count, checksum), one line each; also any negative latency (a harness bug). */
export async function verifyLatencyCells(
  cells: readonly LatencyCell[],
  seed: number,
  keys: number,
): Promise<string[]> {
  const reference = new Map<string, WorkloadResult>();
  const expected = async (workload: LatencyWorkload, events: number): Promise<WorkloadResult> => {
    const key = `${workload}@${events}`;
    let result = reference.get(key);
    if (result === undefined) {
      result = await limitSystem.workloads[workload]!(defaultParams(events, seed, 1, keys));
      reference.set(key, result);
    }
    return result;
  };
  const problems: string[] = [];
  for (const cell of cells) {
    if (cell.status !== 'ok') continue;
    const checked = [
      ...(cell.max === undefined ? [] : [{ what: 'unpaced', ...cell.max }]),
      ...cell.runs.map((r) => ({ what: `${r.rate}/s`, ...r })),
    ];
    for (const run of checked) {
      const want = await expected(cell.workload, run.events);
      if (run.count !== want.count || run.checksum !== want.checksum)
        problems.push(
          `${cell.system} ${cell.workload} ${run.what}: count ${run.count} checksum ${run.checksum}, expected ${want.count} ${want.checksum} (${run.events} events)`,
        );
    }
    for (const r of cell.runs)
      if (r.latency.min < 0)
        problems.push(
          `${cell.system} ${cell.workload} ${r.rate}/s: an output came before its reference event was due`,
        );
  }
  return problems;
}

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export async function runLatencyBench(options: LatencyOptions): Promise<number> {
  const loadAverageStart = loadavg();
  log(
    `weir latency bench${options.smoke ? ' --smoke' : ''}: rates ${options.rates.join(', ')}, ${options.seconds} s x ${options.runs} run(s) per rate, workloads ${options.workloads.join(', ')}`,
  );
  if (loadAverageStart[0]! > cpus().length * 0.5)
    log(
      `warning: load average ${loadAverageStart[0]!.toFixed(2)} on ${cpus().length} cores: latency under load measures the machine, not the systems`,
    );
  const cells: LatencyCell[] = [];
  for (const workload of options.workloads) {
    const spec: WeirLatencyCellSpec = {
      workload,
      rates: options.rates,
      seconds: options.seconds,
      runs: options.runs,
      maxEvents: options.maxEvents,
      warmupFraction: options.warmupFraction,
      seed: options.seed,
      keys: options.keys,
    };
    const cell = options.smoke ? await runWeirLatencyCell(spec) : await runWeirCellInChild(spec);
    cells.push(cell);
    log(
      `  weir ${workload}: ${cell.status === 'ok' ? `max ${Math.round(cell.max!.rate).toLocaleString('en-US')} events/s; ${cell.runs.map((r) => `${r.rate}/s p50 ${ms(r.latency.p50)} ms p99 ${ms(r.latency.p99)} ms${r.fellBehind ? ' (fell behind)' : ''}`).join('; ')}` : `${cell.status}: ${cell.note}`}`,
    );
  }

  let flink: string | undefined;
  let flinkSkipped: string | undefined = options.smoke ? 'not run (--smoke)' : 'not run (--no-flink)';
  if (options.flink) {
    const toolchain = detectToolchain();
    if (typeof toolchain === 'string') {
      flinkSkipped = toolchain;
      log(`FLINK SKIPPED: ${toolchain}`);
    } else {
      const build = buildFlink(log);
      log(`flink: ${toolchain.java}; Maven build ${build.seconds.toFixed(1)} s`);
      try {
        cells.push(...(await runFlinkLatency(options, log)));
        flink = `Flink ${flinkVersion()} (${toolchain.java}), MiniCluster, parallelism 1, heap state backend; flink-p1 with the default buffer timeout (100 ms), flink-p1-bt0 with env.setBufferTimeout(0)`;
        flinkSkipped = undefined;
      } catch (error) {
        cells.push(
          ...options.workloads.map((workload): LatencyCell => ({
            system: 'flink-p1',
            workload,
            status: 'failed',
            note: String(error),
            runs: [],
          })),
        );
      }
    }
  }

  const problems = await verifyLatencyCells(cells, options.seed, options.keys);
  if (problems.length > 0) {
    process.stderr.write(
      `\n!!! LATENCY RUNS DISAGREE WITH THE LIMIT: no results written !!!\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
    );
    return 1;
  }
  log('verified: every latency run matches the limit loop (count and checksum)');
  const meta: LatencyMeta = {
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: cpus().length,
    loadAverageStart,
    loadAverageEnd: loadavg(),
    seconds: options.seconds,
    runs: options.runs,
    maxEvents: options.maxEvents,
    warmupFraction: options.warmupFraction,
    keys: options.keys,
    ...(flink === undefined ? {} : { flink }),
    ...(flinkSkipped === undefined ? {} : { flinkSkipped }),
  };
  const markdown = renderLatencyMarkdown(meta, cells);
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'latency.json'), `${JSON.stringify({ meta, cells }, null, 2)}\n`);
  writeFileSync(join(options.out, 'latency.md'), markdown);
  log(`\n${markdown}\nwrote ${join(options.out, 'latency.{json,md}')}`);
  return cells.some((c) => c.status !== 'ok') ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await runLatencyBench(parseLatencyOptions(process.argv.slice(2)));
}
