// The entry of limit-p2's two worker threads: on each 'run' message it runs its half of the workload named
// (bench/limit/p2/thread-loop.ts) and answers with its sink's count and sum, its CPU time and what it sent.

import { parentPort, workerData } from 'node:worker_threads';
import type { WorkloadParams } from '../../workloads/params.ts';
import { LIMIT_P2_WORKLOADS, type LimitP2Entry, type LimitP2Workload } from './workloads.ts';
import { runThread } from './thread-loop.ts';
import { Doorbell, RingReader, RingWriter, type RingBuffers } from './thread-ring.ts';

/** What the main thread gives each worker at start. */
export interface LimitP2WorkerData {
  readonly thread: number;
  readonly bells: SharedArrayBuffer;
  /** rings[t] carries records from thread t to the other. */
  readonly rings: readonly [RingBuffers, RingBuffers];
}

export interface LimitP2Run {
  readonly workload: LimitP2Workload;
  readonly params: WorkloadParams;
}

export interface LimitP2Report {
  readonly thread: number;
  readonly count: number;
  readonly sum: number;
  readonly sent: number;
  readonly generated: number;
  /** The thread's CPU time during the run (ms; user + system), where Node gives it (process.threadCpuUsage). */
  readonly cpuMs?: number;
}

const threadCpuUsage = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } })
  .threadCpuUsage;
const cpuMs = (): number | undefined => {
  if (threadCpuUsage === undefined) return undefined;
  const usage = threadCpuUsage.call(process);
  return (usage.user + usage.system) / 1000;
};

const data = workerData as LimitP2WorkerData;
const bell = new Doorbell(data.bells, data.thread);
const port = parentPort!;
port.on('message', (message: LimitP2Run) => {
  const startCpu = cpuMs();
  const entry = LIMIT_P2_WORKLOADS[message.workload] as LimitP2Entry<unknown>;
  const width = entry.codec.width;
  const result = runThread(
    {
      thread: data.thread,
      // Read and written from the counters the main thread reset before the run.
      out: new RingWriter(data.rings[data.thread]!, width),
      input: new RingReader(data.rings[1 - data.thread]!, width),
      bell,
    },
    message.params,
    entry.shape,
    entry.codec,
    entry.create(message.params),
  );
  const endCpu = cpuMs();
  const report: LimitP2Report = {
    thread: data.thread,
    ...result,
    ...(startCpu !== undefined && endCpu !== undefined ? { cpuMs: endCpu - startCpu } : {}),
  };
  port.postMessage(report);
});
port.postMessage('ready');
