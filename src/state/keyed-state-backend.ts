// The contract of a keyed state backend: where keyed state and timers live, partitioned by key group.
import type {
  InternalAggregatingState,
  InternalListState,
  InternalMapState,
  InternalReducingState,
  InternalValueState,
} from './internal-state.ts';
import { IllegalStateError } from '../core/errors.ts';
import type { NamespaceSerializer } from './namespace.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateDescriptor,
  ValueStateDescriptor,
} from '../core/state-descriptor.ts';
import type { KeyGroupRange } from './key-group-range.ts';
import type { NormalizedKey } from './key-hash.ts';

/** The state handle type a descriptor produces, in a given namespace type. */
export type InternalStateFor<D, N> =
  D extends ValueStateDescriptor<infer T, any>
    ? InternalValueState<N, T>
    : D extends ListStateDescriptor<infer T>
      ? InternalListState<N, T>
      : D extends MapStateDescriptor<infer UK, infer UV>
        ? InternalMapState<N, UK, UV>
        : D extends ReducingStateDescriptor<infer T>
          ? InternalReducingState<N, T>
          : D extends AggregatingStateDescriptor<infer IN, any, infer OUT>
            ? InternalAggregatingState<N, IN, OUT>
            : never;

/** One key group's state and timers as bytes; what snapshots hold and what restores redistribute. */
export interface KeyGroupSnapshot {
  readonly keyGroup: number;
  readonly bytes: Uint8Array;
}

/**
 * Holds the keyed state of one operator subtask. The runtime sets the current key before every record and timer;
 * every handle reads and writes that key's entry. Implementations: the heap backend (live objects in Maps) and,
 * later, durable ones; all pass the same contract tests.
 */
export interface KeyedStateBackend {
  readonly maxParallelism: number;
  readonly keyGroupRange: KeyGroupRange;

  /** Sets the key every state handle now reads and writes. */
  setCurrentKey(key: unknown): void;
  /** Sets the current key from its normalised form (timers keep keys normalised, see key-hash.ts). */
  setCurrentNormalizedKey(normalized: NormalizedKey, key: unknown): void;
  getCurrentKey(): unknown;
  /**
   * Leaves the backend without a current key until the next `setCurrentKey`: state handles then fail instead of
   * reading the key set last (the broadcast side of a keyed broadcast operator has no key, as in Flink).
   */
  clearCurrentKey(): void;
  /** The normalised current key; throws an IllegalStateError after `clearCurrentKey`. */
  currentNormalizedKey(): NormalizedKey;
  /** The key group of the current key. */
  getCurrentKeyGroup(): number;

  /**
   * Returns the handle for a descriptor in the given namespace type, creating the state on first use. Asking twice
   * with one name returns the same state; asking with one name but another kind is an error.
   */
  getOrCreateKeyedState<D extends StateDescriptor<any, any>, N>(
    descriptor: D,
    namespaceSerializer: NamespaceSerializer<N>,
  ): InternalStateFor<D, N>;

  /**
   * The number of (state, key, namespace) entries held, of every state or of the named one: what tests use to prove
   * state is cleaned up, and what per-operator gauges (window panes) report.
   */
  numStateEntries(stateName?: string): number;

  /** Every key that has an entry in the named state (in any namespace). */
  getKeys(stateName: string): Iterable<unknown>;

  /** Serializes the state of every key group in this backend's range that holds any. */
  snapshot(): KeyGroupSnapshot[];

  /** Loads key groups (from any earlier parallelism); groups outside this backend's range are ignored. */
  restore(snapshots: Iterable<KeyGroupSnapshot>): void;

  dispose(): void;
}

/** The error of a state access without a current key (Flink: "No key set"), naming the operator. */
export function noCurrentKey(operatorName: string | undefined): IllegalStateError {
  return new IllegalStateError(
    `Operator '${operatorName ?? 'operator'}': no key set. Keyed state can only be read and written where there is a current key; on the broadcast side of a keyed broadcast function use ctx.applyToKeyedState(...)`,
  );
}
