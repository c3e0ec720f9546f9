// weir (one thread) against weir-p2 (2 worker threads) in one process, their runs alternating (and taking turns at
// going first) so a change of the machine's load falls on both: events/s of wall time net of worker start-up
// (median and each run) and the process's CPU seconds per run (all threads). Every run's count and checksum must
// equal the first run's.
// Run: node --import tsx bench/weir/worker-speedup.ts [workload,...] [events] [runs]
import { loadSystem } from '../runner/systems.ts';
import { defaultParams, type WorkloadId } from '../workloads/params.ts';

const workloads = (process.argv[2] ?? 'rolling-count').split(',') as WorkloadId[];
const events = Number(process.argv[3] ?? 1_000_000);
const runs = Number(process.argv[4] ?? 5);
const p1 = (await loadSystem('weir')).system!;
const p2 = (await loadSystem('weir-p2')).system!;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fmt = (x: number): string => `${(x / 1e6).toFixed(2)}M`;

for (const workload of workloads) {
  const rates: Record<string, number[]> = { p1: [], p2: [] };
  const cpu: Record<string, number[]> = { p1: [], p2: [] };
  let reference: string | undefined;
  for (let r = -1; r < runs; r++) {
    const order = r % 2 === 0 ? ['p1', 'p2'] : ['p2', 'p1'];
    for (const name of order) {
      const system = name === 'p1' ? p1 : p2;
      const params = defaultParams(r < 0 ? Math.floor(events / 5) : events, 42, name === 'p1' ? 1 : 2);
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const result = await system.workloads[workload]!(params);
      const ms = performance.now() - start - (result.startupMs ?? 0);
      const used = process.cpuUsage(cpuStart);
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
  console.log(
    `${workload.padEnd(16)} ${line('p1')} | ${line('p2')} | p2/p1 ${(median(rates.p2!) / median(rates.p1!)).toFixed(2)} | ${reference}`,
  );
}
