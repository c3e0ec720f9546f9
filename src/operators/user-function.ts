// Helpers to run a user function's life cycle: open with the runtime context, close at the end.
import type { RichFunction, RuntimeContext } from '../core/runtime-context.ts';

export function openFunction(fn: unknown, ctx: RuntimeContext): void | Promise<void> {
  if (fn !== null && typeof fn === 'object' && typeof (fn as RichFunction).open === 'function') {
    return (fn as RichFunction).open!(ctx);
  }
}

export function closeFunction(fn: unknown): void | Promise<void> {
  if (fn !== null && typeof fn === 'object' && typeof (fn as RichFunction).close === 'function') {
    return (fn as RichFunction).close!();
  }
}

/**
 * Gives each subtask its own copy of a function object, as Flink does by deserializing the function per
 * subtask: fields that `open` sets (state handles, counters) are then per subtask. The copy is shallow and keeps
 * the prototype, so methods and class identity stay; initialise mutable per-subtask fields in `open`.
 */
export function instantiateFunction<F>(fn: F): F {
  if (fn === null || typeof fn !== 'object') return fn;
  return Object.assign(Object.create(Object.getPrototypeOf(fn) as object) as object, fn) as F;
}
