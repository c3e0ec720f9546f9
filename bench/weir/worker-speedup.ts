// weir (one thread) against weir-p2 (2 worker threads) in one process, their runs alternating (and taking turns at
// going first) so a change of the machine's load falls on both: events/s of wall time net of worker start-up
// (median and each run) and the process's CPU seconds per run (all threads). Every run's count and checksum must
// equal the first run's. A fourth argument lists the systems, each p1 or p2 with environment variables set around its
// runs (`p1,p2,p2+WEIR_BENCH_WORKER_YOUNG_MB=192`: an A/B of the workers' heap limits), each against the first.
// Run: node --import tsx bench/weir/worker-speedup.ts [workload,...] [events] [runs] [p1,p2]
import { loadSystem } from '../runner/systems.ts';
import { defaultParams, type WorkloadId } from '../workloads/params.ts';

const workloads = (process.argv[2] ?? 'rolling-count').split(',') as WorkloadId[];
const events = Number(process.argv[3] ?? 1_000_000);
const runs = Number(process.argv[4] ?? 5);
const systems = (process.argv[5] ?? 'p1,p2').split(',');
const variables = (name: string): [string, string][] =>
  name
    .split('+')
    .slice(1)
    .map((pair) => pair.split('=') as [string, string]);
const p1 = (await loadSystem('weir')).system!;
const p2 = (await loadSystem('weir-p2')).system!;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fmt = (x: number): string => `${(x / 1e6).toFixed(2)}M`;

for (const workload of workloads) {
  const rates: Record<string, number[]> = Object.fromEntries(systems.map((name) => [name, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(systems.map((name) => [name, []]));
  let reference: string | undefined;
  for (let r = -1; r < runs; r++) {
    const order = r % 2 === 0 ? systems : [...systems].reverse();
    for (const name of order) {
      const threads = name.startsWith('p2') ? 2 : 1;
      const system = threads === 1 ? p1 : p2;
      for (const [k, v] of variables(name)) process.env[k] = v;
      const params = defaultParams(r < 0 ? Math.floor(events / 5) : events, 42, threads);
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const result = await system.workloads[workload]!(params);
      const ms = performance.now() - start - (result.startupMs ?? 0);
      const used = process.cpuUsage(cpuStart);
      for (const [k] of variables(name)) delete process.env[k];
      if (r < 0) continue;
      const sum = `${result.count}/${result.checksum}`;
      reference ??= sum;
      if (sum !== reference) throw new Error(`checksum mismatch in ${name}: ${sum} vs ${reference}`);
      rates[name]!.push((events / ms) * 1000);
      cpu[name]!.push((used.user + used.system) / 1e6);
    }
  }
  const line = (name: string): string =>
    `${name} median ${fmt(median(rates[name]!))}/s [${rates[name]!.map(fmt).join(' ')}] cpu ${median(cpu[name]!).toFixed(2)} s`;
  const first = systems[0]!;
  const ratios = systems
    .slice(1)
    .map((name) => `${name}/${first} ${(median(rates[name]!) / median(rates[first]!)).toFixed(2)}`);
  console.log(
    `${workload.padEnd(16)} ${systems.map(line).join(' | ')} | ${ratios.join(' | ')} | ${reference}`,
  );
}
