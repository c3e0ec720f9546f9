// Job locators: how worker threads find a job that is not built at the top level of the process's main module.
/**
 * Where the workers of a job find the code that builds it: the module they import, and what the locator needs to
 * reach the job inside it (structured-clonable; it travels to the workers with their slot).
 */
export interface JobLocation {
  readonly module: string;
  readonly entry: unknown;
}

/**
 * By default every worker imports the job's module and its top-level `execute()` attaches to the worker's slots.
 * A runner that builds jobs inside functions (a test runner running a test body) registers a locator instead: on
 * the main thread it tells which job an `execute()` starts; in a worker it loads that module and runs the same
 * code again up to the same `execute()`, which then attaches (the `execute()` calls before it run on the worker's
 * own thread, so that the code between them sees the results it expects).
 */
export interface JobLocator {
  /**
   * Main thread, at every `execute()`: where the workers find this job; undefined keeps the job on the calling
   * thread (the locator cannot reach it from a worker).
   */
  locate(): JobLocation | undefined;
  /** Worker: loads the located job's module and runs its code up to the located `execute()`. */
  load(location: JobLocation): Promise<void>;
  /** Worker, at every `execute()`: whether this is the located job (true) or one before it (false). */
  attaches(): boolean;
  /**
   * Whether a job whose widest operator has one subtask still runs on one worker thread (the main thread then only
   * coordinates), instead of on the calling thread: lets a suite run every job across threads.
   */
  readonly threadsForOneSlot: boolean;
}

// On globalThis under a registered symbol: a runner's preload and the job may import Weir through different paths.
const KEY = Symbol.for('weir.jobLocator');

/** Registers the locator of this thread (each worker thread registers its own: its globalThis is its own). */
export function setJobLocator(locator: JobLocator | undefined): void {
  (globalThis as Record<symbol, unknown>)[KEY] = locator;
}

/** The locator of this thread, if a runner registered one. */
export function jobLocator(): JobLocator | undefined {
  return (globalThis as Record<symbol, unknown>)[KEY] as JobLocator | undefined;
}
