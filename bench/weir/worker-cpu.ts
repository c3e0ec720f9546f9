// Where weir-p2's CPU goes beside weir's: per run, CPU time of every thread (main, each worker, and the rest of the
// process: V8's compiler and GC helper threads, the module hooks thread), with each thread's system time, GC pauses and
// (workers) event-loop idle time, in ns per event, and each system's CPU against the first system's in the same round;
// w1 and w2 are the workers that ran hosts 1 and 2 (host 1 runs a parallelism-1 source or windowAll). Systems: p1
// (weir), one-thread-p2 (weir at parallelism 2 on one thread: what parallelism costs without crossing threads), p2
// (weir-p2); a system may set environment variables for its runs (`p2+NAME=1`), for an A/B of a change behind a
// variable (`p2+WEIR_BENCH_WORKER_YOUNG_MB=192`: the workers' young generation; `+WEIR_BENCH_WORKER_MIN_SEMI_MB=64`:
// its initial size). Runs alternate as in worker-speedup.ts, and every run's count and checksum must equal the first's.
// Per worker also: nocredit (time its channel to the other worker was out of credit, its source held back) and
// nocredits (how often), batches sent, leadms (event time a consumer there waited for because its local input lagged
// the other worker's: what it holds beyond one thread), and from the kernel's schedstat runnable (waiting for a core:
// the machine's load) and asleep (waiting for the other worker or for V8's helpers in a pause); pauses and paused (how
// often, and how long in ns per event, its sources paused for watermark alignment); turnwaits and turnwait (how often,
// and how long in ns per event, its bounded sources waited for the same sources' subtasks on the other worker:
// SourceTurns); endwait (ms from the end of its sources to the end of its subtasks, the other worker's last batches).
// WEIR_BENCH_EACH_RUN=1 also prints every run's figures as it ends (what a slow run did beside a fast one).
// Needs Node 24 (process.threadCpuUsage). CPU time per thread rises with the machine's load (caches, scheduling), less
// than wall time does: compare systems within one process, by the per-round ratios.
// Run: npx -y -p node@24 node --import tsx bench/weir/worker-cpu.ts [workload,...] [events] [runs] [p1,one-thread-p2,p2]
import { setFlagsFromString } from 'node:v8';
import { BroadcastChannel } from 'node:worker_threads';
import { loadSystem } from '../runner/systems.ts';
import { defaultParams, type WorkloadId } from '../workloads/params.ts';
import { CPU_PROBE_CHANNEL, gcFigures, youngGenerationMb, type CpuProbeReport } from './worker-job.ts';

const workloads = (process.argv[2] ?? 'rolling-count').split(',') as WorkloadId[];
const events = Number(process.argv[3] ?? 2_000_000);
const runs = Number(process.argv[4] ?? 5);
/**
 * The systems to alternate: `p1`, `p2` or both (default; one alone, to profile it). A system may carry environment
 * variables set around its runs, for an A/B of a change behind a variable: `p2,p2+NAME=1`.
 */
const systems = (process.argv[5] ?? 'p1,p2').split(',');
const variables = (name: string): [string, string][] =>
  name
    .split('+')
    .slice(1)
    .map((pair) => pair.split('=') as [string, string]);
const p1 = (await loadSystem('weir')).system!;
const p2 = (await loadSystem('weir-p2')).system!;

process.env.WEIR_BENCH_CPU_PROBE = '1';
const probe = new BroadcastChannel(CPU_PROBE_CHANNEL);
const reports = new Map<number, CpuProbeReport>();
let waiting: (() => void) | undefined;
probe.onmessage = (event) => {
  const report = (event as { data: CpuProbeReport }).data;
  if (!('threadId' in report)) return;
  reports.set(report.threadId, report);
  waiting?.();
};

/** Every worker's cumulative figures (the workers are idle between runs, kept in the pool). */
async function workerFigures(expected: number): Promise<Map<number, CpuProbeReport>> {
  reports.clear();
  probe.postMessage('report');
  const deadline = performance.now() + 2000;
  while (reports.size < expected && performance.now() < deadline) {
    await new Promise<void>((resolve) => {
      waiting = resolve;
      setTimeout(resolve, 20);
    });
  }
  return new Map(reports);
}

/** GC pauses of the main thread's isolate (ms), for weir's runs. */
const mainGc = gcFigures();

const threadUsage = (): { user: number; system: number } =>
  (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
const processCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

type Row = Record<string, number>;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

console.log(
  `load ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (const workload of workloads) {
  const rows: Record<string, Row[]> = Object.fromEntries(systems.map((name) => [name, []]));
  let reference: string | undefined;
  for (let r = -1; r < runs; r++) {
    const order = r % 2 === 0 ? systems : [...systems].reverse();
    for (const name of order) {
      const threads = name.startsWith('p2') ? 2 : 1;
      const system = threads === 1 ? p1 : p2;
      for (const [k, v] of variables(name)) process.env[k] = v;
      // Workers started during this system's runs begin with semi-spaces of this many MB instead of growing to
      // them (V8 reads the flag when it makes an isolate, so only workers started meanwhile take it): an A/B of the
      // workers' initial young generation. Pair it with its own WEIR_BENCH_WORKER_YOUNG_MB, for a pool of its own.
      const semi = process.env.WEIR_BENCH_WORKER_MIN_SEMI_MB;
      if (semi !== undefined) setFlagsFromString(`--min-semi-space-size=${semi}`);
      // `one-thread-p2`: weir at parallelism 2 on one thread (the cost of parallelism without crossing threads).
      const parallelism = name.startsWith('one-thread-p2') ? 2 : threads;
      const params = defaultParams(r < 0 ? Math.floor(events / 5) : events, 42, parallelism);
      // Kept workers of every p2 system answer (each system's environment variables may give its own pool): the
      // two that ran this run are the two whose CPU time grew most.
      const live = 2 * systems.filter((system) => system.startsWith('p2')).length;
      const before = threads === 2 && r >= 0 ? await workerFigures(live) : new Map<number, CpuProbeReport>();
      const main0 = threadUsage();
      const mainGc0 = { ...mainGc };
      const process0 = processCpu();
      const start = performance.now();
      const result = await system.workloads[workload]!(params);
      const wall = performance.now() - start - (result.startupMs ?? 0);
      const main1 = threadUsage();
      const main = (main1.user + main1.system - main0.user - main0.system) / 1000;
      const mainSystem = (main1.system - main0.system) / 1000;
      const all = processCpu() - process0;
      const after = threads === 2 && r >= 0 ? await workerFigures(live) : new Map<number, CpuProbeReport>();
      for (const [k] of variables(name)) delete process.env[k];
      if (semi !== undefined) setFlagsFromString('--min-semi-space-size=0');
      if (r < 0) continue;
      const sum = `${result.count}/${result.checksum}`;
      reference ??= sum;
      if (sum !== reference) throw new Error(`checksum mismatch in ${name}: ${sum} vs ${reference}`);
      const ns = (ms: number): number => (ms * 1e6) / events;
      const row: Row = {
        wall: ns(wall),
        process: ns(all),
        main: ns(main),
        mainsys: ns(mainSystem),
        maingc: ns(mainGc.gcMs - mainGc0.gcMs),
        mainscav: ns(mainGc.scavengeMs - mainGc0.scavengeMs),
        mainscavs: mainGc.scavenges - mainGc0.scavenges,
        mainyoung: youngGenerationMb(),
      };
      let workersCpu = 0;
      let w = 0;
      const grown = (id: number): number => after.get(id)!.cpuMs - (before.get(id)?.cpuMs ?? Infinity);
      const ran = [...after.keys()]
        .filter((id) => before.has(id))
        .sort((a, b) => grown(b) - grown(a))
        .slice(0, threads);
      // By host: w1 is the worker that ran host 1's subtasks (a parallelism-1 source, a windowAll), whichever thread.
      for (const id of ran.sort((a, b) => after.get(a)!.host - after.get(b)!.host || a - b)) {
        const a = after.get(id)!;
        const b = before.get(id)!;
        w++;
        const cpu = a.cpuMs - b.cpuMs;
        workersCpu += cpu;
        row[`w${w}`] = ns(cpu);
        row[`w${w}sys`] = ns(a.systemMs - b.systemMs);
        row[`w${w}gc`] = ns(a.gcMs - b.gcMs);
        row[`w${w}scav`] = ns(a.scavengeMs - b.scavengeMs);
        row[`w${w}scavs`] = a.scavenges - b.scavenges;
        row[`w${w}young`] = a.youngMb;
        row[`w${w}idle`] = ns(a.idleMs - b.idleMs);
        // Out of credit: its sources held back because the consumer on the other thread had not taken its batches.
        row[`w${w}nocredit`] = ns(a.exchange.congestedMs - b.exchange.congestedMs);
        row[`w${w}nocredits`] = a.exchange.congestions - b.exchange.congestions;
        row[`w${w}batches`] = a.exchange.batchesSent - b.exchange.batchesSent;
        // Event time (ms) a consumer here waited for because its other inputs lagged the channel from the other thread.
        const samples = a.exchange.watermarkSamples - b.exchange.watermarkSamples;
        row[`w${w}leadms`] =
          samples > 0 ? (a.exchange.watermarkLeadMs - b.exchange.watermarkLeadMs) / samples : 0;
        // Pauses of its sources for watermark alignment, and the real time they took.
        row[`w${w}pauses`] = a.exchange.alignmentPauses - b.exchange.alignmentPauses;
        row[`w${w}paused`] = ns(a.exchange.alignmentPausedMs - b.exchange.alignmentPausedMs);
        // Waits of its bounded sources for the same sources' subtasks on the other thread (SourceTurns).
        row[`w${w}turnwaits`] = a.exchange.turnWaits - b.exchange.turnWaits;
        row[`w${w}turnwait`] = ns(a.exchange.turnWaitMs - b.exchange.turnWaitMs);
        // From the end of its sources to the end of its subtasks: the other worker's last batches (ms per run).
        row[`w${w}endwait`] = a.exchange.endWaitMs - b.exchange.endWaitMs;
        if (a.schedule !== undefined && b.schedule !== undefined) {
          const runnable = a.schedule.runnableMs - b.schedule.runnableMs;
          const running = a.schedule.runningMs - b.schedule.runningMs;
          // Runnable but without a core (the machine's load), and asleep (waiting for the other worker, or in a pause).
          row[`w${w}runnable`] = ns(runnable);
          row[`w${w}asleep`] = ns(a.schedule.atMs - b.schedule.atMs - running - runnable);
        }
      }
      row.other = ns(all - main - workersCpu);
      /** The threads that ran subtasks: the main thread at p1, the workers at p2 (its main thread only waits). */
      row.subtasks = ns(threads === 1 ? main : workersCpu);
      rows[name]!.push(row);
      if (process.env.WEIR_BENCH_EACH_RUN !== undefined) {
        console.log(
          `    ${name} run ${r}: ${Object.entries(row)
            .map(([k, v]) => `${k} ${v.toFixed(0)}`)
            .join(', ')}`,
        );
      }
    }
  }
  console.log(`${workload}, ${events} events, ${runs} runs: ns per event, median (min-max); ${reference}`);
  for (const name of systems) {
    const keys = Object.keys(rows[name]![0]!);
    const cells = keys.map((k) => {
      const xs = rows[name]!.map((row) => row[k] ?? NaN);
      return `${k} ${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
    });
    console.log(`  ${name}: ${cells.join(', ')}`);
  }
  // Each run against the first system's run of the same round (load drifts between rounds, less within one).
  const first = systems[0]!;
  for (const name of systems.slice(1)) {
    const ratios = (k: string): string => {
      const xs = rows[name]!.map((row, i) => row[k]! / rows[first]![i]![k]!);
      return `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
    };
    console.log(
      `  ${name} / ${first} per round: process CPU ${ratios('process')}, subtask threads' CPU ${ratios('subtasks')}, wall ${ratios('wall')}`,
    );
  }
}
probe.close();
process.exit(0);
