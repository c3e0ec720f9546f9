// KeyFirstStateTable: one keyed state's entries indexed key → namespace, for namespaces a key holds few of at once.
import type { NormalizedKey } from '../key-hash.ts';
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import { KeyRows, NO_ENTRY, type KeyRow } from './key-rows.ts';
import { StateTable, type NamespaceEntries } from './state-table.ts';

/**
 * A state table indexed by key first, then by namespace, for namespaces that a key holds only a few of at a time
 * and that few keys share: session windows, whose state window belongs to one key (the pane of a session job is
 * found from one lookup of the key, where the namespace-first table found the namespace, then compared the
 * window object of whichever key created its entries, then scanned its keys: three more cold objects per read).
 * The key's namespaces are told apart by identity first, which is the common case (the state window a merging
 * window set hands out is the object the pane was written with), then by the hashing's `equals`.
 *
 * The entries live in one column of the backend's {@link KeyRows}, which every key-first state of the backend
 * shares: a session job's merging-window sets and panes are found with one lookup of the key, and the key looked up
 * last is cached, so a record's read and write of both, and a timer's read and clear, cost one lookup in all.
 * Snapshots see the entries grouped by namespace ({@link namespaces}), as the namespace-first table holds them, so
 * the snapshot form is the same.
 */
export class KeyFirstStateTable<V> extends StateTable<V> {
  private readonly column: number;
  private readonly equalNamespaces: NamespaceHashing<unknown>['equals'];

  constructor(
    namespaceSerializer: NamespaceSerializer<any> & { hashing: NamespaceHashing<any> },
    private readonly rows: KeyRows = new KeyRows(),
  ) {
    super(namespaceSerializer);
    this.equalNamespaces = namespaceSerializer.hashing.equals;
    this.column = rows.addColumn();
  }

  /**
   * No lookup key: entries are found by key, then by namespace object. Every namespace a handle sets would
   * otherwise compute its hash (a floating-point remainder for a session window) for nothing.
   */
  override keyOf(): number {
    return 0;
  }

  override read(key: NormalizedKey, _nsKey: string | number, namespace: unknown): V | undefined {
    const row = this.rows.rowOf(key);
    if (row === undefined) return undefined;
    const first = this.firstNamespace(row);
    if (first === namespace) return this.firstValue(row) as V;
    if (first === NO_ENTRY) return undefined;
    if (this.equalNamespaces(first, namespace)) return this.firstValue(row) as V;
    const more = this.more(row);
    if (more === undefined) return undefined;
    for (let i = 0; i < more.length; i += 2)
      if (more[i] === namespace || this.equalNamespaces(more[i], namespace)) return more[i + 1] as V;
    return undefined;
  }

  override write(key: NormalizedKey, _nsKey: string | number, namespace: unknown, value: V): void {
    const row = this.rows.rowForWrite(key);
    const first = this.firstNamespace(row);
    if (first === NO_ENTRY) this.setFirst(row, namespace, value);
    else if (first === namespace || this.equalNamespaces(first, namespace)) this.setFirst(row, first, value);
    else this.writeMore(row, namespace, value);
  }

  override remove(_nsKey: string | number, key: NormalizedKey, namespace?: unknown): void {
    const row = this.rows.rowOf(key);
    if (row === undefined) return;
    const first = this.firstNamespace(row);
    if (first === NO_ENTRY) return;
    const more = this.more(row);
    if (first === namespace || this.equalNamespaces(first, namespace)) {
      if (more === undefined) {
        this.setFirst(row, NO_ENTRY, undefined);
        this.rows.dropIfEmpty(key, row);
        return;
      }
      this.setFirst(row, more[0], more[1]);
      this.setMore(row, more.length === 2 ? undefined : more.slice(2));
      return;
    }
    if (more === undefined) return;
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] !== namespace && !this.equalNamespaces(more[i], namespace)) continue;
      if (more.length === 2) this.setMore(row, undefined);
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
    for (const [key, row] of this.rows.byKey) {
      const first = this.firstNamespace(row);
      if (first === NO_ENTRY) continue;
      grouped.write(key, grouped.keyOf(first), first, this.firstValue(row) as V);
      const more = this.more(row);
      if (more === undefined) continue;
      for (let i = 0; i < more.length; i += 2)
        grouped.write(key, grouped.keyOf(more[i]), more[i], more[i + 1] as V);
    }
    yield* grouped.namespaces();
  }

  override size(): number {
    let n = 0;
    for (const row of this.rows.byKey.values()) {
      if (this.firstNamespace(row) === NO_ENTRY) continue;
      const more = this.more(row);
      n += more === undefined ? 1 : 1 + (more.length >> 1);
    }
    return n;
  }

  /** Empties this state's column; rows left with nothing go. */
  override clear(): void {
    for (const [key, row] of [...this.rows.byKey]) {
      this.setFirst(row, NO_ENTRY, undefined);
      this.setMore(row, undefined);
      this.rows.dropIfEmpty(key, row);
    }
  }

  // The column's three slots: two fields each for the first two columns, three elements of `rest` for the others.

  private firstNamespace(row: KeyRow): unknown {
    const column = this.column;
    return column === 0 ? row.ns0 : column === 1 ? row.ns1 : row.rest![3 * (column - 2)];
  }

  private firstValue(row: KeyRow): unknown {
    const column = this.column;
    return column === 0 ? row.value0 : column === 1 ? row.value1 : row.rest![3 * (column - 2) + 1];
  }

  private more(row: KeyRow): unknown[] | undefined {
    const column = this.column;
    return column === 0
      ? row.more0
      : column === 1
        ? row.more1
        : (row.rest![3 * (column - 2) + 2] as unknown[] | undefined);
  }

  private setFirst(row: KeyRow, namespace: unknown, value: unknown): void {
    const column = this.column;
    if (column === 0) {
      row.ns0 = namespace;
      row.value0 = value;
    } else if (column === 1) {
      row.ns1 = namespace;
      row.value1 = value;
    } else {
      const rest = row.rest!;
      rest[3 * (column - 2)] = namespace;
      rest[3 * (column - 2) + 1] = value;
    }
  }

  private setMore(row: KeyRow, more: unknown[] | undefined): void {
    const column = this.column;
    if (column === 0) row.more0 = more;
    else if (column === 1) row.more1 = more;
    else row.rest![3 * (column - 2) + 2] = more;
  }

  private writeMore(row: KeyRow, namespace: unknown, value: V): void {
    const more = this.more(row);
    if (more === undefined) {
      this.setMore(row, [namespace, value]);
      return;
    }
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] === namespace || this.equalNamespaces(more[i], namespace)) {
        more[i + 1] = value;
        return;
      }
    }
    // concat allocates exactly the new length; the pair goes as one array so that an array value stays one element.
    this.setMore(row, more.concat([namespace, value]));
  }
}
