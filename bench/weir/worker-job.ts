// The job module of weir-p2's worker threads: each worker imports it and builds the same workload the main thread
// runs (named, with its parameters, in WEIR_BENCH_JOB), so its execute() attaches to the worker's slots.
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { PerformanceObserver } from 'node:perf_hooks';
import type { WorkloadId, WorkloadParams } from '../workloads/params.ts';
import { weirSystem } from './index.ts';

/** The channel on which bench/weir/worker-cpu.ts asks each worker for its figures (when WEIR_BENCH_CPU_PROBE is set). */
export const CPU_PROBE_CHANNEL = 'weir-bench-cpu-probe';

/** A worker's cumulative figures since the probe was installed: CPU time, GC pauses and event-loop idle time. */
export interface CpuProbeReport {
  readonly threadId: number;
  readonly cpuMs: number;
  /** Of which in the kernel (system time): wake-ups, futexes, memory mapping. */
  readonly systemMs: number;
  readonly gcMs: number;
  readonly idleMs: number;
}

const INSTALLED = Symbol.for('weir.bench.cpuProbe');

/** Answers the probe's 'report' requests from this thread, once per thread (a kept worker imports this per job). */
function installCpuProbe(): void {
  const g = globalThis as Record<symbol, unknown>;
  if (g[INSTALLED] === true) return;
  g[INSTALLED] = true;
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ['gc'] });
  const channel = new BroadcastChannel(CPU_PROBE_CHANNEL);
  channel.unref();
  channel.onmessage = (event) => {
    if ((event as { data: unknown }).data !== 'report') return;
    const usage = (
      process as unknown as { threadCpuUsage(): { user: number; system: number } }
    ).threadCpuUsage();
    const report: CpuProbeReport = {
      threadId,
      cpuMs: (usage.user + usage.system) / 1000,
      systemMs: usage.system / 1000,
      gcMs,
      idleMs: performance.eventLoopUtilization().idle,
    };
    channel.postMessage(report);
  };
}

const cell = process.env.WEIR_BENCH_JOB;
if (cell !== undefined) {
  if (process.env.WEIR_BENCH_CPU_PROBE !== undefined) installCpuProbe();
  const { workload, params } = JSON.parse(cell) as { workload: WorkloadId; params: WorkloadParams };
  await weirSystem.workloads[workload]!(params);
}
