// HeapBroadcastState: one subtask's copy of a broadcast state, a Map with a read-only view.
import type { BroadcastState, ReadOnlyBroadcastState } from '../core/broadcast-state.ts';

/** One broadcast state of one subtask: a Map, with a read-only view handed to the non-broadcast side. */
export class HeapBroadcastState<K, V> implements BroadcastState<K, V> {
  /** The same entries without any mutator, so even an untyped caller cannot write through it. */
  readonly readOnly: ReadOnlyBroadcastState<K, V>;

  constructor(readonly map: Map<K, V> = new Map()) {
    const self = this;
    this.readOnly = Object.freeze({
      get: (key: K) => self.map.get(key),
      contains: (key: K) => self.map.has(key),
      immutableEntries: () => self.map.entries(),
      size: () => self.map.size,
    });
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }
  contains(key: K): boolean {
    return this.map.has(key);
  }
  immutableEntries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }
  size(): number {
    return this.map.size;
  }
  put(key: K, value: V): void {
    this.map.set(key, value);
  }
  putAll(entries: Iterable<readonly [K, V]>): void {
    for (const [k, v] of entries) this.map.set(k, v);
  }
  remove(key: K): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }
  keys(): IterableIterator<K> {
    return this.map.keys();
  }
  values(): IterableIterator<V> {
    return this.map.values();
  }
}
