// The first module of a job's worker thread: loads the job module, whose execute() then runs this worker's slots.
import { parentPort } from 'node:worker_threads';
import { ConfigurationError, JobLoadError } from '../../core/errors.ts';
import { serializeError, type FromWorker, type WorkerSlotData } from './worker-messages.ts';
import { ATTACHED, attachSlot, onNextJob, workerSlotData } from './worker-slot.ts';
import { jobLocator } from './job-locator.ts';

const post = (message: FromWorker): void => parentPort!.postMessage(message);
let jobs = 0;

/**
 * Loads the job's module, whose `execute()` attaches to this worker's slots. A kept worker's later jobs import the
 * module again under a new query (`?weir-job=n`), so its top level runs again while the modules it imports (Weir,
 * the job's own libraries) stay loaded and compiled. `execute()` in a worker never settles, so the import settles only
 * for a module that never called it.
 */
async function load(slot: WorkerSlotData, job: number): Promise<void> {
  try {
    const locator = jobLocator();
    if (slot.location !== undefined) {
      // The runner that located the job registered its locator in this worker too (its preload runs here first).
      if (locator === undefined) {
        throw new ConfigurationError(
          `the job was located in ${slot.location.module} by a job locator, but none is registered in the worker: register it in a module the process loads with --import`,
        );
      }
      await locator.load(slot.location);
    } else {
      await import(
        job === 0
          ? slot.jobModule
          : `${slot.jobModule}${slot.jobModule.includes('?') ? '&' : '?'}weir-job=${job}`
      );
    }
    if ((globalThis as Record<symbol, unknown>)[ATTACHED] !== true) {
      post({
        type: 'failed',
        error: serializeError(
          new JobLoadError(
            `The job module ${slot.jobModule} finished loading in a worker without calling execute('${slot.jobName}'): in worker mode each worker imports the job's module and its execute() runs the worker's share; build and execute the job at the module's top level (not behind a condition on the main thread), or set the environment's jobModule to the module that does`,
          ),
        ),
      });
    }
  } catch (error) {
    post({
      type: 'failed',
      error: serializeError(
        new JobLoadError(
          `The job module ${slot.jobModule} could not be loaded in a worker: ${(error as Error)?.message ?? String(error)}`,
          { cause: error },
        ),
      ),
    });
  }
}

// A worker kept after its job closed (worker-pool.ts) is handed the next job's slot, with the main thread's
// environment variables of that moment (a worker's process.env is its own copy).
onNextJob((slot, env) => {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
  attachSlot(slot);
  void load(slot, ++jobs);
});
void load(workerSlotData()!, jobs);
