// StateTable: one keyed state's entries in the heap backend, indexed namespace → key → value.
import type { NormalizedKey } from '../key-hash.ts';
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import { structuredCloneSerializer } from '../../core/type-serializer.ts';

/**
 * The entries of one namespace as snapshots, key listings and counts read them: a namespace-first table's
 * {@link NamespaceEntries}, or a key-first table's column read as one namespace.
 */
export interface NamespaceView<V> extends Iterable<[NormalizedKey, V]> {
  readonly namespace: unknown;
  readonly size: number;
  keys(): IterableIterator<NormalizedKey>;
}

/**
 * The entries of one namespace, and the namespace object itself (for snapshots), in one of three forms by size. A
 * namespace that holds a single key keeps it in two fields; two to {@link SMALL_ENTRIES} keys lie flat in one array
 * (key, value, key, value, ...); more go in a Map. A session window's pane belongs to one key, and the state windows
 * of a session job that share their window (sessions of different keys opened by bids of one millisecond) hold two
 * to eight keys each: a Map each was most of the job's state (a V8 Map of a few entries costs ~90 bytes empty and
 * keeps the slots of deleted entries until it rehashes, ~300 bytes each as measured; the array costs 8 bytes per
 * entry and a header). Fixed-size windows and plain keyed state hold many keys per namespace and reach the Map form
 * after {@link SMALL_ENTRIES} keys, where it stays.
 *
 * Keys compare with `===`, which is the Map's SameValueZero for normalized keys (never NaN; -0 is 0).
 */
export class NamespaceEntries<V> implements NamespaceView<V> {
  /** The key of the single entry, or undefined (no entry, or the entries are in `list` or `map`). */
  private key: NormalizedKey | undefined = undefined;
  private value: V | undefined = undefined;
  /** Two to SMALL_ENTRIES entries, key then value, in insertion order (exactly as long as it holds). */
  private list: unknown[] | undefined = undefined;
  private map: Map<NormalizedKey, V> | undefined = undefined;
  /** The next namespace of the same lookup key, when the table indexes by a hash (see {@link StateTable}). */
  next: NamespaceEntries<V> | undefined = undefined;

  constructor(readonly namespace: unknown) {}

  get size(): number {
    if (this.map !== undefined) return this.map.size;
    if (this.list !== undefined) return this.list.length >> 1;
    return this.key === undefined ? 0 : 1;
  }

  get(key: NormalizedKey): V | undefined {
    if (this.map !== undefined) return this.map.get(key);
    const list = this.list;
    if (list !== undefined) {
      for (let i = 0; i < list.length; i += 2) if (list[i] === key) return list[i + 1] as V;
      return undefined;
    }
    return key === this.key ? this.value : undefined;
  }

  set(key: NormalizedKey, value: V): this {
    if (this.map !== undefined) this.map.set(key, value);
    else if (this.list !== undefined) this.setInList(this.list, key, value);
    else if (this.key === undefined || this.key === key) {
      this.key = key;
      this.value = value;
    } else {
      this.list = [this.key, this.value, key, value];
      this.key = undefined;
      this.value = undefined;
    }
    return this;
  }

  delete(key: NormalizedKey): boolean {
    if (this.map !== undefined) return this.map.delete(key);
    const list = this.list;
    if (list !== undefined) {
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] !== key) continue;
        if (list.length === 4) {
          // One entry is left: back to the two fields, so a namespace that shrinks holds no array.
          this.key = list[2 - i] as NormalizedKey;
          this.value = list[3 - i] as V;
          this.list = undefined;
        } else list.splice(i, 2);
        return true;
      }
      return false;
    }
    if (key !== this.key) return false;
    this.key = undefined;
    this.value = undefined;
    return true;
  }

  /** The entries, in insertion order (as a Map's). */
  *[Symbol.iterator](): IterableIterator<[NormalizedKey, V]> {
    if (this.map !== undefined) yield* this.map;
    else if (this.list !== undefined) {
      const list = this.list;
      for (let i = 0; i < list.length; i += 2) yield [list[i] as NormalizedKey, list[i + 1] as V];
    } else if (this.key !== undefined) yield [this.key, this.value as V];
  }

  *keys(): IterableIterator<NormalizedKey> {
    for (const [key] of this) yield key;
  }

  private setInList(list: unknown[], key: NormalizedKey, value: V): void {
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === key) {
        list[i + 1] = value;
        return;
      }
    }
    if (list.length < 2 * SMALL_ENTRIES) {
      // concat allocates exactly the new length (a push would grow the array by half plus 16 slots); the pair is
      // passed as one array so that a value that is itself an array stays one element.
      this.list = list.concat([key, value]);
      return;
    }
    const map = new Map<NormalizedKey, V>();
    for (let i = 0; i < list.length; i += 2) map.set(list[i] as NormalizedKey, list[i + 1] as V);
    map.set(key, value);
    this.map = map;
    this.list = undefined;
  }
}

/** The most entries a namespace keeps in its flat array before it takes a Map (a scan of up to 8 keys). */
const SMALL_ENTRIES = 8;

/** The namespace serializer of a table built without one: the lookup key is the namespace itself. */
const itself: NamespaceSerializer<unknown> = {
  key: (namespace) => namespace as string | number,
  serializer: structuredCloneSerializer,
};

/**
 * Entries of one state, by namespace then key. The outer level is small (one entry for plain keyed state, one per
 * live window for window state) and the inner entries are what a record touches, so a lookup costs two Map reads
 * (one when the namespace holds a single key) and the entries of the namespace touched last are cached here, so
 * consecutive records of one window (or of plain keyed state) pay one Map read, not two. Empty namespaces are
 * dropped at once, so a closed window leaves nothing behind.
 *
 * Namespaces are indexed by their lookup key ({@link keyOf}): the namespace serializer's key, or its hash when it
 * declares {@link NamespaceHashing} (session windows: a small integer instead of a `start:end` string per live
 * session). A hash may be shared by two namespaces, so under hashing the entries of one lookup key form a chain
 * (`next`) told apart by `equals`; the namespace object a record passes is compared by identity first, which is
 * the common case (the state window a merging window set hands out is the object the pane was created with).
 */
export class StateTable<V> {
  readonly byNamespace = new Map<string | number, NamespaceEntries<V>>();
  /** The last namespace looked up that exists, and its entries; reset whenever those are dropped. */
  private cachedNsKey: string | number | undefined = undefined;
  private cachedInner: NamespaceEntries<V> | undefined = undefined;
  private readonly hashing: NamespaceHashing<unknown> | undefined;

  constructor(protected readonly namespaceSerializer: NamespaceSerializer<any> = itself) {
    this.hashing = namespaceSerializer.hashing;
  }

  /** The key a namespace is indexed by: its hash under {@link NamespaceHashing}, else the serializer's key. */
  keyOf(namespace: unknown): string | number {
    const hashing = this.hashing;
    return hashing === undefined ? this.namespaceSerializer.key(namespace) : hashing.hash(namespace);
  }

  /**
   * The entries of a namespace, or undefined when it holds nothing. `namespace` tells apart namespaces of one
   * hash; a table without hashing ignores it.
   */
  entriesOf(nsKey: string | number, namespace?: unknown): NamespaceEntries<V> | undefined {
    if (nsKey === this.cachedNsKey && this.same(this.cachedInner!, namespace)) return this.cachedInner;
    let inner = this.byNamespace.get(nsKey);
    while (inner !== undefined && !this.same(inner, namespace)) inner = inner.next;
    if (inner !== undefined) {
      this.cachedNsKey = nsKey;
      this.cachedInner = inner;
    }
    return inner;
  }

  /** The value of (key, namespace), undefined when absent. */
  read(key: NormalizedKey, nsKey: string | number, namespace: unknown): V | undefined {
    const inner = this.entriesOf(nsKey, namespace);
    return inner === undefined ? undefined : inner.get(key);
  }

  /** Stores the value of (key, namespace). */
  write(key: NormalizedKey, nsKey: string | number, namespace: unknown, value: V): void {
    this.entriesForWrite(nsKey, namespace).set(key, value);
  }

  /** The entries of a namespace, created when missing. */
  entriesForWrite(nsKey: string | number, namespace: unknown): NamespaceEntries<V> {
    if (nsKey === this.cachedNsKey && this.same(this.cachedInner!, namespace)) return this.cachedInner!;
    const head = this.byNamespace.get(nsKey);
    let inner = head;
    while (inner !== undefined && !this.same(inner, namespace)) inner = inner.next;
    if (inner === undefined) {
      inner = new NamespaceEntries(namespace);
      inner.next = head;
      this.byNamespace.set(nsKey, inner);
    }
    this.cachedNsKey = nsKey;
    this.cachedInner = inner;
    return inner;
  }

  /** Removes one entry; drops the namespace when it becomes empty (and the cache with it). */
  remove(nsKey: string | number, key: NormalizedKey, namespace?: unknown): void {
    let previous: NamespaceEntries<V> | undefined;
    let inner = this.byNamespace.get(nsKey);
    while (inner !== undefined && !this.same(inner, namespace)) {
      previous = inner;
      inner = inner.next;
    }
    if (inner === undefined) return;
    inner.delete(key);
    if (inner.size === 0) {
      if (previous !== undefined) previous.next = inner.next;
      else if (inner.next !== undefined) this.byNamespace.set(nsKey, inner.next);
      else this.byNamespace.delete(nsKey);
      this.forget();
    }
  }

  /** Every namespace's entries (those sharing a hash included). */
  *namespaces(): IterableIterator<NamespaceView<V>> {
    for (const head of this.byNamespace.values())
      for (let inner: NamespaceEntries<V> | undefined = head; inner !== undefined; inner = inner.next)
        yield inner;
  }

  size(): number {
    let n = 0;
    for (const inner of this.namespaces()) n += inner.size;
    return n;
  }

  clear(): void {
    this.byNamespace.clear();
    this.forget();
  }

  /** Whether `inner` holds `namespace`, found under its lookup key: always, unless namespaces are hashed. */
  private same(inner: NamespaceEntries<V>, namespace: unknown): boolean {
    const hashing = this.hashing;
    if (hashing === undefined) return true;
    // Stryker disable next-line ConditionalExpression: the identity test only spares a call; `equals` answers the same
    return inner.namespace === namespace || hashing.equals(inner.namespace, namespace);
  }

  private forget(): void {
    this.cachedNsKey = undefined;
    this.cachedInner = undefined;
  }
}
