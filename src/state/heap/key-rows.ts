// KeyRows: the entries of every key-first state of one backend, one row per key, so a key's states share one lookup.
import type { NormalizedKey } from '../key-hash.ts';
import { emptyTaggedArray } from '../../core/stable-hidden-classes.ts';
import { BlockIndex, NO_BLOCK } from './block-index.ts';

/** Marks a column of a row that holds no entry (a namespace may be any value, `undefined` included). */
export const NO_ENTRY: unknown = Symbol('no entry');

/** Marks the key cell of a row no key holds (a free row, taken by the next new key). */
const FREE_ROW: unknown = Symbol('free row');

/** A key's row: the index of its first cell in {@link KeyRows.cells}. */
export type KeyRow = number;

/** The row of a key that has none. */
export const NO_ROW: KeyRow = NO_BLOCK;

/** Free rows are compacted away once they outnumber the held ones and this many are free. */
const COMPACT_AT_FREE_ROWS = 1024;

/**
 * The rows of one backend's key-first states, by key, and the row of the key looked up last: a record reads and
 * writes a key's merging-window set and its pane, a timer reads and clears them, and every access after the first
 * costs no lookup.
 *
 * **Layout.** Every row lies in one shared array, {@link cells}: the key, then per state (a column) its first
 * namespace, that namespace's value and the further (namespace, value) pairs flat in an array exactly as long as
 * it holds: 7 cells (56 bytes) for a session job's two columns, the panes and the merging-window sets. A
 * {@link BlockIndex} gives a key's row (an integer key by linear probing in an `Int32Array`, others by a Map). A
 * lookup of a key last touched seconds of event time before is then about two cache misses, the index's slot and
 * the row, where a `Map` of row objects took three: its hash bucket, the entry, and the row object (on sessions the
 * `Map` lookup and the row's first field were 21 % of the samples). A row that no longer holds anything leaves the
 * index at once and its cells go to a free list, which new keys take first: the cells grow only to the most rows
 * held at once, and are compacted when free rows outnumber held ones.
 */
export class KeyRows {
  /**
   * Rows of `stride` cells: the key ({@link FREE_ROW} for a free row), then three cells a column. Replaced when a
   * column is added or the rows are compacted, so read it through this field, never keep it. Holds any values from
   * the start (a key, then symbols): an empty literal changed its hidden class at the first row written, in every
   * backend of every job (core/stable-hidden-classes.ts).
   */
  cells: unknown[] = emptyTaggedArray();
  private stride = 1;
  private columns = 0;
  private readonly index = new BlockIndex();
  private freeRows: KeyRow[] = [];
  private held = 0;
  private lastKey: NormalizedKey | undefined = undefined;
  private lastRow: KeyRow = NO_ROW;

  /** Rows held (keys with an entry in some column). */
  get size(): number {
    return this.held;
  }

  /** A column for one more state, its first cell at `row + 1 + 3 * column`; rows held before have it empty. */
  addColumn(): number {
    const column = this.columns++;
    this.relayout(this.stride, 1 + 3 * this.columns);
    return column;
  }

  /** The key's row, or {@link NO_ROW} when it holds nothing. */
  rowOf(key: NormalizedKey): KeyRow {
    // The key is compared only once a key is cached. V8 records which types a comparison met only after a function
    // has run a few times, so a fresh backend's `undefined` here was never recorded, and the next job's first lookup
    // threw away the record path's optimised code, in which this comparison is inlined for integer keys.
    if (this.lastRow !== NO_ROW && key === this.lastKey) return this.lastRow;
    const row = this.index.get(key);
    if (row !== NO_ROW) {
      this.lastKey = key;
      this.lastRow = row;
    }
    return row;
  }

  /** The key's row, created empty when missing. */
  rowForWrite(key: NormalizedKey): KeyRow {
    const found = this.rowOf(key);
    if (found !== NO_ROW) return found;
    const cells = this.cells;
    let row = this.freeRows.pop();
    if (row === undefined) {
      row = cells.length;
      cells.push(key);
      for (let c = 0; c < this.columns; c++) cells.push(NO_ENTRY, undefined, undefined);
    } else {
      cells[row] = key;
    }
    this.index.set(key, row);
    this.held++;
    this.lastKey = key;
    this.lastRow = row;
    return row;
  }

  /** Drops the key's row if it no longer holds anything: its cells are freed (and hold no namespace or value). */
  dropIfEmpty(key: NormalizedKey, row: KeyRow): void {
    if (!this.isEmpty(row)) return;
    this.free(key, row);
    if (this.freeRows.length >= COMPACT_AT_FREE_ROWS && this.freeRows.length > this.held)
      this.relayout(this.stride, this.stride);
  }

  /**
   * Empties one column of every row; rows left with nothing go (compacted once at the end, so no row moves while
   * the rows are walked).
   */
  clearColumn(column: number): void {
    const cells = this.cells;
    const ns = 1 + 3 * column;
    for (let row = 0; row < cells.length; row += this.stride) {
      const key = cells[row];
      if (key === FREE_ROW) continue;
      cells[row + ns] = NO_ENTRY;
      cells[row + ns + 1] = undefined;
      cells[row + ns + 2] = undefined;
      if (this.isEmpty(row)) this.free(key as NormalizedKey, row);
    }
    if (this.freeRows.length >= COMPACT_AT_FREE_ROWS && this.freeRows.length > this.held)
      this.relayout(this.stride, this.stride);
  }

  /** Every held row with its key, in the order of the cells (for snapshots and counts, not the record path). */
  *rows(): IterableIterator<[NormalizedKey, KeyRow]> {
    const cells = this.cells;
    for (let row = 0; row < cells.length; row += this.stride)
      if (cells[row] !== FREE_ROW) yield [cells[row] as NormalizedKey, row];
  }

  private isEmpty(row: KeyRow): boolean {
    const cells = this.cells;
    for (let c = row + 1; c < row + this.stride; c += 3) if (cells[c] !== NO_ENTRY) return false;
    return true;
  }

  private free(key: NormalizedKey, row: KeyRow): void {
    const cells = this.cells;
    cells[row] = FREE_ROW;
    for (let c = row + 1; c < row + this.stride; c += 3) {
      cells[c + 1] = undefined;
      cells[c + 2] = undefined;
    }
    this.index.delete(key);
    this.freeRows.push(row);
    this.held--;
    if (this.lastRow === row) {
      this.lastKey = undefined;
      this.lastRow = NO_ROW;
    }
  }

  /** Copies the held rows, in order, into fresh cells of `stride` cells a row (new columns empty), re-indexed. */
  private relayout(oldStride: number, stride: number): void {
    const old = this.cells;
    const cells = emptyTaggedArray<unknown>();
    for (let row = 0; row < old.length; row += oldStride) {
      const key = old[row];
      if (key === FREE_ROW) continue;
      const moved = cells.length;
      for (let c = 0; c < oldStride; c++) cells.push(old[row + c]);
      for (let c = oldStride; c < stride; c += 3) cells.push(NO_ENTRY, undefined, undefined);
      this.index.set(key as NormalizedKey, moved);
    }
    this.cells = cells;
    this.stride = stride;
    this.freeRows = [];
    this.lastKey = undefined;
    this.lastRow = NO_ROW;
  }
}
