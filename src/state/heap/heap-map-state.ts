// MapState in the heap backend: one Map per (key, namespace); with a TTL, every map entry expires on its own.
import type { InternalMapState } from '../internal-state.ts';
import { AbstractHeapState, type TtlValue } from './abstract-heap-state.ts';

/**
 * Without a TTL the stored Map holds user values directly. With one, it holds `{ value, lastAccess }` per user
 * key, so each entry expires separately, as in Flink. The container's own TTL stamp is refreshed whenever an
 * entry's is, so the container never expires before its freshest entry.
 */
export class HeapMapState<N, UK, UV>
  extends AbstractHeapState<N, Map<UK, any>>
  implements InternalMapState<N, UK, UV>
{
  /** The current entry's map, created when absent (reads use `getRaw`, so an absent map stays absent). */
  private mapForWrite(): Map<UK, any> {
    let map = this.getRaw();
    if (map === undefined) {
      map = new Map();
      this.putRaw(map);
    }
    return map;
  }

  private live(map: Map<UK, any>, key: UK, stored: any): UV | undefined {
    if (this.ttlMs === 0) return stored as UV;
    const entry = stored as TtlValue<UV>;
    const now = this.host.now();
    if (now - entry.lastAccess >= this.ttlMs) {
      map.delete(key);
      if (map.size === 0) this.clear();
      return undefined;
    }
    if (this.refreshOnRead) {
      entry.lastAccess = now;
      this.putRaw(map);
    }
    return entry.value;
  }

  get(key: UK): UV | undefined {
    const map = this.getRaw();
    if (map === undefined) return undefined;
    const stored = map.get(key);
    return stored === undefined ? undefined : this.live(map, key, stored);
  }

  put(key: UK, value: UV): void {
    const map = this.mapForWrite();
    if (this.ttlMs === 0) map.set(key, value);
    else {
      map.set(key, { value, lastAccess: this.host.now() });
      this.putRaw(map);
    }
  }

  putAll(entries: Iterable<readonly [UK, UV]>): void {
    for (const [k, v] of entries) this.put(k, v);
  }

  remove(key: UK): void {
    const map = this.getRaw();
    if (map === undefined) return;
    map.delete(key);
    if (map.size === 0) this.clear();
  }

  contains(key: UK): boolean {
    return this.get(key) !== undefined;
  }

  *entries(): IterableIterator<[UK, UV]> {
    for (const [k, v] of this.snapshotLive()) yield [k, v];
  }

  *keys(): IterableIterator<UK> {
    for (const [k] of this.snapshotLive()) yield k;
  }

  *values(): IterableIterator<UV> {
    for (const [, v] of this.snapshotLive()) yield v;
  }

  isEmpty(): boolean {
    return this.size() === 0;
  }

  size(): number {
    return this.snapshotLive().length;
  }

  /** The live entries, copied so callers may modify the map while iterating (as Flink's iterators allow). */
  private snapshotLive(): [UK, UV][] {
    const map = this.getRaw();
    if (map === undefined) return [];
    const out: [UK, UV][] = [];
    for (const [k, stored] of [...map]) {
      const v = this.live(map, k, stored);
      if (v !== undefined) out.push([k, v]);
    }
    return out;
  }
}
