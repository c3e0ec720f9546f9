// Records every worker thread this process starts and whether it still runs, for jobs that check what they leave.
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

/** The worker threads started so far, in order, and how many of them have exited. */
export const startedWorkers: { readonly all: workerThreads.Worker[]; exited: number } = {
  all: [],
  exited: 0,
};

// Every `new Worker` of the process, the engine's included (its imports see the replaced export: ESM bindings of a
// builtin follow syncBuiltinESMExports), is recorded with an exit listener of its own.
const Real = workerThreads.Worker;
workerThreads.Worker = class RecordedWorker extends Real {
  constructor(...args: ConstructorParameters<typeof Real>) {
    super(...args);
    startedWorkers.all.push(this);
    this.once('exit', () => startedWorkers.exited++);
  }
};
syncBuiltinESMExports();

/** `started=N running=M`: what the job module prints once its job is over. */
export const workerThreadCount = (): string =>
  `started=${startedWorkers.all.length} running=${startedWorkers.all.length - startedWorkers.exited}`;
