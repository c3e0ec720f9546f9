// The Node systems the runner knows. limit and rxjs are imported statically; Weir is imported dynamically
// so that a Weir that does not build yet makes its cells "unavailable" instead of breaking the benchmark.

import { limitSystem } from '../limit/index.ts';
import { rxjsSystem } from '../rxjs/index.ts';
import type { BenchSystem } from '../workloads/system.ts';
import { setEnvironmentDefaults } from '../../src/api/environment-defaults.ts';

// weir-no-metrics is Weir with metrics off (no sampler, no busy-time clock reads): beside `weir` (metrics on, the
// default) it measures what metrics cost in the same run. weir-p2 is Weir at parallelism 2 on 2 worker threads
// (worker mode), the counterpart of flink-p2.
export const NODE_SYSTEM_NAMES = ['limit', 'rxjs', 'weir', 'weir-no-metrics', 'weir-p2'] as const;

export interface LoadedSystem {
  readonly name: string;
  readonly system?: BenchSystem;
  /** Set when the system could not be loaded. */
  readonly error?: string;
}

export async function loadSystem(name: string): Promise<LoadedSystem> {
  if (name === 'limit') return { name, system: limitSystem };
  if (name === 'rxjs') return { name, system: rxjsSystem };
  if (name === 'weir' || name === 'weir-no-metrics' || name === 'weir-p2') {
    try {
      const module = (await import('../weir/index.ts')) as { weirSystem: BenchSystem };
      if (name === 'weir') return { name, system: module.weirSystem };
      if (name === 'weir-p2') return { name, system: onWorkers(module.weirSystem, 2) };
      return { name, system: withoutMetrics(module.weirSystem) };
    } catch (error) {
      return { name, error: `bench/weir/index.ts failed to load: ${String(error)}` };
    }
  }
  return { name, error: `unknown system ${name}` };
}

/**
 * The same workloads at parallelism `workers` on that many worker threads. Each worker imports
 * bench/weir/worker-job.ts, which rebuilds the workload named (with its parameters) in WEIR_BENCH_JOB; the
 * checksum sink runs on the main thread, so every output record crosses to it.
 */
function onWorkers(system: BenchSystem, workers: number): BenchSystem {
  const jobModule = new URL('../weir/worker-job.ts', import.meta.url).href;
  const workloads: BenchSystem['workloads'] = {};
  for (const [id, run] of Object.entries(system.workloads)) {
    workloads[id as keyof BenchSystem['workloads']] = async (params) => {
      const own = { ...params, parallelism: workers, probe: undefined };
      process.env.WEIR_BENCH_JOB = JSON.stringify({ workload: id, params: own });
      setEnvironmentDefaults({ environment: { workers, jobModule } });
      try {
        return await run!({ ...own, ...(params.probe !== undefined ? { probe: params.probe } : {}) });
      } finally {
        setEnvironmentDefaults(undefined);
        delete process.env.WEIR_BENCH_JOB;
      }
    };
  }
  return { name: `weir-p${workers}`, workloads };
}

/** The same workloads with every environment created with `metrics: false`. */
function withoutMetrics(system: BenchSystem): BenchSystem {
  const workloads: BenchSystem['workloads'] = {};
  for (const [id, run] of Object.entries(system.workloads)) {
    workloads[id as keyof BenchSystem['workloads']] = async (params) => {
      setEnvironmentDefaults({ environment: { metrics: false } });
      try {
        return await run!(params);
      } finally {
        setEnvironmentDefaults(undefined);
      }
    };
  }
  return { name: 'weir-no-metrics', workloads };
}
