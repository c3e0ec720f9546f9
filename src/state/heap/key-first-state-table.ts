// KeyFirstStateTable: one keyed state's entries indexed key → namespace, for namespaces a key holds few of at once.
import type { NormalizedKey } from '../key-hash.ts';
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import { StateTable, type NamespaceEntries } from './state-table.ts';

/**
 * The entries of one key: its first (namespace, value) in two fields, any further ones flat in `more` (namespace,
 * value, ...; exactly as long as it holds). A key with no entry has no KeyEntries: the table drops it at once.
 */
class KeyEntries<V> {
  more: unknown[] | undefined = undefined;
  constructor(
    public namespace: unknown,
    public value: V,
  ) {}
}

/**
 * A state table indexed by key first, then by namespace, for namespaces that a key holds only a few of at a time
 * and that few keys share: session windows, whose state window belongs to one key (the pane of a session job is
 * found from one lookup of the key, where the namespace-first table found the namespace, then compared the
 * window object of whichever key created its entries, then scanned its keys: three more cold objects per read).
 * The key's namespaces are told apart by identity first, which is the common case (the state window a merging
 * window set hands out is the object the pane was written with), then by the hashing's `equals`.
 *
 * The key read last is cached: a record reads, then writes its pane, and a timer reads, then clears it, so the
 * second access costs no lookup. Snapshots see the entries grouped by namespace ({@link namespaces}), as the
 * namespace-first table holds them, so the snapshot form is the same.
 */
export class KeyFirstStateTable<V> extends StateTable<V> {
  private readonly byKey = new Map<NormalizedKey, KeyEntries<V>>();
  private lastKey: NormalizedKey | undefined = undefined;
  private lastEntries: KeyEntries<V> | undefined = undefined;
  private readonly equalNamespaces: NamespaceHashing<unknown>['equals'];

  constructor(namespaceSerializer: NamespaceSerializer<any> & { hashing: NamespaceHashing<any> }) {
    super(namespaceSerializer);
    this.equalNamespaces = namespaceSerializer.hashing.equals;
  }

  override read(key: NormalizedKey, _nsKey: string | number, namespace: unknown): V | undefined {
    const entries = this.entriesOfKey(key);
    if (entries === undefined) return undefined;
    if (entries.namespace === namespace) return entries.value;
    return this.readSlow(entries, namespace);
  }

  override write(key: NormalizedKey, _nsKey: string | number, namespace: unknown, value: V): void {
    const entries = this.entriesOfKey(key);
    if (entries === undefined) {
      const created = new KeyEntries(namespace, value);
      this.byKey.set(key, created);
      this.lastKey = key;
      this.lastEntries = created;
    } else if (entries.namespace === namespace || this.equalNamespaces(entries.namespace, namespace))
      entries.value = value;
    else this.writeMore(entries, namespace, value);
  }

  override remove(_nsKey: string | number, key: NormalizedKey, namespace?: unknown): void {
    const entries = this.entriesOfKey(key);
    if (entries === undefined) return;
    const more = entries.more;
    if (entries.namespace === namespace || this.equalNamespaces(entries.namespace, namespace)) {
      if (more === undefined) {
        this.byKey.delete(key);
        this.lastKey = undefined;
        this.lastEntries = undefined;
        return;
      }
      entries.namespace = more[0];
      entries.value = more[1] as V;
      entries.more = more.length === 2 ? undefined : more.slice(2);
      return;
    }
    if (more === undefined) return;
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] !== namespace && !this.equalNamespaces(more[i], namespace)) continue;
      if (more.length === 2) entries.more = undefined;
      else more.splice(i, 2);
      return;
    }
  }

  /**
   * Every namespace's entries, grouped as a namespace-first table holds them (built for the call: snapshots,
   * key listings and counts, never a record's path), in the order the namespaces were first met.
   */
  override *namespaces(): IterableIterator<NamespaceEntries<V>> {
    const grouped = new StateTable<V>(this.namespaceSerializer);
    for (const [key, entries] of this.byKey) {
      grouped.write(key, grouped.keyOf(entries.namespace), entries.namespace, entries.value);
      const more = entries.more;
      if (more === undefined) continue;
      for (let i = 0; i < more.length; i += 2)
        grouped.write(key, grouped.keyOf(more[i]), more[i], more[i + 1] as V);
    }
    yield* grouped.namespaces();
  }

  override size(): number {
    let n = 0;
    for (const entries of this.byKey.values())
      n += entries.more === undefined ? 1 : 1 + (entries.more.length >> 1);
    return n;
  }

  override clear(): void {
    this.byKey.clear();
    this.lastKey = undefined;
    this.lastEntries = undefined;
  }

  private entriesOfKey(key: NormalizedKey): KeyEntries<V> | undefined {
    if (key === this.lastKey) return this.lastEntries;
    const entries = this.byKey.get(key);
    if (entries !== undefined) {
      this.lastKey = key;
      this.lastEntries = entries;
    }
    return entries;
  }

  private readSlow(entries: KeyEntries<V>, namespace: unknown): V | undefined {
    if (this.equalNamespaces(entries.namespace, namespace)) return entries.value;
    const more = entries.more;
    if (more === undefined) return undefined;
    for (let i = 0; i < more.length; i += 2)
      if (more[i] === namespace || this.equalNamespaces(more[i], namespace)) return more[i + 1] as V;
    return undefined;
  }

  private writeMore(entries: KeyEntries<V>, namespace: unknown, value: V): void {
    const more = entries.more;
    if (more === undefined) {
      entries.more = [namespace, value];
      return;
    }
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] === namespace || this.equalNamespaces(more[i], namespace)) {
        more[i + 1] = value;
        return;
      }
    }
    // concat allocates exactly the new length; the pair goes as one array so that an array value stays one element.
    entries.more = more.concat([namespace, value]);
  }
}
