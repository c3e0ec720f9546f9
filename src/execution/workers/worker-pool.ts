// WorkerPool: worker threads kept after a job that closed cleanly, for the process's next job (their code is warm).
import type { ResourceLimits, Worker } from 'node:worker_threads';

/** Idle workers by what they were started with (the process's loaders and arguments): only those can be reused. */
const idle = new Map<string, Worker[]>();
/** Each idle worker's own exit listener, removed when the worker is taken. */
const dropOnExit = new WeakMap<Worker, () => void>();

/**
 * The pool a worker started now belongs to: workers are interchangeable only with the same loaders, argv and heap
 * limits (a worker's limits are fixed when it starts).
 */
export function poolKey(argv: readonly string[], limits: ResourceLimits): string {
  return JSON.stringify([process.execArgv, argv, limits]);
}

/**
 * An idle worker for `key`, or undefined. It keeps what a previous job compiled: the JIT's optimised code of Weir's
 * operators and of every module the job imports, which a new thread would interpret and compile again (for a job of
 * a few seconds that is a large part of its work; see docs/performance.md, "weir-p2 beside weir").
 */
export function takeIdleWorker(key: string): Worker | undefined {
  const list = idle.get(key);
  const worker = list?.pop();
  if (worker === undefined) return undefined;
  worker.off('exit', dropOnExit.get(worker)!);
  dropOnExit.delete(worker);
  worker.ref();
  return worker;
}

/** Keeps a worker whose job closed cleanly; it no longer keeps the process alive, and one that exits is dropped. */
export function keepIdleWorker(key: string, worker: Worker): void {
  let list = idle.get(key);
  if (list === undefined) idle.set(key, (list = []));
  const kept = list;
  const drop = (): void => {
    const at = kept.indexOf(worker);
    if (at >= 0) kept.splice(at, 1);
  };
  dropOnExit.set(worker, drop);
  worker.on('exit', drop);
  worker.unref();
  kept.push(worker);
}

/** Ends every idle worker (a test that checks none is left, or a process that wants its threads back). */
export async function terminateIdleWorkers(): Promise<void> {
  const all = [...idle.values()].flat();
  idle.clear();
  await Promise.all(all.map((w) => w.terminate()));
}
