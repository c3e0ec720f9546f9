// The job module of weir-p2's worker threads: each worker imports it and builds the same workload the main thread
// runs (named, with its parameters, in WEIR_BENCH_JOB), so its execute() attaches to the worker's slots.
import { readFileSync } from 'node:fs';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { WorkloadId, WorkloadParams } from '../workloads/params.ts';
import { workerSlotData } from '../../src/execution/workers/worker-slot.ts';
import {
  threadExchangeFigures,
  type ThreadExchangeFigures,
} from '../../src/runtime/thread-exchange-figures.ts';
import { weirSystem } from './index.ts';

/** The channel on which bench/weir/worker-cpu.ts asks each worker for its figures (when WEIR_BENCH_CPU_PROBE is set). */
export const CPU_PROBE_CHANNEL = 'weir-bench-cpu-probe';

/** A worker's cumulative figures since the probe was installed: CPU time, GC pauses and event-loop idle time. */
export interface CpuProbeReport {
  readonly threadId: number;
  /**
   * The worker's host number in its latest job (1 or 2 at two workers): subtask i of an operator runs on host
   * 1 + i % workers, so host 1 runs a parallelism-1 source. Kept workers take a job's hosts in no fixed order, so a
   * run's workers are told apart by this rather than by thread id.
   */
  readonly host: number;
  readonly cpuMs: number;
  /** Of which in the kernel (system time): wake-ups, futexes, memory mapping. */
  readonly systemMs: number;
  readonly gcMs: number;
  /** Scavenges (young-generation collections) and their pauses. */
  readonly scavenges: number;
  readonly scavengeMs: number;
  /** The young generation's size now (MB): it grows towards its limit while many young objects survive. */
  readonly youngMb: number;
  readonly idleMs: number;
  /** The thread's exchange figures (batches, time out of credit, watermark lead of channels from other threads). */
  readonly exchange: ThreadExchangeFigures;
  /** The kernel's schedule of the thread (Linux), see {@link threadSchedule}; undefined elsewhere. */
  readonly schedule: ThreadSchedule | undefined;
}

/**
 * Where a thread's wall time went, from the kernel's schedstat (Linux): running, and runnable but waiting for a core.
 * What is left of the wall time between two reads is time the thread slept (an idle event loop, a wait for V8's
 * helper threads in a pause): a worker waiting for the other, as opposed to one waiting for a core on a loaded machine.
 */
export interface ThreadSchedule {
  /** The wall clock when read (ms since the epoch). */
  readonly atMs: number;
  readonly runningMs: number;
  readonly runnableMs: number;
}

/** The calling thread's schedule so far, or undefined where the kernel does not give it. */
export function threadSchedule(): ThreadSchedule | undefined {
  try {
    const [running, runnable] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return {
      atMs: performance.timeOrigin + performance.now(),
      runningMs: running! / 1e6,
      runnableMs: runnable! / 1e6,
    };
  } catch {
    return undefined;
  }
}

/** A thread's GC pauses since `gcFigures()` was first called on it: all, and scavenges alone. */
export function gcFigures(): { gcMs: number; scavenges: number; scavengeMs: number } {
  const g = globalThis as Record<symbol, { gcMs: number; scavenges: number; scavengeMs: number } | undefined>;
  const existing = g[GC_FIGURES];
  if (existing !== undefined) return existing;
  const figures = { gcMs: 0, scavenges: 0, scavengeMs: 0 };
  g[GC_FIGURES] = figures;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      figures.gcMs += entry.duration;
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        figures.scavenges++;
        figures.scavengeMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  return figures;
}

/** The young generation's size (MB) on this thread. */
export function youngGenerationMb(): number {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return (young?.space_size ?? 0) / 1048576;
}

const GC_FIGURES = Symbol.for('weir.bench.gcFigures');

const INSTALLED = Symbol.for('weir.bench.cpuProbe');

/** Answers the probe's 'report' requests from this thread, once per thread (a kept worker imports this per job). */
function installCpuProbe(): void {
  const g = globalThis as Record<symbol, unknown>;
  if (g[INSTALLED] === true) return;
  g[INSTALLED] = true;
  const gc = gcFigures();
  const channel = new BroadcastChannel(CPU_PROBE_CHANNEL);
  channel.unref();
  channel.onmessage = (event) => {
    if ((event as { data: unknown }).data !== 'report') return;
    const usage = (
      process as unknown as { threadCpuUsage(): { user: number; system: number } }
    ).threadCpuUsage();
    const report: CpuProbeReport = {
      threadId,
      host: workerSlotData()?.host ?? 0,
      cpuMs: (usage.user + usage.system) / 1000,
      systemMs: usage.system / 1000,
      gcMs: gc.gcMs,
      scavenges: gc.scavenges,
      scavengeMs: gc.scavengeMs,
      youngMb: youngGenerationMb(),
      idleMs: performance.eventLoopUtilization().idle,
      exchange: { ...threadExchangeFigures() },
      schedule: threadSchedule(),
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
