// The keyed state handles user functions read and write: each is bound to the key (and namespace) the runtime sets.

/**
 * The base of every state handle. A handle is obtained once (usually in `open`) and always reads and writes the
 * entry of the current key, which the runtime sets before every record and every timer callback, as in Flink.
 */
export interface State {
  /** Removes the entry of the current key (and namespace). */
  clear(): void;
}

/**
 * A single value per key. `V` is what `value()` returns: `T` when the descriptor has a default value (an entry
 * never set, cleared or expired reads as the default), `T | undefined` otherwise. `getState` infers it from the
 * descriptor.
 *
 * @example
 * const count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 })); // ValueState<number, number>
 * count.update(count.value() + 1);
 * const last = ctx.getState(new ValueStateDescriptor<string>('last')); // value(): string | undefined
 */
export interface ValueState<T, V extends T | undefined = T | undefined> extends State {
  /** The value of the current key, or the descriptor's default (`undefined` when it has none). */
  value(): V;
  /** Sets the value of the current key; `undefined` clears it. */
  update(value: T | undefined): void;
}

/** A state that values are added to and that yields one result: the base of list, reducing and aggregating state. */
export interface AppendingState<IN, OUT> extends State {
  /** The current result; for an empty entry: `[]` for list state, `undefined` otherwise. */
  get(): OUT;
  /** Adds a value to the entry of the current key. */
  add(value: IN): void;
}

/**
 * A list of values per key.
 *
 * @example
 * const seen = ctx.getListState(new ListStateDescriptor<string>('seen'));
 * seen.add('a');
 * for (const v of seen.get()) console.log(v);
 */
export interface ListState<T> extends AppendingState<T, readonly T[]> {
  /** Appends all values. */
  addAll(values: Iterable<T>): void;
  /** Replaces the list of the current key. */
  update(values: Iterable<T>): void;
}

/**
 * A map per key.
 *
 * @example
 * const lastSeen = ctx.getMapState(new MapStateDescriptor<string, number>('last-seen'));
 * lastSeen.put(event.page, event.ts);
 */
export interface MapState<UK, UV> extends State {
  get(key: UK): UV | undefined;
  put(key: UK, value: UV): void;
  putAll(entries: Iterable<readonly [UK, UV]>): void;
  remove(key: UK): void;
  contains(key: UK): boolean;
  entries(): IterableIterator<[UK, UV]>;
  keys(): IterableIterator<UK>;
  values(): IterableIterator<UV>;
  isEmpty(): boolean;
  /** The number of entries of the current key. */
  size(): number;
}

/**
 * A value per key that every `add` folds in with the descriptor's reduce function.
 *
 * @example
 * const max = ctx.getReducingState(new ReducingStateDescriptor<number>('max', Math.max));
 */
export interface ReducingState<T> extends AppendingState<T, T | undefined> {}

/**
 * An accumulator per key, folded by the descriptor's {@link AggregateFunction}; `get` returns its result.
 */
export interface AggregatingState<IN, OUT> extends AppendingState<IN, OUT | undefined> {}
