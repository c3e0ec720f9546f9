// Runs one Weir workload outside the runner (for profiling): timed runs, printing events/s of wall-clock time
// and per second of main-thread CPU time (the steadier figure on a shared machine, Linux only).
import { readFileSync } from 'node:fs';
import type { WorkloadResult } from '../workloads/checksum.ts';
import type { WorkloadParams } from '../workloads/params.ts';

/** CPU seconds the main thread has used (user + system), from /proc; NaN where unavailable. */
export function mainThreadCpuSeconds(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN;
  }
}

export async function reportStandalone(
  name: string,
  fn: (params: WorkloadParams) => Promise<WorkloadResult>,
  params: WorkloadParams,
  runs = Number(process.env.RUNS ?? 3),
): Promise<void> {
  const wall: number[] = [];
  const cpu: number[] = [];
  let last: WorkloadResult | undefined;
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const cpuStart = mainThreadCpuSeconds();
    last = await fn(params);
    wall.push((params.events / (performance.now() - start)) * 1000);
    cpu.push(params.events / (mainThreadCpuSeconds() - cpuStart));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const fmt = (x: number): string => `${(x / 1e6).toFixed(2)}M`;
  console.log(
    `${name.padEnd(16)} wall: median ${fmt(median(wall))}/s [${wall.map(fmt).join(' ')}]  ` +
      `main-thread CPU: median ${fmt(median(cpu))}/s [${cpu.map(fmt).join(' ')}]  count ${last!.count} checksum ${last!.checksum}`,
  );
}
