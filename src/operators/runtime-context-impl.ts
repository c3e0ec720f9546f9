// RuntimeContextImpl: the RuntimeContext user functions get, backed by the subtask's keyed state backend.
import { IllegalStateError } from '../core/errors.ts';
import type { RuntimeContext } from '../core/runtime-context.ts';
import type { MetricGroup } from '../core/metric-group.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import { keyRowVoidNamespaceSerializer } from '../state/namespace.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateDescriptor,
  ValueStateDescriptor,
} from '../core/state-descriptor.ts';
import type { AggregatingState, ListState, MapState, ReducingState, ValueState } from '../core/state.ts';

export class RuntimeContextImpl implements RuntimeContext {
  constructor(
    readonly operatorName: string,
    readonly subtaskIndex: number,
    readonly parallelism: number,
    readonly maxParallelism: number,
    private readonly backend: KeyedStateBackend | undefined,
    private readonly metricGroup: MetricGroup,
  ) {}

  getMetricGroup(): MetricGroup {
    return this.metricGroup;
  }

  getState<T, V extends T | undefined>(descriptor: ValueStateDescriptor<T, V>): ValueState<T, V> {
    // The backends return the descriptor's default for a missing entry, so value() is a V.
    return this.keyed(descriptor) as ValueState<T, V>;
  }
  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T> {
    return this.keyed(descriptor);
  }
  getMapState<UK, UV>(descriptor: MapStateDescriptor<UK, UV>): MapState<UK, UV> {
    return this.keyed(descriptor);
  }
  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T> {
    return this.keyed(descriptor);
  }
  getAggregatingState<IN, ACC, OUT>(
    descriptor: AggregatingStateDescriptor<IN, ACC, OUT>,
  ): AggregatingState<IN, OUT> {
    return this.keyed(descriptor);
  }

  private keyed<D extends StateDescriptor<any, any>>(descriptor: D): any {
    if (this.backend === undefined) {
      throw new IllegalStateError(
        `Keyed state '${descriptor.name}' can only be used on a keyed stream (after keyBy); operator '${this.operatorName}' is not keyed`,
      );
    }
    // In the heap backend, a user's states live in the key's row (KeyRows), one column each: a record's read and
    // write of a value, or of every state the function holds, cost one lookup of the key, and the lookup is an
    // integer table's probe rather than a Map's bucket and entry (docs/performance.md, "User state in the key's row").
    const state = this.backend.getOrCreateKeyedState(descriptor, keyRowVoidNamespaceSerializer);
    (state as { setCurrentNamespace(ns: unknown): void }).setCurrentNamespace(0);
    return state;
  }
}
