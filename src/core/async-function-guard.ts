// Refuses user functions that return Promises where Weir calls them synchronously, pointing to the async operators.
import { ConfigurationError, IllegalStateError } from './errors.ts';

/**
 * What to use instead of an async user function: Weir calls map, process, window and sink functions synchronously
 * and uses what they return at once, so anything an async function emits or writes after its first `await` would
 * be lost, and a map would pass the Promise itself downstream.
 */
const ADVICE =
  'Weir calls this function synchronously, so whatever it emits after its first await would be lost. ' +
  'Call asynchronous code through AsyncDataStream.orderedWait(stream, fn, timeoutMs, capacity) or unorderedWait ' +
  '(see docs/datastream-api.md, "Async I/O"), or write to an asynchronous client with AsyncSink';

/** Methods that may be async: the runtime awaits them (open, close) or they are not called per record. */
const MAY_BE_ASYNC = new Set(['open', 'close', 'constructor']);

/** Whether `fn` is an `async function`, an async arrow or an async method (their results are always Promises). */
export function isAsyncFunction(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  const tag = (fn as { [Symbol.toStringTag]?: string })[Symbol.toStringTag];
  return tag === 'AsyncFunction' || tag === 'AsyncGeneratorFunction';
}

/**
 * Fails when a job is defined with an async user function: `fn` itself or, for a function object, the `methods`
 * Weir calls per record (by default every method but `open` and `close`, own or inherited). `api` names the call,
 * e.g. `map()`; `operator` the operator it builds.
 *
 * @throws ConfigurationError naming the operator, the call and the method, and pointing to AsyncDataStream.
 */
export function rejectAsyncFunction(
  fn: unknown,
  api: string,
  operator: string,
  methods?: readonly string[],
): void {
  if (isAsyncFunction(fn)) {
    throw new ConfigurationError(`Operator '${operator}': ${api} was given an async function. ${ADVICE}`);
  }
  if (fn === null || typeof fn !== 'object') return;
  for (const name of methods ?? methodNames(fn)) {
    if (isAsyncFunction((fn as Record<string, unknown>)[name])) {
      throw new ConfigurationError(
        `Operator '${operator}': ${api} was given a function whose ${name}() is async. ${ADVICE}`,
      );
    }
  }
}

/** The names of an object's methods, own and inherited, but those the runtime may await. */
function methodNames(fn: object): string[] {
  const names: string[] = [];
  for (
    let o: object | null = fn;
    o !== null && o !== Object.prototype;
    o = Object.getPrototypeOf(o) as object
  ) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (!MAY_BE_ASYNC.has(name) && typeof Object.getOwnPropertyDescriptor(o, name)?.value === 'function')
        names.push(name);
    }
  }
  return names;
}

/**
 * Fails a record whose user function returned a Promise (a function not declared `async` that returns one, e.g.
 * `(x) => fetch(x)`). The error is thrown inside the record call, so the job's error names the operator and the
 * record. The Promise's own outcome is dropped: the job fails with this error instead.
 *
 * @throws IllegalStateError naming the method and pointing to AsyncDataStream.
 */
export function rejectPromiseResult(result: unknown, method: string): void {
  if (result instanceof Promise) {
    result.catch(() => {});
    throw new IllegalStateError(`${method} returned a Promise. ${ADVICE}`);
  }
}

/** `value`, unless it is a Promise: then fails as {@link rejectPromiseResult} does (for functions that return values). */
export function notPromise<T>(value: T, method: string): T {
  rejectPromiseResult(value, method);
  return value;
}
