// Runs the suite's jobs on worker threads (`npm run test:workers`): a preload for the main thread and every worker.
//
// On the main thread it makes every environment default to worker threads and registers a job locator: each test
// body runs inside an async context naming its module, its path of describe/it names and the ordinal of each
// execute() in it. A worker of such a job imports the test module with node:test's functions replaced by a
// recorder, runs the same test body (its suite's before and beforeEach hooks first) and attaches at the same
// execute(); the execute() calls before it run on the worker's own thread, so the body between them sees the
// results it expects. Temporary directories a worker makes while it loads the test module, and while it replays the
// body of a test's first job, are the main thread's (see TEMP_DIRS); other copies of what a body writes before
// execute() go to a scratch directory (TMPDIR).
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { setEnvironmentDefaults } from '../../src/api/environment-defaults.ts';
import { setJobLocator, type JobLocation } from '../../src/execution/workers/job-locator.ts';
import { workerSlotData } from '../../src/execution/workers/worker-slot.ts';
import { WORKER_MODE_SUITE } from './same-in-both-modes.ts';
import { SINGLE_THREAD_TESTS } from './single-thread-tests.ts';

/** Which job of a test module: the test's names, its occurrence among equal names, the execute() ordinal. */
interface TestJob {
  readonly path: readonly string[];
  readonly occurrence: number;
  readonly ordinal: number;
}

type Fn = (...args: unknown[]) => unknown;
type TestFunction = Fn & Record<string, unknown>;

const require = createRequire(import.meta.url);
const nodeTest = require('node:test') as Record<string, TestFunction>;
const SCRATCH = 'WEIR_WORKER_SCRATCH';
const root = new URL('../../', import.meta.url).href;
/**
 * The main thread's temporary directories (fs.mkdtempSync), published to workers through their environment: by
 * call site and test, each in call order. A worker that loads a test module, or replays the body of a test up to
 * its first job, gets the same directories for the same calls, so the job reads and writes where the test looks
 * (a file sink's output, a file source's path in an error). Bodies replayed past an earlier job get their own
 * directories: that job runs again on the worker's thread and would write a second time into the test's.
 */
const TEMP_DIRS = 'WEIR_WORKER_TEMP_DIRS';
const fs = require('node:fs') as typeof import('node:fs');
const realMkdtemp = fs.mkdtempSync;
const workers = Number(process.env['WEIR_TEST_WORKERS'] ?? 2);
// A worker replays the test body up to its job, running the jobs before it again: a test that runs many jobs (a
// property test) would cost the square of its jobs, so only its first ones cross threads, the rest stay here.
const threadedJobsPerTest = 3;

/** The test module that called node:test: the first stack frame outside this file and node's own code. */
function callerModule(): string | undefined {
  for (const line of (new Error().stack ?? '').split('\n').slice(1)) {
    const match = /\(?((?:file:\/\/)?\/[^\s()]+?):\d+:\d+\)?$/.exec(line.trim());
    if (match === null) continue;
    const url = match[1]!.startsWith('file:') ? match[1]! : pathToFileURL(match[1]!).href;
    if (url !== import.meta.url && !url.includes('/node_modules/')) return url;
  }
  return undefined;
}

/** Replaces node:test's functions named `names` (and their .skip/.only/.todo) by `wrap` of them. */
function replace(names: readonly string[], wrap: (real: TestFunction) => TestFunction): void {
  for (const name of names) {
    const real = nodeTest[name]!;
    const wrapped = wrap(real);
    for (const variant of ['skip', 'only', 'todo']) {
      if (typeof real[variant] === 'function') wrapped[variant] = wrap(real[variant] as TestFunction);
    }
    nodeTest[name] = wrapped;
  }
  syncBuiltinESMExports();
}

/** The index of the test's function among node:test's (name?, options?, fn?) arguments, or -1. */
const fnIndex = (args: unknown[]): number => args.findIndex((a) => typeof a === 'function');
const testName = (args: unknown[], fn: Fn): string => (typeof args[0] === 'string' ? args[0] : fn.name);

/** A function with the arity of `fn` (node:test reads it: two parameters mean a done callback). */
const sameArity = (fn: Fn, run: (args: unknown[]) => unknown): Fn =>
  fn.length >= 2 ? (t: unknown, done: unknown) => run([t, done]) : (t: unknown) => run([t]);

/** Where a test's body runs, for TEMP_DIRS: the test's names and occurrence. */
const bodyScope = (job: Omit<TestJob, 'ordinal'>): string => `${job.path.join('\0')}#${job.occurrence}`;

/** Which temporary directory a mkdtempSync call makes: the project files on its stack, its prefix's name, its scope. */
function tempKey(prefix: unknown, scope: string): string {
  const files: string[] = [];
  for (const line of (new Error().stack ?? '').split('\n').slice(1)) {
    const match = /\(?((?:file:\/\/)?\/[^\s()]+?):\d+:\d+\)?$/.exec(line.trim());
    if (match === null) continue;
    const url = match[1]!.startsWith('file:') ? match[1]! : pathToFileURL(match[1]!).href;
    if (url === import.meta.url || !url.startsWith(root) || url.includes('/node_modules/')) continue;
    files.push(url.slice(root.length));
    // Up to the test module: below it, the main thread's stack has the suite's entry, a worker's its own entry.
    if (url.endsWith('.test.ts')) break;
  }
  return `${files.join(' < ')}\0${String(prefix).split('/').at(-1)}\0${scope}`;
}

/** How often a test still running says so on stderr, with its jobs (node's reporters print a test when it ends). */
const STILL_RUNNING_MS = 120_000;

/**
 * Returns `result`; while a test's promise is pending, says every two minutes on stderr which test it is and how many
 * of its jobs started, so a test that waits for something a worker thread never does (an object of the test's own
 * thread, see single-thread-tests.ts) is named instead of leaving the run silent.
 */
function watched(name: string, store: { executes: number }, result: unknown): unknown {
  if (!(result instanceof Promise)) return result;
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stderr.write(
      `test:workers: '${name}' still running after ${seconds} s, ${store.executes} job(s) started\n`,
    );
  }, STILL_RUNNING_MS);
  timer.unref();
  return result.finally(() => clearInterval(timer));
}

function mainThread(): void {
  const scratch = mkdtempSync(join(tmpdir(), 'weir-worker-scratch-'));
  process.env[SCRATCH] = scratch;
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
  const context = new AsyncLocalStorage<{
    module: string;
    job: Omit<TestJob, 'ordinal'>;
    executes: number;
  }>();
  const suites: string[] = [];
  const seen = new Map<string, number>();
  replace(['describe', 'suite'], (real) => {
    const wrapped = function (this: unknown, ...args: unknown[]) {
      const i = fnIndex(args);
      if (i >= 0) {
        const fn = args[i] as Fn;
        const name = testName(args, fn);
        args[i] = (...inner: unknown[]) => {
          suites.push(name);
          try {
            return fn(...inner);
          } finally {
            suites.pop();
          }
        };
      }
      return real.apply(this, args);
    };
    return wrapped as TestFunction;
  });
  replace(['it', 'test'], (real) => {
    const wrapped = function (this: unknown, ...args: unknown[]) {
      const i = fnIndex(args);
      const module = callerModule();
      if (i >= 0 && module !== undefined) {
        const fn = args[i] as Fn;
        const path = [...suites, testName(args, fn)];
        const key = `${module}\0${path.join('\0')}`;
        const occurrence = seen.get(key) ?? 0;
        seen.set(key, occurrence + 1);
        const name = [module.slice(root.length), ...path].join(' > ');
        args[i] = sameArity(fn, (inner) => {
          const store = { module, job: { path, occurrence }, executes: 0 };
          return context.run(store, () => watched(name, store, fn(...inner)));
        });
      }
      return real.apply(this, args);
    };
    return wrapped as TestFunction;
  });
  setJobLocator({
    threadsForOneSlot: true,
    locate(): JobLocation | undefined {
      const store = context.getStore();
      if (store === undefined) return undefined;
      store.executes += 1;
      if (store.executes > threadedJobsPerTest) return undefined;
      const name = [store.module.slice(root.length), ...store.job.path].join(' > ');
      if (SINGLE_THREAD_TESTS.has(name)) return undefined;
      const entry: TestJob = { ...store.job, ordinal: store.executes };
      return { module: store.module, entry };
    },
    load: () => Promise.reject(new Error('a job locator loads jobs in workers only')),
    attaches: () => true,
  });
  const made: Record<string, string[]> = {};
  fs.mkdtempSync = ((prefix: string, options?: unknown) => {
    const path = realMkdtemp(prefix, options as never) as string;
    const store = context.getStore();
    const key = tempKey(prefix, store === undefined ? 'module' : bodyScope(store.job));
    (made[key] ??= []).push(path);
    process.env[TEMP_DIRS] = JSON.stringify(made);
    return path;
  }) as typeof fs.mkdtempSync;
  syncBuiltinESMExports();
  setEnvironmentDefaults({ environment: { workers } });
  (globalThis as Record<symbol, unknown>)[WORKER_MODE_SUITE] = true;
}

/** A suite's hooks, recorded in the worker as node:test would run them. */
interface RecordedSuite {
  readonly before: Fn[];
  readonly beforeEach: Fn[];
}

function workerThread(): void {
  const scratch = process.env[SCRATCH];
  if (scratch !== undefined) process.env['TMPDIR'] = scratch;
  const made = JSON.parse(process.env[TEMP_DIRS] ?? '{}') as Record<string, string[]>;
  const used = new Map<string, number>();
  /** While the test module loads and its hooks run, 'module'; while a first job's body is replayed, its scope. */
  let scope: string | undefined = 'module';
  fs.mkdtempSync = ((prefix: string, options?: unknown) => {
    const key = scope === undefined ? undefined : tempKey(prefix, scope);
    const n = key === undefined ? 0 : (used.get(key) ?? 0);
    if (key !== undefined) used.set(key, n + 1);
    const path = key === undefined ? undefined : made[key]?.[n];
    if (path === undefined) return realMkdtemp(prefix, options as never) as string;
    fs.mkdirSync(path, { recursive: true });
    return path;
  }) as typeof fs.mkdtempSync;
  // The main thread's body created these directories already: creating one again is no error while replaying it.
  const mainDirs = Object.values(made).flat();
  const realMkdir = fs.mkdirSync;
  fs.mkdirSync = ((path: string, options?: unknown) => {
    try {
      return realMkdir(path, options as never);
    } catch (error) {
      const inMainDirs = mainDirs.some((dir) => String(path) === dir || String(path).startsWith(`${dir}/`));
      if (!inMainDirs || (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return undefined;
    }
  }) as typeof fs.mkdirSync;
  syncBuiltinESMExports();
  let executes = 0;
  let target: TestJob | undefined = undefined;
  setJobLocator({
    threadsForOneSlot: false,
    locate: () => undefined,
    attaches(): boolean {
      executes += 1;
      return executes === target?.ordinal;
    },
    async load(location: JobLocation): Promise<void> {
      target = location.entry as TestJob;
      const job = target;
      const stack: RecordedSuite[] = [{ before: [], beforeEach: [] }];
      const names: string[] = [];
      const seen = new Map<string, number>();
      let found: { fn: Fn; suites: RecordedSuite[] } | undefined = undefined;
      const ignore = (() => {}) as unknown as TestFunction;
      replace(['describe', 'suite'], () => {
        return ((...args: unknown[]) => {
          const i = fnIndex(args);
          if (i < 0) return;
          const fn = args[i] as Fn;
          names.push(testName(args, fn));
          stack.push({ before: [], beforeEach: [] });
          try {
            fn();
          } finally {
            stack.pop();
            names.pop();
          }
        }) as TestFunction;
      });
      replace(['it', 'test'], () => {
        return ((...args: unknown[]) => {
          const i = fnIndex(args);
          if (i < 0) return;
          const fn = args[i] as Fn;
          const path = [...names, testName(args, fn)];
          const key = path.join('\0');
          const occurrence = seen.get(key) ?? 0;
          seen.set(key, occurrence + 1);
          if (occurrence === job.occurrence && key === job.path.join('\0')) {
            found = { fn, suites: [...stack] };
          }
        }) as TestFunction;
      });
      replace(['before'], () => ((fn: Fn) => stack.at(-1)!.before.push(fn)) as TestFunction);
      replace(['beforeEach'], () => ((fn: Fn) => stack.at(-1)!.beforeEach.push(fn)) as TestFunction);
      replace(['after', 'afterEach'], () => ignore);
      await import(location.module);
      const test = found as { fn: Fn; suites: RecordedSuite[] } | undefined;
      if (test === undefined) {
        throw new Error(`no test '${job.path.join(' > ')}' in ${location.module}`);
      }
      const context = testContext(job.path);
      for (const suite of test.suites) for (const hook of suite.before) await call(hook, context);
      for (const suite of test.suites) for (const hook of suite.beforeEach) await call(hook, context);
      // The hooks ran in the module's scope, as on the main thread (outside any test body).
      scope = job.ordinal === 1 ? bodyScope(job) : undefined;
      await call(test.fn, context);
    },
  });
}

/** Calls a test function or hook as node:test does: with a context, and a done callback if it takes one. */
function call(fn: Fn, context: unknown): Promise<unknown> {
  if (fn.length < 2) return Promise.resolve(fn(context));
  return new Promise((resolve, reject) =>
    fn(context, (error: unknown) => (error === undefined ? resolve(undefined) : reject(error))),
  );
}

/** What a test body may use of its context; the worker reports nothing, so reporting calls do nothing. */
function testContext(path: readonly string[]): unknown {
  const nothing = (): void => {};
  return {
    name: path.at(-1),
    fullName: path.join(' > '),
    signal: new AbortController().signal,
    mock: nodeTest['mock'],
    diagnostic: nothing,
    after: nothing,
    afterEach: nothing,
    before: nothing,
    beforeEach: nothing,
    plan: nothing,
    skip: nothing,
    todo: nothing,
  };
}

if (isMainThread) mainThread();
else if (workerSlotData()?.location !== undefined) workerThread();
