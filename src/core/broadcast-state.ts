// Broadcast state contracts: a map every parallel subtask holds a copy of, written only from the broadcast input.

/**
 * The view of a broadcast state that the non-broadcast side sees (Flink's `ReadOnlyBroadcastState`): reading only,
 * because a write there would make the subtasks' copies differ.
 */
export interface ReadOnlyBroadcastState<K, V> {
  get(key: K): V | undefined;
  contains(key: K): boolean;
  /** The entries, in insertion order. */
  immutableEntries(): IterableIterator<[K, V]>;
  size(): number;
}

/**
 * The view the broadcast side sees (Flink's `BroadcastState`). Every subtask receives every broadcast element in
 * the same order, so updating the state only from those elements keeps all copies equal.
 */
export interface BroadcastState<K, V> extends ReadOnlyBroadcastState<K, V> {
  put(key: K, value: V): void;
  putAll(entries: Iterable<readonly [K, V]>): void;
  remove(key: K): void;
  clear(): void;
  entries(): IterableIterator<[K, V]>;
  keys(): IterableIterator<K>;
  values(): IterableIterator<V>;
}
