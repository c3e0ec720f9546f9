// The Node systems the runner knows. limit and rxjs are imported statically; Weir is imported dynamically
// so that a Weir that does not build yet makes its cells "unavailable" instead of breaking the benchmark.

import { limitSystem } from '../limit/index.ts';
import { rxjsSystem } from '../rxjs/index.ts';
import type { BenchSystem } from '../workloads/system.ts';
import { setEnvironmentDefaults } from '../../src/api/environment-defaults.ts';

// weir-no-metrics is Weir with metrics off (no sampler, no busy-time clock reads): beside `weir` (metrics on, the
// default) it measures what metrics cost in the same run.
export const NODE_SYSTEM_NAMES = ['limit', 'rxjs', 'weir', 'weir-no-metrics'] as const;

export interface LoadedSystem {
  readonly name: string;
  readonly system?: BenchSystem;
  /** Set when the system could not be loaded. */
  readonly error?: string;
}

export async function loadSystem(name: string): Promise<LoadedSystem> {
  if (name === 'limit') return { name, system: limitSystem };
  if (name === 'rxjs') return { name, system: rxjsSystem };
  if (name === 'weir' || name === 'weir-no-metrics') {
    try {
      const module = (await import('../weir/index.ts')) as { weirSystem: BenchSystem };
      if (name === 'weir') return { name, system: module.weirSystem };
      return { name, system: withoutMetrics(module.weirSystem) };
    } catch (error) {
      return { name, error: `bench/weir/index.ts failed to load: ${String(error)}` };
    }
  }
  return { name, error: `unknown system ${name}` };
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
