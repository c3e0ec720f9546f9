// The first module of a job's worker thread: loads the job module, whose execute() then runs this worker's slots.
import { parentPort } from 'node:worker_threads';
import { ConfigurationError } from '../../core/errors.ts';
import { serializeError, type FromWorker } from './worker-messages.ts';
import { ATTACHED, workerSlotData } from './worker-slot.ts';
import { jobLocator } from './job-locator.ts';

const slot = workerSlotData()!;
const post = (message: FromWorker): void => parentPort!.postMessage(message);
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
  } else await import(slot.jobModule);
  if ((globalThis as Record<symbol, unknown>)[ATTACHED] !== true) {
    post({
      type: 'failed',
      error: serializeError(
        new ConfigurationError(
          `The job module ${slot.jobModule} finished loading in a worker without calling execute('${slot.jobName}'): in worker mode each worker imports the job's module and its execute() runs the worker's share; build and execute the job at the module's top level (not behind a condition on the main thread), or set the environment's jobModule to the module that does`,
        ),
      ),
    });
  }
} catch (error) {
  post({
    type: 'failed',
    error: serializeError(
      new ConfigurationError(
        `The job module ${slot.jobModule} could not be loaded in a worker: ${(error as Error)?.message ?? String(error)}`,
        { cause: error },
      ),
    ),
  });
}
