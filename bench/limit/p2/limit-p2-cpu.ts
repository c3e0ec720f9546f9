// CPU time of limit-p2's threads beside the limit's one thread, their runs alternating, one process per workload (so
// each loop's call sites see one workload): ns per event of each, their ratio, and what a record that crosses threads
// costs in CPU ((both threads' CPU - the limit's) / records sent). CPU time rather than wall clock, so the figures hold
// on a shared machine; needs process.threadCpuUsage (Node 23.9+):
// npx -y -p node@24 node --import tsx bench/limit/p2/limit-p2-cpu.ts [events] [rounds] [workload,...]

import { spawnSync } from 'node:child_process';
import { limitSystem } from '../index.ts';
import { defaultParams } from '../../workloads/params.ts';
import { spread } from '../../runner/stats.ts';
import { LIMIT_P2_WORKLOADS, type LimitP2Workload } from './workloads.ts';
import { latestReports, limitP2System } from './index.ts';

const threadCpuUsage = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } })
  .threadCpuUsage;
if (threadCpuUsage === undefined) throw new Error('needs process.threadCpuUsage (Node 23.9 or later)');
const cpuMs = (): number => {
  const usage = threadCpuUsage.call(process);
  return (usage.user + usage.system) / 1000;
};

const events = Number(process.argv[2] ?? 2_000_000);
const rounds = Number(process.argv[3] ?? 5);
const workloads = (process.argv[4]?.split(',') ?? Object.keys(LIMIT_P2_WORKLOADS)) as LimitP2Workload[];
const params = defaultParams(events);
const median = (values: number[]): number => spread(values).median;
const fmt = (values: number[], digits = 0): string =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

const ROW_ONLY = '--row-only';
if (!process.argv.includes(ROW_ONLY)) {
  process.stdout.write(
    `limit-p2 CPU: ${events.toLocaleString('en-US')} events, 1 warm-up + ${rounds} rounds, Node ${process.versions.node}\n` +
      '| workload | limit ns/event | limit-p2 thread 0 / 1 ns/event | limit-p2 both / limit | records sent | ns per crossing record | limit-p2 / limit, events/s (wall) |\n' +
      '|---|---:|---:|---:|---:|---:|---:|\n',
  );
  for (const workload of workloads) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, process.argv[1]!, String(events), String(rounds), workload, ROW_ONLY],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (child.status !== 0) process.exitCode = 1;
  }
} else {
  for (const workload of workloads) {
    const limit = limitSystem.workloads[workload]!;
    const p2 = limitP2System.workloads[workload]!;
    await limit(params);
    await p2(params);
    const limitNs: number[] = [];
    const thread0: number[] = [];
    const thread1: number[] = [];
    const ratios: number[] = [];
    const crossing: number[] = [];
    const wall: number[] = [];
    let sent = 0;
    for (let round = 0; round < rounds; round++) {
      const cpu0 = cpuMs();
      const wall0 = performance.now();
      await limit(params);
      const limitWall = performance.now() - wall0;
      const limitCpu = cpuMs() - cpu0;
      const wall1 = performance.now();
      await p2(params);
      const p2Wall = performance.now() - wall1;
      const [a, b] = [...latestReports].sort((x, y) => x.thread - y.thread);
      const both = a!.cpuMs! + b!.cpuMs!;
      sent = a!.sent + b!.sent;
      limitNs.push((limitCpu * 1e6) / events);
      thread0.push((a!.cpuMs! * 1e6) / a!.generated);
      thread1.push((b!.cpuMs! * 1e6) / b!.generated);
      ratios.push(both / limitCpu);
      crossing.push(sent === 0 ? 0 : ((both - limitCpu) * 1e6) / sent);
      wall.push(limitWall / p2Wall);
    }
    process.stdout.write(
      `| ${workload} | ${fmt(limitNs)} | ${median(thread0).toFixed(0)} / ${median(thread1).toFixed(0)} | ${fmt(ratios, 2)} | ` +
        `${sent.toLocaleString('en-US')} | ${sent === 0 ? '–' : fmt(crossing)} | ${fmt(wall, 2)} |\n`,
    );
  }
}
