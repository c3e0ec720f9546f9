// The partial-match job in worker mode: CEP at parallelism 2 on 2 worker threads; each worker imports this module.
import { startPartialMatchJob } from './cep-partial-match-job.ts';

/** On the main thread the running job; in a worker this import never settles (the worker runs its share). */
export const client = await startPartialMatchJob(
  { port: 0 },
  { parallelism: 2, workers: 2, jobModule: import.meta.url },
);
