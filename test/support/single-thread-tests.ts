// The tests whose jobs stay on one thread when the suite runs in worker mode, each with the reason.
//
// Beyond this list, `npm run test:workers` keeps on the calling thread, by rule: TestHarness and operator tests
// (no job), jobs driven by a ManualClock (advanced by the test on its thread), jobs started outside a test body
// (module top level, before hooks), and a test's jobs after its third (a worker replays the body up to its job).

/** Test (module path from the repository root, then describe and it names, joined by ' > ') → reason. */
export const SINGLE_THREAD_TESTS: ReadonlyMap<string, string> = new Map([
  [
    'src/api/co-flat-map.test.ts > ConnectedStreams.flatMap > emits zero or more records per element of either side, with fields per subtask',
    "the function pushes into the test's array: a worker's function pushes into the worker's copy",
  ],
  [
    'src/connectors/async-iterable-source.test.ts > env.fromAsyncIterable > emits each item as it arrives instead of waiting for a full batch',
    "the test feeds the source's iterable by hand: a worker's source reads its own copy, which nobody feeds",
  ],
  [
    'examples/fault-tolerance/fault-tolerant-job.test.ts > fault-tolerance example > restarts after the simulated crash and counts every click exactly once',
    'the crash is armed once by a flag in memory: the restarted workers start with the flag armed again',
  ],
]);
