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
    'src/connectors/async-iterable-source.test.ts > env.fromAsyncIterable > cancels a job whose iterables wait forever: cancel() returns, the job is CANCELED',
    "the test waits until the source's iterables were asked for an item and counts their return() calls: a worker's source calls its own copies",
  ],
  [
    'src/connectors/async-iterable-source.test.ts > env.fromAsyncIterable > cancels such a job through the REST API',
    "the test cancels once the source's generator waits, which it sees in its own copy: a worker's source runs another",
  ],
  [
    'src/connectors/async-sink.test.ts > AsyncSink > writes full batches with at most maxInFlightRequests in flight; the job ends once all are acknowledged',
    "the test acknowledges each write of its manual database by hand: a worker's sink writes to its own copy, which nobody acknowledges",
  ],
  [
    'src/connectors/async-sink.test.ts > AsyncSink > stops the sources while maxBufferedRequests records are pending (backpressure)',
    "the test counts its source's polls and acknowledges its manual database's writes by hand: a worker's source and sink use their own copies",
  ],
  [
    'src/operators/async-wait-operator.test.ts > AsyncDataStream in a running job > stops polling its sources while full (backpressure)',
    "the test counts its source's polls and settles each asynchronous call by hand: a worker's function calls its own copy",
  ],
  [
    'examples/fault-tolerance/fault-tolerant-job.test.ts > fault-tolerance example > restarts after the simulated crash and counts every click exactly once',
    'the crash is armed once by a flag in memory: the restarted workers start with the flag armed again',
  ],
]);
