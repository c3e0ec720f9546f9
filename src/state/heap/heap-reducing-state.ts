// ReducingState in the heap backend: the reduced value per (key, namespace).
import type { InternalReducingState } from '../internal-state.ts';
import type { ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import { AbstractHeapState } from './abstract-heap-state.ts';

export class HeapReducingState<N, T> extends AbstractHeapState<N, T> implements InternalReducingState<N, T> {
  get(): T | undefined {
    return this.getRaw();
  }

  /** Adds `value`; returns whether the entry was created by this call (see {@link AbstractHeapState}). */
  add(value: T): boolean {
    const current = this.getRaw();
    this.putRaw(
      current === undefined
        ? value
        : (this.descriptor as ReducingStateDescriptor<T>).reduceFunction(current, value),
    );
    return current === undefined;
  }

  mergeNamespaces(target: N, sources: readonly N[]): void {
    const reduce = (this.descriptor as ReducingStateDescriptor<T>).reduceFunction;
    let merged: T | undefined;
    for (const source of sources) {
      const v = this.getRawIn(source);
      if (v !== undefined) merged = merged === undefined ? v : reduce(merged, v);
      this.removeIn(source);
    }
    if (merged === undefined) return;
    const saved = this.namespace;
    this.setCurrentNamespace(target);
    this.add(merged);
    this.setCurrentNamespace(saved);
  }
}
