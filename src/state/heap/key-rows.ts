// KeyRows: the entries of every key-first state of one backend, one row per key, so a key's states share one lookup.
import type { NormalizedKey } from '../key-hash.ts';

/** Marks a column of a row that holds no entry (a namespace may be any value, `undefined` included). */
export const NO_ENTRY: unknown = Symbol('no entry');

/**
 * One key's entries in every key-first state: per state (a column) its first namespace, that namespace's value and
 * the further (namespace, value) pairs flat in an array, exactly as long as it holds. The first two columns are
 * fields (a session job has two: the panes and the merging-window sets), more go in `rest`, three slots a column.
 * One object of 80 bytes where two Maps of the same keys held an entry each and the panes an object per key.
 */
export class KeyRow {
  ns0: unknown = NO_ENTRY;
  value0: unknown = undefined;
  more0: unknown[] | undefined = undefined;
  ns1: unknown = NO_ENTRY;
  value1: unknown = undefined;
  more1: unknown[] | undefined = undefined;
  rest: unknown[] | undefined = undefined;

  /** Whether no column holds an entry (the row then leaves the Map). */
  isEmpty(): boolean {
    if (this.ns0 !== NO_ENTRY || this.ns1 !== NO_ENTRY) return false;
    const rest = this.rest;
    if (rest !== undefined) for (let i = 0; i < rest.length; i += 3) if (rest[i] !== NO_ENTRY) return false;
    return true;
  }
}

/**
 * The rows of one backend's key-first states, by key, and the row of the key looked up last: a record reads and
 * writes a key's merging-window set and its pane, a timer reads and clears them, and every access after the first
 * costs no lookup. A row that no longer holds anything leaves the Map at once, as a namespace-first table drops an
 * empty namespace.
 */
export class KeyRows {
  readonly byKey = new Map<NormalizedKey, KeyRow>();
  private columns = 0;
  private lastKey: NormalizedKey | undefined = undefined;
  private lastRow: KeyRow | undefined = undefined;

  /** A column for one more state; rows built before it have it empty. */
  addColumn(): number {
    const column = this.columns++;
    if (column >= 2) for (const row of this.byKey.values()) growRest(row, column);
    return column;
  }

  /** The key's row, or undefined when it holds nothing. */
  rowOf(key: NormalizedKey): KeyRow | undefined {
    if (key === this.lastKey) return this.lastRow;
    const row = this.byKey.get(key);
    if (row !== undefined) {
      this.lastKey = key;
      this.lastRow = row;
    }
    return row;
  }

  /** The key's row, created empty when missing. */
  rowForWrite(key: NormalizedKey): KeyRow {
    const found = this.rowOf(key);
    if (found !== undefined) return found;
    const row = new KeyRow();
    if (this.columns > 2) growRest(row, this.columns - 1);
    this.byKey.set(key, row);
    this.lastKey = key;
    this.lastRow = row;
    return row;
  }

  /** Drops the key's row if it no longer holds anything. */
  dropIfEmpty(key: NormalizedKey, row: KeyRow): void {
    if (!row.isEmpty()) return;
    this.byKey.delete(key);
    if (this.lastRow === row) {
      this.lastKey = undefined;
      this.lastRow = undefined;
    }
  }
}

/** Gives a row the slots of columns 2 to `column`, empty. */
function growRest(row: KeyRow, column: number): void {
  const rest = (row.rest ??= []);
  while (rest.length < 3 * (column - 1)) rest.push(NO_ENTRY, undefined, undefined);
}
