// The test files `npm run test:workers` leaves out, because their jobs never take the suite's default thread mode:
// they run in child processes or name their worker count themselves, so a worker-mode run would repeat exactly what
// `npm test` runs (about 60 % of the worker-mode run's time). `npm test` runs every one of them.

/** Module path from the repository root → why its jobs run the same in both modes. */
export const SAME_IN_BOTH_MODES: ReadonlyMap<string, string> = new Map([
  ['test/crash/crash.test.ts', 'every killed run is a child process; the reference says workers: 1'],
  [
    'test/crash/crash-workers.test.ts',
    'every killed run is a child process on 2 workers; the reference says workers: 1',
  ],
  ['test/crash/union-crash.test.ts', 'every run is a child process'],
  ['test/cli/weir-cli-process.test.ts', 'every job runs in a `weir run` child process'],
  ['test/rescale/rescale-workers.test.ts', 'every job runs in a child process with its worker count given'],
  [
    'test/workers/worker-mode.test.ts',
    'every job runs in a child process with its worker count given, or says workers: 1',
  ],
  ['test/workers/worker-metrics.test.ts', 'its job names its worker count (2)'],
  ['test/workers/source-turns.test.ts', 'its job names its worker count (2)'],
  ['test/bench/checkpoint-cost.test.ts', 'every job runs in a benchmark child process'],
  ['test/second-job-code.test.ts', 'it runs no job: its probe is a child process'],
]);

/** Set by test/support/worker-mode.ts on the main thread of `npm run test:workers`. */
export const WORKER_MODE_SUITE = Symbol.for('weir.test.workerModeSuite');
