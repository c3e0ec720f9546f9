// KeyFirstStateTable: one keyed state's entries indexed key → namespace, for namespaces a key holds few of at once.
import type { NormalizedKey } from '../key-hash.ts';
import type { NamespaceHashing, NamespaceSerializer } from '../namespace.ts';
import { KeyRows, NO_ENTRY, NO_ROW } from './key-rows.ts';
import { StateTable, type NamespaceView } from './state-table.ts';

/**
 * A state table indexed by key first, then by namespace, for namespaces that a key holds only a few of at a time
 * and that few keys share: session windows, whose state window belongs to one key (the pane of a session job is
 * found from one lookup of the key, where the namespace-first table found the namespace, then compared the
 * window object of whichever key created its entries, then scanned its keys: three more cold objects per read),
 * and the void namespace of the keyed state user functions hold (one namespace per key: a value read and written
 * back by a record costs one lookup of the key, an integer table's probe, where a Map took a lookup for each).
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
  /** Entries held, counted as they come and go: the `numStateEntries` gauge reads it, and a walk costs O(keys). */
  private entries = 0;

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
    if (first === NO_ENTRY) {
      cells[at] = namespace;
      this.entries++;
    } else if (first !== namespace && !this.equalNamespaces(first, namespace)) {
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
      this.entries--;
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
      this.entries--;
      if (more.length === 2) cells[at + 2] = undefined;
      else more.splice(i, 2);
      return;
    }
  }

  /**
   * Every namespace's entries, grouped as a namespace-first table holds them (built for the call: snapshots,
   * key listings and counts, never a record's path), in the order the namespaces were first met. A column whose
   * entries all have one namespace (plain keyed state: the void namespace) is read as that namespace's entries in
   * place, in the order of the rows, without a grouped copy (for a snapshot of 266,666 keys the copy took 74 ms,
   * more than the rest of the snapshot).
   */
  override *namespaces(): IterableIterator<NamespaceView<V>> {
    const only = this.onlyNamespace();
    if (only !== NO_ENTRY) {
      const column = (): IterableIterator<[NormalizedKey, V]> => this.columnEntries();
      yield {
        namespace: only,
        size: this.entries,
        [Symbol.iterator]: column,
        *keys() {
          for (const [key] of column()) yield key;
        },
      };
      return;
    }
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
    return this.entries;
  }

  /** The namespace every entry has (the same object, each key one), or NO_ENTRY when there are several or none. */
  private onlyNamespace(): unknown {
    let only: unknown = NO_ENTRY;
    const cells = this.rows.cells;
    for (const [, row] of this.rows.rows()) {
      const at = row + this.cell;
      const first = cells[at];
      if (first === NO_ENTRY) continue;
      if (cells[at + 2] !== undefined || (only !== NO_ENTRY && first !== only)) return NO_ENTRY;
      only = first;
    }
    return only;
  }

  /** The (key, value) of every entry of this column, in the order of the rows (all of one namespace). */
  private *columnEntries(): IterableIterator<[NormalizedKey, V]> {
    const cells = this.rows.cells;
    for (const [key, row] of this.rows.rows()) {
      const at = row + this.cell;
      if (cells[at] !== NO_ENTRY) yield [key, cells[at + 1] as V];
    }
  }

  /** Empties this state's column; rows left with nothing go. */
  override clear(): void {
    this.rows.clearColumn(this.column);
    this.entries = 0;
  }

  private writeMore(cells: unknown[], at: number, namespace: unknown, value: V): void {
    const more = cells[at + 2] as unknown[] | undefined;
    if (more === undefined) {
      cells[at + 2] = [namespace, value];
      this.entries++;
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
    this.entries++;
  }
}
