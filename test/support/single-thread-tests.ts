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
    'src/execution/checkpointing.test.ts > checkpointing > restarts from the latest checkpoint after a failure and commits every result exactly once',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/checkpointing.test.ts > checkpointing > takes a savepoint on request, cancels, and resumes from it at another parallelism',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'src/execution/checkpointing.test.ts > checkpointing > restores a rate-limited generator savepoint taken at parallelism 2 at parallelism 3, counting each key once',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'src/execution/checkpointing.test.ts > checkpointing > refuses to restore operator state kept per subtask at another parallelism, naming the operator',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'src/execution/checkpointing.test.ts > checkpointing > completes a savepoint of a file source with keyed state downstream within a few batches, not at the end',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'src/execution/checkpointing.test.ts > checkpointing > rejects a savepoint with state for an operator the job lacks, naming it, unless allowed',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'src/execution/checkpointing.test.ts > checkpointing > checkpoints LMDB state incrementally and restores it',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/connectors/file-sink.test.ts > FileSink without checkpointing > after a restart from the beginning the published file holds every record once',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/connectors/file-sink.test.ts > FileSink with checkpointing: a job that fails and restores > exactly once: every number is in the finished files once',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/connectors/file-sink.test.ts > FileSink with checkpointing: a job that fails and restores > at least once: every number is in the finished files, none lost',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/finished-sources.test.ts > checkpoints after sources finished > union at parallelism 1: restores mid-way from a checkpoint taken after the file finished',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/finished-sources.test.ts > checkpoints after sources finished > union at parallelism 2: restores mid-way from a checkpoint taken after the file finished',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/finished-sources.test.ts > checkpoints after sources finished > connect at parallelism 1: restores mid-way from a checkpoint taken after the file finished',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/finished-sources.test.ts > checkpoints after sources finished > connect at parallelism 2: restores mid-way from a checkpoint taken after the file finished',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/finished-sources.test.ts > checkpoints after sources finished > side outputs at parallelism 1: restores mid-way from a checkpoint taken after the file finished',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/finished-sources.test.ts > checkpoints after sources finished > side outputs at parallelism 2: restores mid-way from a checkpoint taken after the file finished',
    "the fault is injected once by a flag in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'test/rescale/rescale.test.ts > rescaling a savepoint with sources > FileSource over several files: taken at 3, restored at 1, 2 and 5',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'test/rescale/rescale.test.ts > rescaling a savepoint with sources > FileSource over one big file: its one split resumes mid-file at 1, 2 and 5',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'test/rescale/rescale.test.ts > rescaling a savepoint with sources > GeneratorSource, rate-limited: taken at 3, restored at 1, 2 and 5',
    "the test waits on a count (Progress) its user function keeps in the test's own object: a worker's function counts in its copy, and the wait would never end",
  ],
  [
    'src/execution/alignment-backpressure.test.ts > alignment backpressure > holds an unthrottled source back while its channel is blocked; every checkpoint completes',
    "the sink counts records into the test's own variables: a worker's sink counts in its copy",
  ],
  [
    'test/broadcast-state.test.ts > BroadcastStateITCase (Flink) > testKeyedWithBroadcastTranslation',
    "the function pushes the keys its timers fire for into the test's array: a worker's function pushes into its copy",
  ],
  [
    'test/broadcast-state.test.ts > BroadcastStateITCase (Flink) > testBroadcastTranslation',
    "the function pushes the keys its timers fire for into the test's array: a worker's function pushes into its copy",
  ],
  [
    'src/operators/async-wait-operator.test.ts > AsyncDataStream in a running job > finishes only after every result was emitted, and keeps at most `capacity` calls in flight',
    "the function counts its calls in flight in the test's own variable: a worker's function counts in its copy",
  ],
  [
    'src/connectors/file-source.test.ts > FileSource.jsonLines > streams a 200k-line file with bounded buffer memory',
    "the sink counts the records and measures the Buffer memory of its own thread into the test's variables: a worker's sink counts into its copy and measures the worker's memory",
  ],
  [
    'test/memory/slow-sink-memory.test.ts > fast source, slow sink > keeps at most the sink buffer plus one source batch in flight, and the heap flat over 300,000 records',
    "the map and the sink count the records in flight and sample the heap of their own thread into the test's variables: on a worker they count into their copies and sample the worker's heap",
  ],
  [
    'test/job-metrics.test.ts > job metrics > with metrics off, user metrics still work and nothing samples the clock',
    "the test reads the counter its function's open() keeps in the test's own variable: a worker's function keeps it in its copy, and with metrics off no figures carry it to the main thread",
  ],
  [
    'test/stop-with-savepoint/stop-with-savepoint.test.ts > stop-with-savepoint > stops a running job right after its savepoint; a restore from it counts every number once',
    "the restored job reads up to the first job's stop position plus 1,000, a position that depends on timing: a worker replaying the body up to the restored job stops its own first run at another position, so its restored source would end elsewhere",
  ],
  [
    'test/stop-with-savepoint/sigterm.test.ts > stop-with-savepoint > on SIGTERM, a job run with savepointOnSigterm stops with a savepoint and the process exits normally',
    "the restored job reads up to the stopped child's position plus 500, a position that depends on timing: a worker replaying the body up to the restored job runs the child again, which stops at another position, so its restored source would end elsewhere",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > restarts from the beginning without checkpoints, logging why, and ends FINISHED with the restart counted',
    "the fault is injected a set number of times by a counter in the test's memory: each restarted worker starts with its own full count",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > fails for good once the strategy gives up: FAILED, with the root cause and the error itself',
    "the fault is injected a set number of times by a counter in the test's memory: each restarted worker starts with its own full count",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > restarts with a state backend that is not told of new attempts (the heap backend has no newRun)',
    "the fault is injected once by a counter in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > fails a job that has nothing left to run, naming what its subtasks and checkpoints wait for (the stall watch)',
    "the test waits until its source's read was asked for, which it sees in its own copy, and plays the empty event loop of this thread: a worker's source reads in another",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > restarts from the initial snapshot when it has no checkpoint of its own',
    "the fault is injected once by a counter in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > restarts from the latest checkpoint, and reports it as the one restored',
    "the checkpoint listener arms the fault in the test's memory: a worker's map reads its own copy, never armed",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > cancelled while waiting to restart, it ends CANCELED at once',
    "the fault is injected once by a counter in the test's memory: the restarted workers start with it armed again",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > fails a job whose sink cannot close, restarting as for any failure',
    "the sink counts its close() calls in the test's variable: a worker's sink counts in its copy",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > after a stop-with-savepoint, a failure ends the job FAILED without a restart',
    "the test waits until its sink has written 100 records, counted in the test's variable: a worker's sink counts in its copy",
  ],
  [
    'src/execution/fault-tolerant-execution.test.ts > fault-tolerant execution > goes on running when the savepoint of a stop-with-savepoint fails',
    "the test waits until its sink has written more records, counted in the test's variable: a worker's sink counts in its copy",
  ],
]);
