// The Node systems the runner knows. limit and rxjs are imported statically; Weir is imported dynamically
// so that a Weir that does not build yet makes its cells "unavailable" instead of breaking the benchmark.

import { limitSystem } from '../limit/index.ts';
import { rxjsSystem } from '../rxjs/index.ts';
import type { BenchSystem } from '../workloads/system.ts';

export const NODE_SYSTEM_NAMES = ['limit', 'rxjs', 'weir'] as const;

export interface LoadedSystem {
  readonly name: string;
  readonly system?: BenchSystem;
  /** Set when the system could not be loaded. */
  readonly error?: string;
}

export async function loadSystem(name: string): Promise<LoadedSystem> {
  if (name === 'limit') return { name, system: limitSystem };
  if (name === 'rxjs') return { name, system: rxjsSystem };
  if (name === 'weir') {
    try {
      const module = (await import('../weir/index.ts')) as { weirSystem: BenchSystem };
      return { name, system: module.weirSystem };
    } catch (error) {
      return { name, error: `bench/weir/index.ts failed to load: ${String(error)}` };
    }
  }
  return { name, error: `unknown system ${name}` };
}
