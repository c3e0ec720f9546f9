// AggregatingState in the heap backend: one accumulator per (key, namespace), however many values were added.
import type { InternalAggregatingState } from '../internal-state.ts';
import type { AggregatingStateDescriptor } from '../../core/state-descriptor.ts';
import { AbstractHeapState } from './abstract-heap-state.ts';

export class HeapAggregatingState<N, IN, ACC, OUT>
  extends AbstractHeapState<N, ACC>
  implements InternalAggregatingState<N, IN, OUT>
{
  private get fn() {
    return (this.descriptor as AggregatingStateDescriptor<IN, ACC, OUT>).aggregateFunction;
  }

  get(): OUT | undefined {
    const acc = this.getRaw();
    return acc === undefined ? undefined : this.fn.getResult(acc);
  }

  getAccumulator(): unknown {
    return this.getRaw();
  }

  /** Adds `value`; returns whether the entry was created by this call (see {@link AbstractHeapState}). */
  add(value: IN): boolean {
    const fn = this.fn;
    const acc = this.getRaw();
    const next = fn.add(value, acc === undefined ? fn.createAccumulator() : acc);
    // A mutated accumulator is already stored; only a new object (or TTL refresh) needs a write.
    if (next !== acc || this.ttlMs !== 0) this.putRaw(next);
    return acc === undefined;
  }

  mergeNamespaces(target: N, sources: readonly N[]): void {
    const fn = this.fn;
    let merged: ACC | undefined;
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i]!;
      const acc = this.getRawIn(source);
      if (acc !== undefined) merged = merged === undefined ? acc : fn.merge(merged, acc);
      this.removeIn(source);
    }
    if (merged === undefined) return;
    const saved = this.namespace;
    this.setCurrentNamespace(target);
    const existing = this.getRaw();
    this.putRaw(existing === undefined ? merged : fn.merge(existing, merged));
    this.setCurrentNamespace(saved);
  }
}
