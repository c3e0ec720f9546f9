// ListState in the heap backend: one array per (key, namespace), appended in place.
import type { InternalListState } from '../internal-state.ts';
import { AbstractHeapState } from './abstract-heap-state.ts';

const EMPTY: readonly never[] = Object.freeze([]);

export class HeapListState<N, T> extends AbstractHeapState<N, T[]> implements InternalListState<N, T> {
  /** The list of the current entry; `[]` when empty. The array is live: copy it before keeping it. */
  get(): readonly T[] {
    return this.getRaw() ?? EMPTY;
  }

  /** Appends `value`; returns whether the entry was created by this call (see {@link AbstractHeapState}). */
  add(value: T): boolean {
    const list = this.getRaw();
    if (list === undefined) {
      this.putRaw([value]);
      return true;
    }
    list.push(value);
    if (this.ttlMs !== 0) this.putRaw(list);
    return false;
  }

  addAll(values: Iterable<T>): void {
    const list = this.getRaw();
    const extra = [...values];
    if (extra.length === 0) return;
    if (list === undefined) this.putRaw(extra);
    else {
      for (const v of extra) list.push(v);
      if (this.ttlMs !== 0) this.putRaw(list);
    }
  }

  update(values: Iterable<T>): void {
    const list = [...values];
    if (list.length === 0) this.clear();
    else this.putRaw(list);
  }

  mergeNamespaces(target: N, sources: readonly N[]): void {
    const merged: T[] = [];
    for (const source of sources) {
      const list = this.getRawIn(source);
      if (list !== undefined) merged.push(...list);
      this.removeIn(source);
    }
    const saved = this.namespace;
    this.setCurrentNamespace(target);
    this.addAll(merged);
    this.setCurrentNamespace(saved);
  }
}
