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
  /** @internal Stores that outlive the process (an on-disk backend): cluster mode keeps each task's there. */
  readonly localStores?: LocalStores;
}

/**
 * A keyed state backend kept on disk between runs of a process. @internal
 */
export interface KeptKeyedStateBackend extends KeyedStateBackend {
  /** Removes every entry of these key groups (replaced whole by a newer value, or dropped by a tombstone). */
  removeKeyGroups(groups: Iterable<number>): void;
  /** Whether restored entries wait for their state to be registered, so the disk does not hold them yet. */
  readonly restorePending: boolean;
}

/** Where a backend keeps stores that outlive the process. @internal */
export interface LocalStores {
  /** The directory every kept store lives under. */
  readonly root: string;
  /**
   * Opens the store in `directory` as it was left (emptied first with `fresh`). `beforeWrite` is called before
   * each write to the disk (not to a cache in memory).
   */
  open(
    context: KeyedBackendContext,
    directory: string,
    options: { readonly fresh: boolean; readonly beforeWrite: () => void },
  ): KeptKeyedStateBackend;
  /** Opens a map of bytes kept in `directory` beside the stores (emptied first with `fresh`). */
  openBytes(
    directory: string,
    options: { readonly fresh: boolean; readonly beforeWrite: () => void },
  ): KeptBytes;
}

/** Bytes by name, kept on disk between runs of a process. @internal */
export interface KeptBytes {
  entries(): Iterable<readonly [string, Uint8Array]>;
  /** Sets a value, or removes it (`null`). */
  put(key: string, value: Uint8Array | null): void;
  close(): void;
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
