// RuntimeContext: what a rich function's open() receives: keyed state handles and where the subtask runs.
import type { AggregatingState, ListState, MapState, ReducingState, ValueState } from './state.ts';
import type { MetricGroup } from './metric-group.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  ValueStateDescriptor,
} from './state-descriptor.ts';

/**
 * Handed to `open(ctx)` of every rich function. State handles are bound to the current key; asking for state on
 * a stream that is not keyed throws an error naming the operator (Flink: "Keyed state can only be used on a
 * 'keyed stream'").
 *
 * @example
 * open(ctx) { this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 })); }
 */
export interface RuntimeContext {
  /** The operator's name, as given with `.name()`. */
  readonly operatorName: string;
  /** Index of this parallel subtask, from 0. */
  readonly subtaskIndex: number;
  /** Number of parallel subtasks of this operator. */
  readonly parallelism: number;
  readonly maxParallelism: number;
  /**
   * This subtask's metric group (Flink's operator scope): register user counters, gauges, histograms and meters
   * in `open`; they are reported with the runtime's metrics.
   */
  getMetricGroup(): MetricGroup;
  /** The value state `descriptor` names; its `value()` is typed `T` when the descriptor has a default value. */
  getState<T, V extends T | undefined>(descriptor: ValueStateDescriptor<T, V>): ValueState<T, V>;
  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T>;
  getMapState<UK, UV>(descriptor: MapStateDescriptor<UK, UV>): MapState<UK, UV>;
  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T>;
  getAggregatingState<IN, ACC, OUT>(
    descriptor: AggregatingStateDescriptor<IN, ACC, OUT>,
  ): AggregatingState<IN, OUT>;
}

/** A function with a life cycle: `open` before the first record, `close` after the last. Classes or plain objects. */
export interface RichFunction {
  open?(ctx: RuntimeContext): void | Promise<void>;
  close?(): void | Promise<void>;
}
