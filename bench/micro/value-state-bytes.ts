// Micro-benchmark: bytes per key of ValueState<number> at 1,000,000 keys (heap and array buffers). Isolates the per-key
// overhead of a state backend (Map entry, boxing, key/namespace objects) from any processing cost.
// Run: node --import tsx bench/micro/value-state-bytes.ts [--keys 1000000] [--system limit,weir]
// A system opts in with BenchSystem.valueStateHolder (bench/workloads/system.ts); Weir's goes in bench/weir/.

import { pathToFileURL } from 'node:url';
import { memoryUsedAfterGc } from '../runner/gc.ts';
import type { MicroResult } from '../runner/report-markdown.ts';
import { loadSystem } from '../runner/systems.ts';
import type { ValueStateHolder } from '../workloads/system.ts';

export const MICRO_KEYS = 1_000_000;

/** Memory growth per key (heap and array buffers) while `holder` keeps `keys` keys of state alive, after full GCs. */
export async function valueStateBytesPerKey(holder: ValueStateHolder, keys: number): Promise<number> {
  const before = memoryUsedAfterGc();
  const release = await holder(keys);
  const after = memoryUsedAfterGc();
  release();
  return (after - before) / keys;
}

export async function runMicro(systems: readonly string[], keys: number): Promise<MicroResult[]> {
  const results: MicroResult[] = [];
  for (const name of systems) {
    const loaded = await loadSystem(name);
    const holder = loaded.system?.valueStateHolder;
    if (holder === undefined) {
      results.push({
        system: name,
        keys,
        note: loaded.error === undefined ? 'not implemented' : 'unavailable',
      });
      continue;
    }
    results.push({ system: name, keys, bytesPerKey: await valueStateBytesPerKey(holder, keys) });
  }
  return results;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const keys = Number(option('keys') ?? MICRO_KEYS);
  const systems = (option('system') ?? 'limit,weir').split(',');
  process.stdout.write(`RESULT ${JSON.stringify(await runMicro(systems, keys))}\n`);
}
