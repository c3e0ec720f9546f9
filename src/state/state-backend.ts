// StateBackend: the choice of where keyed state lives, made once per environment (Flink's StateBackend).
import { HeapKeyedStateBackend } from './heap/heap-keyed-state-backend.ts';
import type { KeyGroupRange } from './key-group-range.ts';
import type { KeyedStateBackend } from './keyed-state-backend.ts';

/** Where a keyed operator subtask runs; what a backend needs to create its state. @internal */
export interface KeyedBackendContext {
  readonly operatorName: string;
  readonly uid: string;
  readonly subtaskIndex: number;
  readonly maxParallelism: number;
  readonly keyGroupRange: KeyGroupRange;
  /** Processing time, for state TTL. */
  readonly clock: () => number;
}

/**
 * Creates the keyed state backend of each keyed operator subtask.
 *
 * @example
 * env.setStateBackend(StateBackends.heap());
 * env.setStateBackend(new LmdbStateBackend({ path: '/var/tmp/weir-state' }));
 */
export interface StateBackend {
  readonly name: string;
  /** @internal The runtime calls it once per keyed operator subtask. */
  createKeyedStateBackend(context: KeyedBackendContext): KeyedStateBackend;
  /** @internal Called before each attempt of a job (a restart gets fresh working storage). */
  newRun?(): void;
}

/** Keeps state as live objects on the heap (the default; fastest while state fits in memory). */
export class HeapStateBackend implements StateBackend {
  readonly name = 'heap';
  /** @internal */
  createKeyedStateBackend(context: KeyedBackendContext): KeyedStateBackend {
    return new HeapKeyedStateBackend(
      context.maxParallelism,
      context.keyGroupRange,
      context.clock,
      context.operatorName,
    );
  }
}

/**
 * The built-in backends.
 *
 * @example
 * env.setStateBackend(StateBackends.heap());
 */
export const StateBackends = {
  heap(): StateBackend {
    return new HeapStateBackend();
  },
};
