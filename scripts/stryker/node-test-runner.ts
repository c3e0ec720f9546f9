// A StrykerJS test runner that runs node:test files in its own process and re-runs them there for every mutant.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  INSTRUMENTER_CONSTANTS,
  type InstrumenterContext,
  type StrykerOptions,
} from '@stryker-mutator/api/core';
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import {
  DryRunStatus,
  MutantRunStatus,
  TestStatus,
  type DryRunOptions,
  type DryRunResult,
  type MutantRunOptions,
  type MutantRunResult,
  type TestResult,
  type TestRunner,
  type TestRunnerCapabilities,
} from '@stryker-mutator/api/test-runner';
import { glob } from 'glob';

/**
 * Why not Stryker's tap runner: it starts one node process per test file per mutant, and on a shared 2-core machine
 * that start-up (tsx, then importing the engine) is most of the cost of a mutant. This runner imports the test
 * files once per worker and keeps their tests as functions: a mutant run switches the active mutant (Stryker's
 * mutation switching reads it at run time) and calls the tests that cover it. Only the four `node:test` functions
 * the suite uses are provided (`describe`, `it`, `before`, `after`, `beforeEach`, `afterEach`), by replacing the
 * builtin's exports in the worker; `after` hooks run when the worker is disposed, since the tests are called again
 * for the next mutant. `beforeEach` and `afterEach` run around every call of a test, outer suites' first (file
 * level ones apply to the file's tests).
 * Mutants that run while modules load (static mutants) get a fresh worker from Stryker, as for any runner that
 * cannot reload its environment.
 */

type Body = () => unknown;

interface Suite {
  readonly name: string;
  readonly parent: Suite | undefined;
  readonly before: Body[];
  readonly beforeEach: Body[];
  readonly afterEach: Body[];
  beforeRan: boolean;
}

interface TestCase {
  readonly id: string;
  readonly file: string;
  readonly suite: Suite | undefined;
  /** The file's top-level `beforeEach` and `afterEach` hooks. */
  readonly root: Suite;
  readonly body: Body;
}

const HIT_LIMIT_MESSAGE = 'Stryker: Hit count limit reached';

/**
 * Each test file's run time in the dry run, written where every worker of the run finds it (the sandbox is the
 * workers' working directory): a worker started after a timeout does no dry run of its own.
 */
const FILE_TIMES = '.node-test-runner-file-times.json';

class NodeTestRunner implements TestRunner {
  static inject = tokens(commonTokens.options);

  private readonly testFiles: string[];
  private readonly tests: TestCase[] = [];
  private readonly afterHooks: Body[] = [];
  private loaded = false;
  private asyncFailure: unknown = undefined;

  constructor(options: StrykerOptions) {
    const config = (options as { nodeTest?: { testFiles?: string[] } }).nodeTest;
    this.testFiles = config?.testFiles ?? [];
  }

  capabilities(): TestRunnerCapabilities {
    return { reloadEnvironment: false };
  }

  async init(): Promise<void> {
    // An error thrown by a mutant outside any awaited promise fails the running test instead of the worker.
    process.on('uncaughtException', (error) => (this.asyncFailure ??= error));
    process.on('unhandledRejection', (error) => (this.asyncFailure ??= error));
  }

  async dryRun(options: DryRunOptions): Promise<DryRunResult> {
    const ns = namespace();
    try {
      await this.load();
    } catch (error) {
      return {
        status: DryRunStatus.Error,
        errorMessage: `loading the test files failed: ${describe(error)}`,
      };
    }
    const results: TestResult[] = [];
    const fileTimes: Record<string, number> = {};
    for (const test of this.tests) {
      if (options.coverageAnalysis === 'perTest') ns[INSTRUMENTER_CONSTANTS.CURRENT_TEST_ID] = test.id;
      const started = performance.now();
      const failure = await this.run(test);
      const base = {
        id: test.id,
        name: test.id,
        fileName: test.file,
        timeSpentMs: performance.now() - started,
      };
      fileTimes[test.file] = (fileTimes[test.file] ?? 0) + base.timeSpentMs;
      results.push(
        failure === undefined
          ? { ...base, status: TestStatus.Success }
          : { ...base, status: TestStatus.Failed, failureMessage: describe(failure) },
      );
    }
    writeFileSync(FILE_TIMES, JSON.stringify(fileTimes));
    this.orderByFileTime(fileTimes);
    return { status: DryRunStatus.Complete, tests: results, mutantCoverage: ns.mutantCoverage };
  }

  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    const ns = namespace();
    ns[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT] = options.activeMutant.id;
    if (options.hitLimit !== undefined) {
      ns.hitCount = 0;
      ns.hitLimit = options.hitLimit;
    } else {
      delete ns.hitCount;
      delete ns.hitLimit;
    }
    try {
      // A fresh worker (static mutants) loads the modules with the mutant already active.
      await this.load();
    } catch (error) {
      return this.failed(error, ['loading the test files'], 0);
    }
    const filter = options.testFilter === undefined ? undefined : new Set(options.testFilter);
    const killers: string[] = [];
    let firstFailure: unknown = undefined;
    let ran = 0;
    for (const test of this.tests) {
      if (filter !== undefined && !filter.has(test.id)) continue;
      ran++;
      const failure = await this.run(test);
      if (failure === undefined) continue;
      if (isHitLimit(failure)) return { status: MutantRunStatus.Timeout, reason: describe(failure) };
      killers.push(test.id);
      firstFailure ??= failure;
      if (!options.disableBail) break;
    }
    ns[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT] = undefined;
    if (killers.length > 0) return this.failed(firstFailure, killers, ran);
    return { status: MutantRunStatus.Survived, nrOfTests: ran };
  }

  /**
   * Puts the files whose tests are quickest on average first (each file's tests stay in their order): a mutant that
   * makes a job hang is then killed by a unit test in milliseconds, before a job-level test runs into the timeout.
   */
  private orderByFileTime(fileTimes: Record<string, number>): void {
    const counts = new Map<string, number>();
    for (const t of this.tests) counts.set(t.file, (counts.get(t.file) ?? 0) + 1);
    const mean = (file: string) => (fileTimes[file] ?? Infinity) / counts.get(file)!;
    const rank = new Map(this.tests.map((t, i) => [t, i]));
    this.tests.sort((a, b) => mean(a.file) - mean(b.file) || rank.get(a)! - rank.get(b)!);
  }

  async dispose(): Promise<void> {
    namespace()[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT] = undefined;
    for (const hook of this.afterHooks.reverse()) await hook();
  }

  private failed(failure: unknown, killedBy: string[], nrOfTests: number): MutantRunResult {
    if (isHitLimit(failure)) return { status: MutantRunStatus.Timeout, reason: describe(failure) };
    return { status: MutantRunStatus.Killed, killedBy, failureMessage: describe(failure), nrOfTests };
  }

  /** Runs one test with its suites' `before` hooks (once per worker); returns its failure or undefined. */
  private async run(test: TestCase): Promise<unknown> {
    this.asyncFailure = undefined;
    try {
      const chain: Suite[] = [];
      for (let s = test.suite; s !== undefined; s = s.parent) chain.unshift(s);
      for (const suite of chain) {
        if (suite.beforeRan) continue;
        suite.beforeRan = true;
        for (const hook of suite.before) await hook();
      }
      chain.unshift(test.root);
      for (const suite of chain) for (const hook of suite.beforeEach) await hook();
      try {
        await test.body();
      } finally {
        for (const suite of chain.reverse()) for (const hook of suite.afterEach) await hook();
      }
    } catch (error) {
      return error;
    }
    // Let work the test started but did not await report an error it throws.
    await new Promise<void>((done) => setImmediate(done));
    return this.asyncFailure;
  }

  /** Imports every test file once, collecting its tests through the replaced `node:test` functions. */
  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    // Patterns starting with `!` exclude files.
    const include = this.testFiles.filter((p) => !p.startsWith('!'));
    const ignore = [
      '**/node_modules/**',
      ...this.testFiles.filter((p) => p.startsWith('!')).map((p) => p.slice(1)),
    ];
    const files = (await glob(include, { ignore, absolute: true })).sort();
    const nodeTest = createRequire(import.meta.url)('node:test') as Record<string, unknown>;
    let file = '';
    let current: Suite | undefined = undefined;
    const newSuite = (name: string, parent: Suite | undefined): Suite => ({
      name,
      parent,
      before: [],
      beforeEach: [],
      afterEach: [],
      beforeRan: false,
    });
    let root = newSuite('', undefined);
    const pending: Promise<unknown>[] = [];
    const body = (args: unknown[]): Body => args.find((a) => typeof a === 'function') as Body;
    const path = (suite: Suite | undefined): string[] =>
      suite === undefined ? [] : [...path(suite.parent), suite.name];
    nodeTest.describe = (name: string, ...args: unknown[]) => {
      const suite = newSuite(name, current);
      current = suite;
      try {
        const result = body(args)();
        if (result instanceof Promise) pending.push(result);
      } finally {
        current = suite.parent;
      }
    };
    nodeTest.it = nodeTest.test = (name: string, ...args: unknown[]) => {
      const id = [relative(process.cwd(), file), ...path(current), name].join(' > ');
      this.tests.push({ id, file, suite: current, root, body: body(args) });
    };
    nodeTest.before = (hook: Body) => {
      if (current === undefined) pending.push(Promise.resolve(hook()));
      else current.before.push(hook);
    };
    nodeTest.after = (hook: Body) => void this.afterHooks.push(hook);
    nodeTest.beforeEach = (hook: Body) => void (current ?? root).beforeEach.push(hook);
    nodeTest.afterEach = (hook: Body) => void (current ?? root).afterEach.push(hook);
    syncBuiltinESMExports();
    for (file of files) {
      root = newSuite('', undefined);
      await import(pathToFileURL(resolve(file)).href);
      await Promise.all(pending.splice(0));
    }
    if (existsSync(FILE_TIMES))
      this.orderByFileTime(JSON.parse(readFileSync(FILE_TIMES, 'utf8')) as Record<string, number>);
  }
}

function namespace(): InstrumenterContext & Record<string, unknown> {
  const global = globalThis as unknown as Record<string, InstrumenterContext & Record<string, unknown>>;
  return (global[INSTRUMENTER_CONSTANTS.NAMESPACE] ??= {});
}

function isHitLimit(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith(HIT_LIMIT_MESSAGE);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The options this runner reads: `nodeTest.testFiles`, globs of the test files to import (`!` excludes). */
export const strykerValidationSchema = {
  $schema: 'http://json-schema.org/draft-07/schema',
  type: 'object',
  properties: {
    nodeTest: {
      type: 'object',
      additionalProperties: false,
      properties: { testFiles: { type: 'array', items: { type: 'string' } } },
    },
  },
};

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, 'node-test', NodeTestRunner)];
