// Runs one workload of one system in the current process: warm-up runs, timed runs, then (for stateful
// workloads) one probe run measuring heap per key. Used by each child process and by --smoke in-process.

import type { WorkloadId, WorkloadParams } from '../workloads/params.ts';
import { defaultParams, STATEFUL_WORKLOADS } from '../workloads/params.ts';
import type { BenchSystem } from '../workloads/system.ts';
import { memoryUsedAfterGc } from './gc.ts';
import type { Measurement, RunSample } from './measurement.ts';
import { spread } from './stats.ts';
import { stateKeys } from './state-keys.ts';

export interface CellSpec {
  readonly system: string;
  readonly workload: WorkloadId;
  readonly events: number;
  readonly seed: number;
  readonly parallelism: number;
  /** The generic stream's key count (defaultParams' `keys`). */
  readonly keys: number;
  /** The bid stream's auctions and bidders (defaultParams' `bidKeys`, `--bid-keys`); its defaults when absent. */
  readonly bidKeys?: number;
  readonly warmup: number;
  readonly runs: number;
  readonly probe: boolean;
  /**
   * Time the timed runs may take together. When the warm-up shows they would take longer, they use fewer
   * events (a multiple of 10,000, at least 10,000), so one slow system cannot blow the suite's time; the
   * verifier checks them against the reference at that size. Infinity: always spec.events.
   */
  readonly budgetSeconds: number;
  /** weir-lmdb's cache in entries per subtask (`--lmdb-cache`); the backend's default when absent. */
  readonly lmdbCacheEntries?: number;
  /** The checkpointed systems' interval (`--checkpoint-every`); theirs by default. */
  readonly checkpointIntervalMs?: number;
}

export async function measureCell(system: BenchSystem, spec: CellSpec): Promise<Measurement> {
  const fn = system.workloads[spec.workload];
  const base = {
    system: spec.system,
    workload: spec.workload,
    events: spec.events,
    parallelism: spec.parallelism,
  };
  if (fn === undefined)
    return { ...base, status: 'not-implemented', note: `${spec.system} has no ${spec.workload}`, runs: [] };
  const paramsFor = (events: number): WorkloadParams => ({
    ...defaultParams(events, spec.seed, spec.parallelism, spec.keys, spec.bidKeys),
    ...(spec.lmdbCacheEntries !== undefined ? { lmdbCacheEntries: spec.lmdbCacheEntries } : {}),
  });
  let params = paramsFor(spec.events);
  let heapPeak = 0;
  // Warm-up over a fifth of the input: enough for the JIT, and it gives a throughput estimate.
  const warmupParams = paramsFor(Math.max(1, Math.floor(spec.events / 5)));
  let warmupMs = 0;
  for (let i = 0; i < spec.warmup; i++) {
    const start = performance.now();
    const result = await fn(warmupParams);
    warmupMs = performance.now() - start - (result.startupMs ?? 0);
  }
  if (warmupMs > 0 && Number.isFinite(spec.budgetSeconds)) {
    const rate = warmupParams.events / (warmupMs / 1000);
    const affordable = Math.floor((rate * spec.budgetSeconds) / spec.runs / 10_000) * 10_000;
    if (affordable < spec.events) params = paramsFor(Math.max(10_000, affordable));
  }
  const runs: RunSample[] = [];
  for (let i = 0; i < spec.runs; i++) {
    const start = performance.now();
    const result = await fn(params);
    const startupMs = result.startupMs ?? 0;
    const ms = performance.now() - start - startupMs;
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    runs.push({
      ms,
      count: result.count,
      checksum: result.checksum,
      events: result.events,
      ...(startupMs > 0 ? { startupMs } : {}),
      ...(result.checkpoints === undefined ? {} : { checkpoints: result.checkpoints }),
    });
  }
  let stateBytesPerKey: number | undefined;
  const keys = stateKeys(spec.workload, params);
  if (spec.probe && STATEFUL_WORKLOADS.has(spec.workload) && keys > 0 && spec.events >= 2) {
    stateBytesPerKey = await probeRun(fn, params, keys);
  }
  return {
    ...base,
    events: params.events,
    ...(params.events < spec.events
      ? { note: `reduced to ${params.events} events to fit the ${spec.budgetSeconds} s cell budget` }
      : {}),
    status: 'ok',
    runs,
    eventsPerSecond: spread(runs.map((r) => (r.events / r.ms) * 1000)),
    rssPeakBytes: process.resourceUsage().maxRSS * 1024,
    heapPeakBytes: heapPeak,
    ...(stateBytesPerKey === undefined ? {} : { stateBytesPerKey, stateKeys: keys }),
  };
}

/** One untimed run with the memory probe armed at events 0 and events / 2. */
async function probeRun(
  fn: (params: WorkloadParams) => Promise<unknown>,
  params: WorkloadParams,
  keys: number,
): Promise<number | undefined> {
  let baseline = NaN;
  let measured = NaN;
  const measureIndex = Math.floor(params.events / 2);
  await fn({
    ...params,
    probe: {
      baselineIndex: 0,
      measureIndex,
      hit(index: number): void {
        if (index === 0) baseline = memoryUsedAfterGc();
        else if (index === measureIndex) measured = memoryUsedAfterGc();
      },
    },
  });
  return Number.isNaN(baseline) || Number.isNaN(measured) ? undefined : (measured - baseline) / keys;
}
