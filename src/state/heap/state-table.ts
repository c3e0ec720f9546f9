// StateTable: one keyed state's entries in the heap backend, indexed namespace → key → value.
import type { NormalizedKey } from '../key-hash.ts';

/**
 * The entries of one namespace, and the namespace object itself (for snapshots). A namespace that holds a single
 * key keeps it in two fields and has no Map: a session window's pane belongs to one key, so the contents state of
 * a session job holds one namespace per live session, and a Map each (~90 bytes, plus an entry in a Map of
 * namespace objects) was most of its memory. The Map comes with the second key and stays (plain keyed state and
 * fixed-size windows hold many keys per namespace).
 *
 * Keys compare with `===`, which is the Map's SameValueZero for normalized keys (never NaN; -0 is 0).
 */
export class NamespaceEntries<V> {
  /** The key of the single entry, or undefined (no entry, or the entries are in `map`). */
  private key: NormalizedKey | undefined = undefined;
  private value: V | undefined = undefined;
  private map: Map<NormalizedKey, V> | undefined = undefined;

  constructor(readonly namespace: unknown) {}

  get size(): number {
    if (this.map !== undefined) return this.map.size;
    return this.key === undefined ? 0 : 1;
  }

  get(key: NormalizedKey): V | undefined {
    if (this.map !== undefined) return this.map.get(key);
    return key === this.key ? this.value : undefined;
  }

  set(key: NormalizedKey, value: V): this {
    if (this.map !== undefined) this.map.set(key, value);
    else if (this.key === undefined || this.key === key) {
      this.key = key;
      this.value = value;
    } else {
      this.map = new Map([
        [this.key, this.value as V],
        [key, value],
      ]);
      this.key = undefined;
      this.value = undefined;
    }
    return this;
  }

  delete(key: NormalizedKey): boolean {
    if (this.map !== undefined) return this.map.delete(key);
    if (key !== this.key) return false;
    this.key = undefined;
    this.value = undefined;
    return true;
  }

  /** The entries, in insertion order (as a Map's). */
  *[Symbol.iterator](): IterableIterator<[NormalizedKey, V]> {
    if (this.map !== undefined) yield* this.map;
    else if (this.key !== undefined) yield [this.key, this.value as V];
  }

  *keys(): IterableIterator<NormalizedKey> {
    for (const [key] of this) yield key;
  }
}

/**
 * Entries of one state, by namespace then key. The outer level is small (one entry for plain keyed state, one per
 * live window for window state) and the inner entries are what a record touches, so a lookup costs two Map reads
 * (one when the namespace holds a single key) and the entries of the namespace touched last are cached here, so
 * consecutive records of one window (or of plain keyed state) pay one Map read, not two. Empty namespaces are
 * dropped at once, so a closed window leaves nothing behind.
 */
export class StateTable<V> {
  readonly byNamespace = new Map<string | number, NamespaceEntries<V>>();
  /** The last namespace looked up that exists, and its entries; reset whenever those are dropped. */
  private cachedNsKey: string | number | undefined = undefined;
  private cachedInner: NamespaceEntries<V> | undefined = undefined;

  /** The entries of a namespace, or undefined when it holds nothing. */
  entriesOf(nsKey: string | number): NamespaceEntries<V> | undefined {
    if (nsKey === this.cachedNsKey) return this.cachedInner;
    const inner = this.byNamespace.get(nsKey);
    if (inner !== undefined) {
      this.cachedNsKey = nsKey;
      this.cachedInner = inner;
    }
    return inner;
  }

  /** The entries of a namespace, created when missing. */
  entriesForWrite(nsKey: string | number, namespace: unknown): NamespaceEntries<V> {
    if (nsKey === this.cachedNsKey) return this.cachedInner!;
    let inner = this.byNamespace.get(nsKey);
    if (inner === undefined) {
      inner = new NamespaceEntries(namespace);
      this.byNamespace.set(nsKey, inner);
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
    this.forget();
  }

  private forget(): void {
    this.cachedNsKey = undefined;
    this.cachedInner = undefined;
  }
}
