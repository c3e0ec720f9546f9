// ValueState in the heap backend.
import type { InternalValueState } from '../internal-state.ts';
import type { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { AbstractHeapState } from './abstract-heap-state.ts';

export class HeapValueState<N, T> extends AbstractHeapState<N, T> implements InternalValueState<N, T> {
  value(): T | undefined {
    const v = this.getRaw();
    return v === undefined ? (this.descriptor as ValueStateDescriptor<T>).defaultValue : v;
  }

  update(value: T | undefined): void {
    if (value === undefined) this.clear();
    else this.putRaw(value);
  }
}
