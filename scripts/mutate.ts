// Mutation testing of one engine folder with StrykerJS: `npm run mutate -- <folder> [--concurrency n]`.
import { fileURLToPath } from 'node:url';
import { Stryker } from '@stryker-mutator/core';
import type { PartialStrykerOptions } from '@stryker-mutator/api/core';

const WHOLE_SUITE = [
  'src/**/*.test.ts',
  'test/*.test.ts',
  'test/*/*.test.ts',
  '!test/crash/**',
  'examples/**/*.test.ts',
];

/**
 * Each folder's source files and the test files that exercise them. Only these tests run against the folder's
 * mutants (each test only for the mutants it covers), which keeps a run to minutes instead of hours.
 */
const FOLDERS: Record<string, { mutate: string[]; tests: string[]; root?: string }> = {
  time: {
    mutate: ['src/time/**/*.ts'],
    tests: [
      'src/time/**/*.test.ts',
      'src/core/clock.test.ts',
      'test/timers.test.ts',
      'test/watermarks.test.ts',
    ],
  },
  // The executor internals: the folder's own tests (valve, aligner, thread exchange, record batches, busy time) and
  // the DataStream-level tests that observe the runtime from outside in a few seconds each: watermarks through
  // unions, idleness and split sources, side outputs, connected streams and parallel edges (record routing),
  // checkpoint barriers, alignment and backpressure, finished sources and restored snapshots, the job and operator
  // metrics (busy time, records in and out), failures naming the subtask, record and activity (a record, a timer, the
  // end of input), and asynchronous operators that finish after their end of input. Left out: the tests that start
  // child processes (stall, stop-with-savepoint, CLI, crash) or a broker, and worker mode (two minutes, and the runner
  // does not see the coverage of its worker threads; job-runtime.test.ts runs two hosts' runtimes on one thread).
  runtime: {
    mutate: ['src/runtime/**/*.ts'],
    tests: [
      'src/runtime/**/*.test.ts',
      'test/watermarks.test.ts',
      'test/timestamps-and-watermarks-operator.test.ts',
      'src/operators/split-watermarks.test.ts',
      'test/side-outputs.test.ts',
      'test/connected-streams.test.ts',
      'test/parallelism.test.ts',
      'src/execution/checkpointing.test.ts',
      'src/execution/alignment-backpressure.test.ts',
      'src/execution/finished-sources.test.ts',
      'test/job-metrics.test.ts',
      'test/operator-gauges.test.ts',
      'test/errors.test.ts',
      'test/async-functions.test.ts',
    ],
  },
  // The job runtime (job-runtime.ts) against the tests that drive it directly (JobRuntime, two hosts' runtimes on one
  // thread over a MessageChannel, subtasks, channels, the exchange): with the DataStream-level files of `runtime`
  // every surviving mutant of this file runs some 200 tests, about 40 minutes for the file on a loaded machine.
  'runtime-job': {
    root: 'src/runtime',
    mutate: ['src/runtime/job-runtime.ts'],
    tests: ['src/runtime/**/*.test.ts'],
  },
  // The built-in operators are reached by nearly every test, so running the whole suite against them takes hours:
  // the folder's own operator-level tests, plus the DataStream-level files that observe one of these operators from
  // outside and run in a few seconds (process functions and timers, co-process and broadcast, interval joins, async
  // I/O, reduce and aggregations, side outputs, watermarks and idleness, late-record logs, sources and their
  // splits). Files that start child processes or a Kafka broker, and the slow checkpoint and REST tests, are left
  // out: they add minutes per mutant of the source and sink operators without observing anything more of them.
  operators: {
    mutate: ['src/operators/**/*.ts'],
    tests: [
      'src/operators/**/*.test.ts',
      'src/api/co-flat-map.test.ts',
      'src/api/aggregation/*.test.ts',
      'src/api/broadcast/broadcast-state.test.ts',
      'src/api/join/interval-join.test.ts',
      'src/testing/harness-timers.test.ts',
      'src/connectors/source-contract.test.ts',
      'test/async-functions.test.ts',
      'test/broadcast-state.test.ts',
      'test/connected-streams.test.ts',
      'test/interval-join.test.ts',
      'test/side-outputs.test.ts',
      'test/timers.test.ts',
      'test/timestamps-and-watermarks-operator.test.ts',
      'test/watermarks.test.ts',
      'test/operational-logs.test.ts',
      'test/keyed-state.test.ts',
      'test/errors.test.ts',
    ],
  },
  execution: { mutate: ['src/execution/**/*.ts'], tests: WHOLE_SUITE },
  // Checkpointing: the coordinator, its storage, stats and restart strategies, and the execution loop that drives
  // them (src/execution's top-level files; the worker-thread and cluster runtimes below it are not part of it).
  // The tests are the folder's own and the DataStream-level ones that observe checkpoints from outside: savepoints
  // and stop-with-savepoint, exactly-once file sinks (two-phase commit), checkpoint figures in the REST API, the
  // metrics and a finished job's web UI, restore at another parallelism, the fault-tolerance example. Left out:
  // tests that run jobs in child processes or on worker threads (a mutant is switched on in this process only, so
  // they would pay their start-up per mutant and observe the unmutated code) and the Kafka tests (they need a
  // broker).
  checkpoint: {
    root: 'src/execution',
    mutate: ['src/execution/*.ts'],
    tests: [
      'src/execution/*.test.ts',
      'src/connectors/file-sink.test.ts',
      'test/stop-with-savepoint/stop-with-savepoint.test.ts',
      'test/rest-api.test.ts',
      'test/job-metrics.test.ts',
      'test/web-ui-keep-alive.test.ts',
      'test/rescale/rescale.test.ts',
      'examples/fault-tolerance/fault-tolerant-job.test.ts',
    ],
  },
  // The process-function context, per-window state, window joins and aggregations, late side outputs and the
  // operator's metrics are observed through the DataStream API, from outside the folder.
  windowing: {
    mutate: ['src/windowing/**/*.ts'],
    tests: [
      'src/windowing/**/*.test.ts',
      'src/api/windowed-stream.test.ts',
      'src/api/join/window-join.test.ts',
      'src/api/aggregation/*.test.ts',
      'src/testing/harness-timers.test.ts',
      'test/side-outputs.test.ts',
      'test/flink-divergences.test.ts',
      'test/operator-gauges.test.ts',
      'test/operational-logs.test.ts',
      'test/watermarks.test.ts',
      'test/job-metrics.test.ts',
    ],
  },
  // The operator's gauges, late-record log and live partial matches are observed from outside the folder.
  cep: {
    mutate: ['src/cep/**/*.ts'],
    tests: [
      'src/cep/**/*.test.ts',
      'test/cep/*.test.ts',
      'test/operator-gauges.test.ts',
      'test/operational-logs.test.ts',
    ],
  },
  // Keyed and broadcast state are observed through the DataStream API too: class-valued state, state defaults,
  // checkpoints restored into the backends, and a savepoint restored at other parallelisms (key groups).
  state: {
    mutate: ['src/state/**/*.ts'],
    tests: [
      'src/state/**/*.test.ts',
      'test/state-backend/*.test.ts',
      'test/keyed-state.test.ts',
      'test/class-state.test.ts',
      'test/value-state-default.test.ts',
      'test/broadcast-state.test.ts',
      'src/api/broadcast/broadcast-state.test.ts',
      'src/execution/checkpointing.test.ts',
      'src/testing/harness-timers.test.ts',
      'test/rescale/rescale.test.ts',
    ],
  },
};

function usage(): never {
  console.error(
    `usage: npm run mutate -- <${Object.keys(FOLDERS).join('|')}> [--concurrency n] [--only <sub-path glob>]`,
  );
  process.exit(2);
}

const args = process.argv.slice(2);
const folder = args[0];
if (folder === undefined || !(folder in FOLDERS)) usage();
const concurrencyFlag = args.indexOf('--concurrency');
// The machine is shared: one test process at a time unless asked for more.
const concurrency = concurrencyFlag >= 0 ? Number(args[concurrencyFlag + 1]) : 1;
if (!Number.isInteger(concurrency) || concurrency < 1) usage();
// A folder too big for one sitting is run in parts: `--only nfa/compiler/**` mutates src/<folder>/nfa/compiler/**
// only (below the entry's root where it names one), with its own report and incremental file (the tests stay the
// folder's).
const onlyFlag = args.indexOf('--only');
const only = onlyFlag >= 0 ? args[onlyFlag + 1] : undefined;
if (onlyFlag >= 0 && (only === undefined || only.length === 0)) usage();

const { tests, root = `src/${folder}` } = FOLDERS[folder]!;
const mutate = only === undefined ? FOLDERS[folder]!.mutate : [`${root}/${only}`];
const report = only === undefined ? folder : `${folder}--${only.replace(/[^A-Za-z0-9.-]+/g, '-')}`;
const options: PartialStrykerOptions = {
  testRunner: 'node-test',
  plugins: [
    fileURLToPath(new URL('./stryker/node-test-runner.ts', import.meta.url)),
    fileURLToPath(new URL('./stryker/survivor-log-reporter.ts', import.meta.url)),
  ],
  // The runner's workers import TypeScript (the runner itself, the tests, the instrumented sources) through tsx.
  testRunnerNodeArgs: ['--import', 'tsx'],
  nodeTest: { testFiles: tests },
  mutate: [...mutate, '!src/**/*.test.ts', '!src/**/testing/**'],
  coverageAnalysis: 'perTest',
  concurrency,
  timeoutMS: 5_000,
  // A rerun tests only the mutants whose code or covering tests changed since the last run of this folder.
  incremental: true,
  incrementalFile: `reports/mutation/${report}.incremental.json`,
  reporters: ['clear-text', 'progress', 'json', 'survivor-log'],
  jsonReporter: { fileName: `reports/mutation/${report}.json` },
  survivorLog: { fileName: `reports/mutation/${report}.survivors.txt` },
  clearTextReporter: { reportScoreTable: true, allowColor: false, logTests: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  ignorePatterns: ['bench', 'docs', 'dist', 'reports', '.weir-tmp', '*.tgz'],
  thresholds: { high: 95, low: 90, break: null },
};

const results = await new Stryker(options).runMutationTest();
const counts = new Map<string, number>();
for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
const detected = (counts.get('Killed') ?? 0) + (counts.get('Timeout') ?? 0);
const undetected = (counts.get('Survived') ?? 0) + (counts.get('NoCoverage') ?? 0);
const score = (100 * detected) / Math.max(detected + undetected, 1);
console.log(
  `mutation score of ${mutate.join(', ')}: ${score.toFixed(2)} % (${detected} detected, ${undetected} undetected; ` +
    [...counts].map(([s, n]) => `${s} ${n}`).join(', ') +
    ')',
);
