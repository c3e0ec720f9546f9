// Engine-side views of keyed state: a state handle whose namespace operators (windows, CEP) set themselves.
import type {
  AggregatingState,
  ListState,
  MapState,
  ReducingState,
  State,
  ValueState,
} from '../core/state.ts';

/** A state handle scoped to (current key, current namespace). Only operators see this; users get plain handles. */
export interface InternalKvState<N> extends State {
  setCurrentNamespace(namespace: N): void;
}

/** A state whose entries in several namespaces can be merged into one (merging windows such as sessions). */
export interface InternalMergingState<N> extends InternalKvState<N> {
  /** Merges the entries of `sources` into `target` for the current key and removes the sources' entries. */
  mergeNamespaces(target: N, sources: readonly N[]): void;
}

export interface InternalValueState<N, T> extends ValueState<T>, InternalKvState<N> {}
/**
 * A mergeable appending state (list, reducing, aggregating) as operators see it: `add` also says whether it
 * created the current entry, which the window operator's fast path needs and every backend knows for free.
 */
export interface InternalAppendingState<N, IN> extends InternalMergingState<N> {
  /** Adds `value` to the current entry; true when this call created the entry, false when it existed. */
  add(value: IN): boolean;
}

export interface InternalListState<N, T> extends ListState<T>, InternalAppendingState<N, T> {
  add(value: T): boolean;
}
export interface InternalMapState<N, UK, UV> extends MapState<UK, UV>, InternalKvState<N> {}
export interface InternalReducingState<N, T> extends ReducingState<T>, InternalAppendingState<N, T> {
  add(value: T): boolean;
}
export interface InternalAggregatingState<N, IN, OUT>
  extends AggregatingState<IN, OUT>, InternalAppendingState<N, IN> {
  add(value: IN): boolean;
  /** The raw accumulator of the current entry (for window functions that need it), or undefined. */
  getAccumulator(): unknown;
}
