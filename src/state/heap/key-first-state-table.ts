// KeyFirstStateTable: one keyed state's entries indexed key → namespace, for namespaces a key holds few of at once.
import type { NormalizedKey } from '../key-hash.ts';
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import { KeyRows, NO_ENTRY, NO_ROW } from './key-rows.ts';
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
  /** The offset of this state's first cell in a row: its first namespace, then its value, then the further pairs. */
  private readonly cell: number;
  private readonly equalNamespaces: NamespaceHashing<unknown>['equals'];

  constructor(
    namespaceSerializer: NamespaceSerializer<any> & { hashing: NamespaceHashing<any> },
    private readonly rows: KeyRows = new KeyRows(),
  ) {
    super(namespaceSerializer);
    this.equalNamespaces = namespaceSerializer.hashing.equals;
    this.column = rows.addColumn();
    this.cell = 1 + 3 * this.column;
  }

  /**
   * No lookup key: entries are found by key, then by namespace object. Every namespace a handle sets would
   * otherwise compute its hash (a floating-point remainder for a session window) for nothing.
   */
  override keyOf(): number {
    return 0;
  }

  override read(key: NormalizedKey, _nsKey: string | number, namespace: unknown): V | undefined {
    const rows = this.rows;
    const row = rows.rowOf(key);
    if (row === NO_ROW) return undefined;
    const cells = rows.cells;
    const at = row + this.cell;
    const first = cells[at];
    if (first === namespace) return cells[at + 1] as V;
    if (first === NO_ENTRY) return undefined;
    if (this.equalNamespaces(first, namespace)) return cells[at + 1] as V;
    const more = cells[at + 2] as unknown[] | undefined;
    if (more === undefined) return undefined;
    for (let i = 0; i < more.length; i += 2)
      if (more[i] === namespace || this.equalNamespaces(more[i], namespace)) return more[i + 1] as V;
    return undefined;
  }

  override write(key: NormalizedKey, _nsKey: string | number, namespace: unknown, value: V): void {
    const rows = this.rows;
    const at = rows.rowForWrite(key) + this.cell;
    const cells = rows.cells;
    const first = cells[at];
    if (first === NO_ENTRY) cells[at] = namespace;
    else if (first !== namespace && !this.equalNamespaces(first, namespace)) {
      this.writeMore(cells, at, namespace, value);
      return;
    }
    cells[at + 1] = value;
  }

  override remove(_nsKey: string | number, key: NormalizedKey, namespace?: unknown): void {
    const rows = this.rows;
    const row = rows.rowOf(key);
    if (row === NO_ROW) return;
    const cells = rows.cells;
    const at = row + this.cell;
    const first = cells[at];
    if (first === NO_ENTRY) return;
    const more = cells[at + 2] as unknown[] | undefined;
    if (first === namespace || this.equalNamespaces(first, namespace)) {
      if (more === undefined) {
        cells[at] = NO_ENTRY;
        cells[at + 1] = undefined;
        rows.dropIfEmpty(key, row);
        return;
      }
      cells[at] = more[0];
      cells[at + 1] = more[1];
      cells[at + 2] = more.length === 2 ? undefined : more.slice(2);
      return;
    }
    if (more === undefined) return;
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] !== namespace && !this.equalNamespaces(more[i], namespace)) continue;
      if (more.length === 2) cells[at + 2] = undefined;
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
    const cells = this.rows.cells;
    for (const [key, row] of this.rows.rows()) {
      const at = row + this.cell;
      const first = cells[at];
      if (first === NO_ENTRY) continue;
      grouped.write(key, grouped.keyOf(first), first, cells[at + 1] as V);
      const more = cells[at + 2] as unknown[] | undefined;
      if (more === undefined) continue;
      for (let i = 0; i < more.length; i += 2)
        grouped.write(key, grouped.keyOf(more[i]), more[i], more[i + 1] as V);
    }
    yield* grouped.namespaces();
  }

  override size(): number {
    let n = 0;
    const cells = this.rows.cells;
    for (const [, row] of this.rows.rows()) {
      const at = row + this.cell;
      if (cells[at] === NO_ENTRY) continue;
      const more = cells[at + 2] as unknown[] | undefined;
      n += more === undefined ? 1 : 1 + (more.length >> 1);
    }
    return n;
  }

  /** Empties this state's column; rows left with nothing go. */
  override clear(): void {
    this.rows.clearColumn(this.column);
  }

  private writeMore(cells: unknown[], at: number, namespace: unknown, value: V): void {
    const more = cells[at + 2] as unknown[] | undefined;
    if (more === undefined) {
      cells[at + 2] = [namespace, value];
      return;
    }
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] === namespace || this.equalNamespaces(more[i], namespace)) {
        more[i + 1] = value;
        return;
      }
    }
    // concat allocates exactly the new length; the pair goes as one array so that an array value stays one element.
    cells[at + 2] = more.concat([namespace, value]);
  }
}
