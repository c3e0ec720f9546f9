// Descriptors name a keyed state and say how to build, fold and serialize it.
import type { AggregateFunction, ReduceFunction } from './aggregate-function.ts';
import type { StateTtlConfig } from './state-ttl-config.ts';
import {
  classSerializer,
  structuredCloneSerializer,
  type StateClass,
  type TypeSerializer,
} from './type-serializer.ts';

/** Options every descriptor accepts. */
export interface StateDescriptorOptions<T> {
  /** Serializer for snapshots and durable backends (default: structured clone). */
  serializer?: TypeSerializer<T>;
  /**
   * The class of the values (of a ValueState, of a ListState's elements, of a MapState's values): they keep
   * their class across snapshot and restore. Without it (or a serializer), a snapshot of class instances fails
   * naming the state and the class, since structured clone would bring them back as plain objects.
   */
  type?: StateClass<unknown>;
  /** Expire entries after a processing-time TTL. */
  ttl?: StateTtlConfig;
}

/** The kinds of keyed state. */
export type StateKind = 'value' | 'list' | 'map' | 'reducing' | 'aggregating';

/**
 * The common part of all descriptors: a name unique within the operator, the kind, and how values serialize.
 * Two descriptors with the same name in one operator must be of the same kind.
 */
export abstract class StateDescriptor<S, V = unknown> {
  abstract readonly kind: StateKind;
  readonly serializer: TypeSerializer<V>;
  readonly ttl: StateTtlConfig | undefined;
  /** Type-only marker so descriptors of different state kinds are not interchangeable. */
  declare readonly __state?: S;

  constructor(
    readonly name: string,
    options: StateDescriptorOptions<V> = {},
  ) {
    if (typeof name !== 'string' || name.length === 0)
      throw new TypeError('A state descriptor needs a non-empty name');
    if (options.serializer !== undefined && options.type !== undefined)
      throw new TypeError(`State '${name}': give either a serializer or a type, not both`);
    this.serializer =
      options.serializer ??
      (options.type !== undefined ? classSerializer(options.type) : structuredCloneSerializer);
    this.ttl = options.ttl;
  }
}

/**
 * Describes a {@link ValueState}.
 *
 * @example
 * const desc = new ValueStateDescriptor<number>('count', { defaultValue: 0 });
 */
export class ValueStateDescriptor<T> extends StateDescriptor<import('./state.ts').ValueState<T>, T> {
  readonly kind = 'value' as const;
  readonly defaultValue: T | undefined;
  constructor(name: string, options: StateDescriptorOptions<T> & { defaultValue?: T } = {}) {
    super(name, options);
    this.defaultValue = options.defaultValue;
  }
}

/** Describes a {@link ListState}. */
export class ListStateDescriptor<T> extends StateDescriptor<import('./state.ts').ListState<T>, T[]> {
  readonly kind = 'list' as const;
}

/** Describes a {@link MapState}. */
export class MapStateDescriptor<UK, UV> extends StateDescriptor<
  import('./state.ts').MapState<UK, UV>,
  Map<UK, UV>
> {
  readonly kind = 'map' as const;
}

/**
 * Describes a {@link ReducingState}.
 *
 * @example
 * const sum = new ReducingStateDescriptor<number>('sum', (a, b) => a + b);
 */
export class ReducingStateDescriptor<T> extends StateDescriptor<import('./state.ts').ReducingState<T>, T> {
  readonly kind = 'reducing' as const;
  constructor(
    name: string,
    readonly reduceFunction: ReduceFunction<T>,
    options: StateDescriptorOptions<T> = {},
  ) {
    super(name, options);
    if (typeof reduceFunction !== 'function')
      throw new TypeError(`Reducing state '${name}' needs a reduce function`);
  }
}

/** Describes an {@link AggregatingState}. */
export class AggregatingStateDescriptor<IN, ACC, OUT> extends StateDescriptor<
  import('./state.ts').AggregatingState<IN, OUT>,
  ACC
> {
  readonly kind = 'aggregating' as const;
  constructor(
    name: string,
    readonly aggregateFunction: AggregateFunction<IN, ACC, OUT>,
    options: StateDescriptorOptions<ACC> = {},
  ) {
    super(name, options);
  }
}
