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

/** Options of a {@link ValueStateDescriptor}. */
export interface ValueStateDescriptorOptions<T> extends StateDescriptorOptions<T> {
  /** What `value()` returns for a key without a value (never set, cleared or expired). */
  defaultValue?: T;
}

/**
 * Describes a {@link ValueState}. `V` is what the state's `value()` returns: `T` for a descriptor made with a
 * `defaultValue`, `T | undefined` otherwise (the constructor's overloads choose it, so neither is written by hand).
 *
 * @example
 * const count = new ValueStateDescriptor<number>('count', { defaultValue: 0 }); // ValueStateDescriptor<number, number>
 * const last = new ValueStateDescriptor<string>('last'); // ValueStateDescriptor<string, string | undefined>
 */
export interface ValueStateDescriptor<T, V extends T | undefined = T | undefined> extends StateDescriptor<
  import('./state.ts').ValueState<T, V>,
  T
> {
  /** Always `'value'`. */
  readonly kind: 'value';
  /** The default value, `undefined` when there is none. */
  readonly defaultValue: V;
}

/**
 * The constructor of {@link ValueStateDescriptor}: with a `defaultValue` of type `T` the state reads as `T`,
 * without one as `T | undefined`.
 */
export interface ValueStateDescriptorConstructor {
  /** A descriptor whose state's `value()` is a `T`: never set, cleared or expired, it reads as `defaultValue`. */
  new <T>(
    name: string,
    options: ValueStateDescriptorOptions<T> & { defaultValue: T },
  ): ValueStateDescriptor<T, T>;
  /** A descriptor without a default value: its state's `value()` is `T | undefined`. */
  new <T>(name: string, options?: ValueStateDescriptorOptions<T>): ValueStateDescriptor<T>;
  /** Lets `instanceof ValueStateDescriptor` narrow. */
  readonly prototype: ValueStateDescriptor<unknown>;
}

// A class cannot give its constructor overloads different instance types, so the class stays private and is
// exported through the constructor interface above (the pattern of the standard library's `Map`/`MapConstructor`).
class ValueStateDescriptorImpl<T> extends StateDescriptor<import('./state.ts').ValueState<T>, T> {
  readonly kind = 'value' as const;
  readonly defaultValue: T | undefined;
  constructor(name: string, options: ValueStateDescriptorOptions<T> = {}) {
    super(name, options);
    this.defaultValue = options.defaultValue;
  }
}

/** Describes a {@link ValueState}; see the {@link ValueStateDescriptor} interface. */
export const ValueStateDescriptor = ValueStateDescriptorImpl as unknown as ValueStateDescriptorConstructor;

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
