// The "limit-p2" system: the limit's hand-written loops on 2 worker threads, records crossing between them by key
// group as in Weir's worker mode (weir-p2): the ceiling weir-p2 is measured against. docs/performance.md, "The
// two-thread ceiling", says what it does and what its figures bound.
// Run: npm run bench -- --system limit,limit-p2,weir,weir-p2 --workload rolling-count

import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../../src/execution/workers/spawn-worker.ts';
import type { WorkloadResult } from '../../workloads/checksum.ts';
import type { WorkloadParams } from '../../workloads/params.ts';
import type { BenchSystem } from '../../workloads/system.ts';
import type { LimitP2Report, LimitP2Run, LimitP2WorkerData } from './limit-p2-worker.ts';
import { MAX_WIDTH } from './record-codecs.ts';
import { LIMIT_P2_WORKLOADS, type LimitP2Workload } from './workloads.ts';
import { createDoorbells, createRingBuffers, resetRing, type RingBuffers } from './thread-ring.ts';

/** Records a ring holds: 4 chunks' worth (128 KB of events), small enough to stay in the caches. */
const RING_CAPACITY = 4096;

/** The two workers and their shared memory, started once and kept for every run of the process (as weir-p2's). */
interface Pool {
  readonly workers: readonly Worker[];
  readonly rings: readonly [RingBuffers, RingBuffers];
}

let pool: Promise<Pool> | undefined;

async function startPool(): Promise<Pool> {
  const rings: [RingBuffers, RingBuffers] = [
    createRingBuffers(RING_CAPACITY, MAX_WIDTH),
    createRingBuffers(RING_CAPACITY, MAX_WIDTH),
  ];
  const bells = createDoorbells();
  const entry = new URL('./limit-p2-worker.ts', import.meta.url);
  const workers = [0, 1].map((thread) => {
    const workerData: LimitP2WorkerData = { thread, bells, rings };
    return spawnWorker(entry, { workerData });
  });
  await Promise.all(workers.map((worker) => nextMessage(worker)));
  for (const worker of workers) worker.unref(); // kept between runs, never keeping the process alive
  return { workers, rings };
}

function nextMessage<T>(worker: Worker): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onError = (error: Error): void => {
      worker.off('message', onMessage);
      reject(error);
    };
    const onMessage = (message: T): void => {
      worker.off('error', onError);
      resolve(message);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
  });
}

/** The figures of the latest run: each thread's report (bench/limit/p2/limit-p2-cpu.ts reads them). */
export let latestReports: readonly LimitP2Report[] = [];

async function runOnWorkers(workload: LimitP2Workload, params: WorkloadParams): Promise<WorkloadResult> {
  const started = performance.now();
  const fresh = pool === undefined;
  pool ??= startPool();
  const { workers, rings } = await pool;
  const startupMs = fresh ? performance.now() - started : 0;
  for (const ring of rings) resetRing(ring);
  const { probe: _probe, checkpoint: _checkpoint, ...plain } = params; // functions cannot cross
  const run: LimitP2Run = { workload, params: plain };
  for (const worker of workers) worker.ref();
  try {
    const replies = workers.map((worker) => nextMessage<LimitP2Report>(worker));
    for (const worker of workers) worker.postMessage(run);
    const reports = await Promise.all(replies);
    latestReports = reports;
    let count = 0;
    let sum = 0;
    for (const report of reports) {
      count += report.count;
      sum = (sum + report.sum) | 0;
    }
    return { count, checksum: sum >>> 0, events: params.events, startupMs };
  } catch (error) {
    // A thread that failed leaves the other waiting for it: the next run starts two new workers.
    pool = undefined;
    for (const worker of workers) void worker.terminate();
    throw error;
  } finally {
    for (const worker of workers) worker.unref();
  }
}

const workloads: BenchSystem['workloads'] = {};
for (const id of Object.keys(LIMIT_P2_WORKLOADS) as LimitP2Workload[]) {
  workloads[id] = (params) => runOnWorkers(id, params);
}

export const limitP2System: BenchSystem = { name: 'limit-p2', workloads };
