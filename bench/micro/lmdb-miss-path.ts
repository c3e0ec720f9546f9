// Micro-benchmark: the LMDB backend's cost per record of a rolling count (ValueState<number> read and write) as the
// keys outgrow its cache, the backend driven directly (no job, no exchange), so only the state path is measured.
// Reports CPU time per record (user + system of this process, which holds under load better than wall time) and
// each key count's CPU time as a multiple of the first one's.
// Run: node --import tsx bench/micro/lmdb-miss-path.ts [--keys 10000,1000000] [--records 2000000] [--cache 10%]
//      [--runs 3] [--prefill] (--cache: entries, or a percentage of the keys; default the backend's, 100,000;
//      --prefill: every key written once before the timed records, the steady state of a long job in which every key
//      exists, instead of a store that starts empty and grows through the run)

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import { LmdbKeyedStateBackend } from '../../src/state/lmdb/lmdb-keyed-state-backend.ts';
import { voidNamespaceSerializer } from '../../src/state/namespace.ts';
import { spread } from '../runner/stats.ts';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const KEYS = arg('keys', '10000,1000000').split(',').map(Number);
const RECORDS = Number(arg('records', '2000000'));
const RUNS = Number(arg('runs', '3'));
const CACHE = arg('cache', '');
const PREFILL = argv.includes('--prefill');

/** The cache for `keys` keys: `--cache` as entries or percent of the keys; undefined: the backend's default. */
function cacheFor(keys: number): number | undefined {
  if (CACHE === '') return undefined;
  return CACHE.endsWith('%') ? Math.ceil((keys * Number(CACHE.slice(0, -1))) / 100) : Number(CACHE);
}

/** One run: RECORDS records over `keys` uniform keys (the benchmark generator's distribution), CPU ns per record. */
function run(keys: number): { cpuNsPerRecord: number; recordsPerSecond: number } {
  const path = mkdtempSync(join(tmpdir(), 'weir-lmdb-miss-'));
  const cache = cacheFor(keys);
  const backend = new LmdbKeyedStateBackend({
    path: join(path, 'db'),
    maxParallelism: 128,
    keyGroupRange: new KeyGroupRange(0, 127),
    clock: () => 0,
    ...(cache !== undefined ? { cacheEntries: cache } : {}),
  });
  const count = backend.getOrCreateKeyedState(
    new ValueStateDescriptor<number>('count', { defaultValue: 0 }),
    voidNamespaceSerializer,
  );
  if (PREFILL) {
    for (let key = 0; key < keys; key++) {
      backend.setCurrentKey(key);
      count.update(0);
    }
    backend.snapshotIncremental(1); // writes the cache back; the timed records start from a store holding every key
  }
  let seed = 42;
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < RECORDS; i++) {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    backend.setCurrentKey((seed >>> 4) % keys);
    count.update(count.value()! + 1);
  }
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  backend.dispose();
  rmSync(path, { recursive: true, force: true });
  return {
    cpuNsPerRecord: ((used.user + used.system) * 1000) / RECORDS,
    recordsPerSecond: RECORDS / (wallMs / 1000),
  };
}

console.log(
  `LMDB miss path: ${RECORDS.toLocaleString('en-US')} records${PREFILL ? ' after every key written once' : ''}, cache ${CACHE === '' ? 'default' : CACHE}, ${RUNS} runs; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
let first: number | undefined = undefined;
for (const keys of KEYS) {
  run(keys); // warm-up: the JIT, and the file system's pages
  const samples = Array.from({ length: RUNS }, () => run(keys));
  const cpu = spread(samples.map((s) => s.cpuNsPerRecord));
  const rate = spread(samples.map((s) => s.recordsPerSecond));
  first ??= cpu.median;
  console.log(
    `  ${keys.toLocaleString('en-US').padStart(10)} keys: ${cpu.median.toFixed(0)} CPU ns/record (${cpu.min.toFixed(0)}-${cpu.max.toFixed(0)}), ` +
      `${(rate.median / 1e6).toFixed(3)} M records/s wall; ${(cpu.median / first).toFixed(2)}x the CPU per record of ${KEYS[0]!.toLocaleString('en-US')} keys`,
  );
}
