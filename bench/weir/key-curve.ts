// Cost by key count in one command: main-thread CPU time per element of Weir and of the limit, each cell in a
// process of its own, the two systems taking turns and the key counts rotating, so both meet the same machine.
//
// Why CPU time of the job's thread: on a shared machine wall-clock rates follow the load (the limit's small-key
// cells most, since their working set fits the caches only when nothing else runs); CPU time of the thread that
// runs the job moves less. Why one process per cell: a process that ran 5,000,000 keys has a large old generation
// that would slow the next cell's GC. Why alternate: the load changes within minutes, and a curve is a set of
// ratios, each taken from a limit and a Weir cell run next to each other.
//
// Run (Node 24 for process.threadCpuUsage; Node 20 reads /proc instead, 10 ms ticks):
//   nice -n 5 npx -y -p node@24 node --import tsx bench/weir/key-curve.ts
//     [--workloads rolling-count,tumbling-window,cep,session-window,hot-items,batching-timer]
//     [--keys 10000,100000,1000000,5000000] [--events 2000000] [--repeats 3] [--warmup 1] [--runs 3]
//     [--systems limit,weir] [--out bench/results/key-curve.json]
// A system may name another checkout as `weir@DIR` (its bench/weir/index.ts, with that tree's src): an A/B of a
// change, `--systems limit,weir@/path/to/base,weir`, each Weir also against the limit that ran next to it.
// The keys are the generic stream's keys (rolling count, tumbling, CEP, batching) and the bid stream's auctions and
// bidders (hot items, sessions; defaultParams' bidKeys). Writes the results (every cell, with its time and load) as
// JSON, and prints one Markdown table per workload: limit and Weir M elements per CPU second, Weir × limit, and
// each key count's Weir × limit against the first key count's (the target: within 1.5×). The chart of a results
// file: bench/runner/report-key-curve-svg.ts.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadSystem } from '../runner/systems.ts';
import { defaultParams, WORKLOAD_IDS, type WorkloadId } from '../workloads/params.ts';
import type { BenchSystem } from '../workloads/system.ts';
import {
  keyCurveRows,
  type KeyCurveCell,
  type KeyCurveResults,
  renderKeyCurveMarkdown,
} from '../runner/key-curve-report.ts';
import { mainThreadCpuSeconds } from './standalone.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

const argv = process.argv.slice(2);
const value = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const numbers = (name: string, fallback: string): number[] =>
  (value(name) ?? fallback).split(',').map((x) => {
    const n = Number(x);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} needs whole numbers, got ${x}`);
    return n;
  });

/** Main-thread CPU seconds: process.threadCpuUsage where Node has it (24), else /proc's ticks. */
function threadCpuSeconds(): number {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (usage === undefined) return mainThreadCpuSeconds();
  const u = usage.call(process);
  return (u.user + u.system) / 1e6;
}

/** A system of this checkout by name, or Weir of another checkout as `weir@DIR`. */
async function systemOf(name: string): Promise<BenchSystem | undefined> {
  const at = name.indexOf('@');
  if (at < 0) return (await loadSystem(name)).system;
  const module = (await import(
    pathToFileURL(join(name.slice(at + 1), 'bench', 'weir', 'index.ts')).href
  )) as {
    weirSystem: BenchSystem;
  };
  return module.weirSystem;
}

/** Child mode: one cell's warm-up and timed runs, its CPU and wall seconds per run, as one RESULT line. */
async function runCell(system: string, workload: WorkloadId, keys: number, events: number): Promise<void> {
  const fn = (await systemOf(system))?.workloads[workload];
  if (fn === undefined) throw new Error(`${system} has no ${workload}`);
  const params = defaultParams(events, 42, 1, keys, keys);
  const warmup = Number(value('warmup') ?? 1);
  const runs = Number(value('runs') ?? 3);
  for (let i = 0; i < warmup; i++) await fn(params);
  const cpuSeconds: number[] = [];
  const wallSeconds: number[] = [];
  let count = 0;
  let checksum = 0;
  for (let i = 0; i < runs; i++) {
    const wall = performance.now();
    const cpu = threadCpuSeconds();
    const result = await fn(params);
    cpuSeconds.push(threadCpuSeconds() - cpu);
    wallSeconds.push((performance.now() - wall) / 1000);
    count = result.count;
    checksum = result.checksum;
  }
  process.stdout.write(`RESULT ${JSON.stringify({ cpuSeconds, wallSeconds, count, checksum })}\n`);
}

/** Parent mode: spawns one child per cell and collects what it reports. */
function spawnCell(
  system: string,
  workload: WorkloadId,
  keys: number,
  events: number,
  warmup: number,
  runs: number,
): Promise<Pick<KeyCurveCell, 'cpuSeconds' | 'wallSeconds' | 'count' | 'checksum'>> {
  const args = [
    ...process.execArgv,
    join(HERE, 'key-curve.ts'),
    '--cell',
    system,
    workload,
    String(keys),
    '--events',
    String(events),
    '--warmup',
    String(warmup),
    '--runs',
    String(runs),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('close', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (line === undefined)
        reject(new Error(`${system} ${workload} ${keys} keys: exit ${code}, no result`));
      else resolve(JSON.parse(line.slice(7)) as Awaited<ReturnType<typeof spawnCell>>);
    });
  });
}

async function main(): Promise<void> {
  const events = numbers('events', '2000000')[0]!;
  const cell = argv.indexOf('--cell');
  if (cell >= 0) {
    const [system, workload, keys] = argv.slice(cell + 1, cell + 4);
    await runCell(system!, workload as WorkloadId, Number(keys), events);
    return;
  }
  const workloads = (
    value('workloads') ?? 'rolling-count,tumbling-window,cep,session-window,hot-items,batching-timer'
  ).split(',') as WorkloadId[];
  for (const w of workloads)
    if (!WORKLOAD_IDS.includes(w))
      throw new Error(`unknown workload ${w}; known: ${WORKLOAD_IDS.join(', ')}`);
  const keyCounts = numbers('keys', '10000,100000,1000000,5000000');
  const systems = (value('systems') ?? 'limit,weir').split(',');
  const repeats = numbers('repeats', '3')[0]!;
  const warmup = numbers('warmup', '1')[0]!;
  const runs = numbers('runs', '3')[0]!;
  const out = value('out') ?? join(HERE, '..', 'results', 'key-curve.json');
  const results: KeyCurveResults = {
    meta: {
      started: new Date().toISOString(),
      node: process.versions.node,
      events,
      warmup,
      runs,
      repeats,
      keys: keyCounts,
      systems,
      workloads,
    },
    cells: [],
  };
  const save = (): void => {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  };
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const workload of workloads) {
      // Key counts rotate by one per repeat, and the systems' order flips, so neither always runs first.
      const order = keyCounts.map((_, i) => keyCounts[(i + repeat) % keyCounts.length]!);
      for (const [i, keys] of order.entries()) {
        const turn = (i + repeat) % 2 === 0 ? systems : [...systems].reverse();
        for (const system of turn) {
          const loadBefore = loadavg()[0]!;
          const measured = await spawnCell(system, workload, keys, events, warmup, runs);
          const done: KeyCurveCell = {
            system,
            workload,
            keys,
            repeat,
            endedAt: new Date().toISOString(),
            load: [loadBefore, loadavg()[0]!],
            ...measured,
          };
          results.cells.push(done);
          save();
          const cpu = [...done.cpuSeconds].sort((a, b) => a - b)[done.cpuSeconds.length >> 1]!;
          process.stdout.write(
            `${done.endedAt.slice(11, 19)} load ${done.load[1].toFixed(1)} ${workload} ${keys} ${system}: ` +
              `${(events / cpu / 1e6).toFixed(2)} M/CPU-s, ${done.count} outputs, checksum ${done.checksum}\n`,
          );
        }
      }
    }
  }
  results.meta.ended = new Date().toISOString();
  save();
  // keyCurveRows throws on a checksum that differs from the first system's at the same workload and key count.
  const rows = keyCurveRows(results);
  process.stdout.write(`\n${renderKeyCurveMarkdown(results, rows)}\nwrote ${out}\n`);
}

await main();
