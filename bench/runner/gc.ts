// Forcing a full garbage collection without requiring `node --expose-gc` on the command line (npm scripts
// start the runner without it): V8 accepts the flag at run time and exposes gc() to new contexts.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let cached: (() => void) | undefined;

/** A function that runs a full, synchronous GC. */
export function fullGc(): () => void {
  if (cached !== undefined) return cached;
  const global = globalThis as { gc?: () => void };
  if (typeof global.gc === 'function') {
    cached = global.gc;
  } else {
    setFlagsFromString('--expose-gc');
    cached = runInNewContext('gc') as () => void;
  }
  return cached;
}

/**
 * Memory held after two full GCs (the second collects what the first's finalisation freed): the JavaScript heap
 * plus the backing stores of array buffers, which live outside it. State kept in typed arrays (an `Int32Array`
 * index of a key's rows, a window's pane table) costs its bytes there, and `heapUsed` alone would leave them out.
 */
export function memoryUsedAfterGc(): number {
  const gc = fullGc();
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
