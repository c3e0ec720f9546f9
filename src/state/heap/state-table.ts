// StateTable: one keyed state's entries in the heap backend, indexed namespace → key → value.
import type { NormalizedKey } from '../key-hash.ts';

/**
 * Entries of one state, by namespace then key. The outer level is small (one entry for plain keyed state, one per
 * live window for window state) and the inner Map is what a record touches, so a lookup costs two Map reads and
 * the inner Map of the namespace touched last is cached here, so consecutive records of one window (or of plain
 * keyed state) pay one Map read, not two. Empty inner Maps are dropped at once, so a closed window leaves nothing
 * behind.
 */
export class StateTable<V> {
  readonly byNamespace = new Map<string | number, Map<NormalizedKey, V>>();
  /** The namespace object of each namespace key, for snapshots. */
  readonly namespaces = new Map<string | number, unknown>();
  /** The last namespace looked up that exists, and its inner Map; reset whenever that Map is dropped. */
  private cachedNsKey: string | number | undefined = undefined;
  private cachedInner: Map<NormalizedKey, V> | undefined = undefined;

  /** The inner Map of a namespace, or undefined when it holds nothing. */
  entriesOf(nsKey: string | number): Map<NormalizedKey, V> | undefined {
    if (nsKey === this.cachedNsKey) return this.cachedInner;
    const inner = this.byNamespace.get(nsKey);
    if (inner !== undefined) {
      this.cachedNsKey = nsKey;
      this.cachedInner = inner;
    }
    return inner;
  }

  /** The inner Map of a namespace, created when missing. */
  entriesForWrite(nsKey: string | number, namespace: unknown): Map<NormalizedKey, V> {
    if (nsKey === this.cachedNsKey) return this.cachedInner!;
    let inner = this.byNamespace.get(nsKey);
    if (inner === undefined) {
      inner = new Map();
      this.byNamespace.set(nsKey, inner);
      this.namespaces.set(nsKey, namespace);
    }
    this.cachedNsKey = nsKey;
    this.cachedInner = inner;
    return inner;
  }

  /** Removes one entry; drops the namespace when it becomes empty (and the cache with it). */
  remove(nsKey: string | number, key: NormalizedKey): void {
    const inner = nsKey === this.cachedNsKey ? this.cachedInner : this.byNamespace.get(nsKey);
    if (inner === undefined) return;
    inner.delete(key);
    if (inner.size === 0) {
      this.byNamespace.delete(nsKey);
      this.namespaces.delete(nsKey);
      this.forget();
    }
  }

  size(): number {
    let n = 0;
    for (const inner of this.byNamespace.values()) n += inner.size;
    return n;
  }

  clear(): void {
    this.byNamespace.clear();
    this.namespaces.clear();
    this.forget();
  }

  private forget(): void {
    this.cachedNsKey = undefined;
    this.cachedInner = undefined;
  }
}
