// The Node systems the runner knows. limit and rxjs are imported statically; Weir is imported dynamically
// so that a Weir that does not build yet makes its cells "unavailable" instead of breaking the benchmark.

import { limitSystem } from '../limit/index.ts';
import { limitP2System } from '../limit/p2/index.ts';
import { rxjsSystem } from '../rxjs/index.ts';
import { DURABLE_STATE_WORKLOADS, type WorkloadId } from '../workloads/params.ts';
import type { BenchSystem } from '../workloads/system.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import { setEnvironmentDefaults } from '../../src/api/environment-defaults.ts';
import { CHECKSUM_CHANNEL_ENV, type ChecksumReport } from '../weir/job-source.ts';

// weir-no-metrics is Weir with metrics off (no sampler, no busy-time clock reads): beside `weir` (metrics on, the
// default) it measures what metrics cost in the same run. weir-p2 is Weir at parallelism 2 on 2 worker threads
// (worker mode), the counterpart of flink-p2. weir-lmdb is Weir with keyed state in the LMDB backend, on the
// workloads measured on durable state (DURABLE_STATE_WORKLOADS), the counterpart of flink-rocksdb-p1. limit-p2 is the
// limit's loops on 2 worker threads with records crossing by key group (bench/limit/p2/): weir-p2's ceiling.
export const NODE_SYSTEM_NAMES = [
  'limit',
  'rxjs',
  'weir',
  'weir-no-metrics',
  'limit-p2',
  'weir-p2',
  'weir-lmdb',
] as const;

/**
 * Weir with a checkpoint every `--checkpoint-every` ms (aligned, exactly-once, into a FileCheckpointStorage directory
 * in a fresh temp folder per run), on the heap and on LMDB, on the durable-state workloads: the counterparts of
 * flink-checkpointed-p1 and flink-rocksdb-checkpointed-p1. The runner adds them when `--checkpoint-every` is given.
 */
export const CHECKPOINTED_SYSTEMS: Readonly<Record<string, string>> = {
  'weir-checkpointed': 'weir',
  'weir-lmdb-checkpointed': 'weir-lmdb',
};

/** The checkpoint interval of the checkpointed systems when a cell does not give one (a CellSpec from a caller). */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 1_000;

export interface LoadedSystem {
  readonly name: string;
  readonly system?: BenchSystem;
  /** Set when the system could not be loaded. */
  readonly error?: string;
}

export async function loadSystem(
  name: string,
  checkpointIntervalMs = DEFAULT_CHECKPOINT_INTERVAL_MS,
): Promise<LoadedSystem> {
  const unchecked = CHECKPOINTED_SYSTEMS[name];
  if (unchecked !== undefined) {
    const loaded = await loadSystem(unchecked);
    if (loaded.system === undefined) return { ...loaded, name };
    return { name, system: withCheckpoints(name, loaded.system, checkpointIntervalMs) };
  }
  if (name === 'limit') return { name, system: limitSystem };
  if (name === 'limit-p2') return { name, system: limitP2System };
  if (name === 'rxjs') return { name, system: rxjsSystem };
  if (name === 'weir' || name === 'weir-no-metrics' || name === 'weir-p2' || name === 'weir-lmdb') {
    try {
      const module = (await import('../weir/index.ts')) as { weirSystem: BenchSystem };
      if (name === 'weir') return { name, system: module.weirSystem };
      if (name === 'weir-p2') return { name, system: onWorkers(module.weirSystem, 2) };
      if (name === 'weir-lmdb') return { name, system: onLmdb(module.weirSystem) };
      return { name, system: withoutMetrics(module.weirSystem) };
    } catch (error) {
      return { name, error: `bench/weir/index.ts failed to load: ${String(error)}` };
    }
  }
  return { name, error: `unknown system ${name}` };
}

/**
 * The same workloads at parallelism `workers` on that many worker threads. Each worker imports
 * bench/weir/worker-job.ts, which rebuilds the workload named (with its parameters) in WEIR_BENCH_JOB. The
 * checksum sink's subtasks run in their slots' workers (no record crosses to the main thread, as in Flink's p2
 * jobs) and report their sums at the end of their input; the run's result is the sum of the reports.
 */
function onWorkers(system: BenchSystem, workers: number): BenchSystem {
  const jobModule = new URL('../weir/worker-job.ts', import.meta.url).href;
  const workloads: BenchSystem['workloads'] = {};
  for (const [id, run] of Object.entries(system.workloads)) {
    workloads[id as keyof BenchSystem['workloads']] = async (params) => {
      const own = { ...params, parallelism: workers, probe: undefined };
      process.env.WEIR_BENCH_JOB = JSON.stringify({ workload: id, params: own });
      const reports = new ChecksumReports(`weir-bench-checksum-${process.pid}-${++runCounter}`);
      process.env[CHECKSUM_CHANNEL_ENV] = reports.name;
      // The workers stay for the next run, as Flink's JVM (and its JIT) stays between the MiniClusters of its runs.
      // WEIR_BENCH_WORKER_YOUNG_MB sets the workers' young generation (an A/B of the heap limits in worker-cpu.ts).
      const young = process.env.WEIR_BENCH_WORKER_YOUNG_MB;
      setEnvironmentDefaults({
        environment: {
          workers,
          jobModule,
          reuseWorkers: true,
          ...(young !== undefined
            ? { workerResourceLimits: { maxYoungGenerationSizeMb: Number(young) } }
            : {}),
        },
      });
      try {
        const result = await run!({
          ...own,
          ...(params.probe !== undefined ? { probe: params.probe } : {}),
        });
        const sinks = await reports.all();
        return {
          ...result,
          count: result.count + sinks.count,
          checksum: (result.checksum + sinks.sum) >>> 0,
        };
      } finally {
        reports.close();
        setEnvironmentDefaults(undefined);
        delete process.env.WEIR_BENCH_JOB;
        delete process.env[CHECKSUM_CHANNEL_ENV];
      }
    };
  }
  return { name: `weir-p${workers}`, workloads };
}

let runCounter = 0;

/** Collects the sink subtasks' reports of one weir-p2 run (see checksumSink in bench/weir/job-source.ts). */
class ChecksumReports {
  private readonly channel: BroadcastChannel;
  private readonly received = new Map<number, ChecksumReport>();
  private expected = Infinity;
  private complete: (() => void) | undefined = undefined;

  constructor(readonly name: string) {
    this.channel = new BroadcastChannel(name);
    this.channel.onmessage = (event) => {
      const report = (event as { data: ChecksumReport }).data;
      this.received.set(report.subtask, report);
      this.expected = report.parallelism;
      if (this.received.size >= this.expected) this.complete?.();
    };
  }

  /**
   * Resolves with the summed reports once every sink subtask reported. Called after the job succeeded, so every
   * subtask's end of input has run and posted its report; only the delivery is still under way.
   */
  async all(): Promise<{ count: number; sum: number }> {
    if (this.received.size < this.expected) {
      await new Promise<void>((resolve) => (this.complete = resolve));
    }
    let count = 0;
    let sum = 0;
    for (const r of this.received.values()) {
      count += r.count;
      sum = (sum + r.sum) | 0;
    }
    return { count, sum };
  }

  close(): void {
    this.channel.close();
  }
}

/**
 * The durable-state workloads with keyed state in the LMDB backend (its default cache), each run in a fresh
 * directory removed after the run, so no run reads another's files and the disk does not fill over a suite.
 */
function onLmdb(system: BenchSystem): BenchSystem {
  const workloads: BenchSystem['workloads'] = {};
  for (const [id, run] of Object.entries(system.workloads)) {
    if (!DURABLE_STATE_WORKLOADS.has(id as WorkloadId)) continue;
    workloads[id as WorkloadId] = async (params) => {
      const lmdbPath = mkdtempSync(join(tmpdir(), 'weir-bench-lmdb-'));
      try {
        return await run!({ ...params, lmdbPath });
      } finally {
        rmSync(lmdbPath, { recursive: true, force: true });
      }
    };
  }
  return { name: 'weir-lmdb', workloads };
}

/**
 * The durable-state workloads with a checkpoint every `intervalMs` into a fresh directory per run (removed after the
 * run); each run's result carries how many checkpoints completed during it (the final one of the bounded job
 * included).
 */
function withCheckpoints(name: string, system: BenchSystem, intervalMs: number): BenchSystem {
  const workloads: BenchSystem['workloads'] = {};
  for (const [id, run] of Object.entries(system.workloads)) {
    if (!DURABLE_STATE_WORKLOADS.has(id as WorkloadId)) continue;
    workloads[id as WorkloadId] = async (params) => {
      const storage = mkdtempSync(join(tmpdir(), 'weir-bench-checkpoints-'));
      let checkpoints = 0;
      try {
        const result = await run!({
          ...params,
          checkpoint: { intervalMs, storage, onCompleted: () => checkpoints++ },
        });
        return { ...result, checkpoints };
      } finally {
        rmSync(storage, { recursive: true, force: true });
      }
    };
  }
  return { name, workloads };
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
