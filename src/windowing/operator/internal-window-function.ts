// InternalWindowFunction: the one shape the window operator calls, and adapters from every user window function.
import { rejectPromiseResult } from '../../core/async-function-guard.ts';
import type { Collector } from '../../core/functions.ts';
import type { RuntimeContext } from '../../core/runtime-context.ts';
import { closeFunction, openFunction } from '../../operators/user-function.ts';
import type { AggregateFunction, ReduceFunction } from '../../core/aggregate-function.ts';
import type {
  ProcessWindowContext,
  ProcessWindowFunction,
  WindowFunction,
} from '../process-window-function.ts';
import type { Window } from '../window.ts';

/**
 * What the operator calls when a window fires, as Flink's `InternalWindowFunction`: `input` is the window
 * state's contents — one value for reducing/aggregating state, the element array for list state.
 */
export interface InternalWindowFunction<ACC, OUT, K, W extends Window> {
  open(ctx: RuntimeContext): void | Promise<void>;
  close(): void | Promise<void>;
  process(key: K, window: W, context: ProcessWindowContext<W>, input: ACC, out: Collector<OUT>): void;
  clear(window: W, context: ProcessWindowContext<W>): void;
}

/** `reduce(f)` / `aggregate(f)` alone: the pre-aggregated value is the result (Flink's PassThroughWindowFunction). */
export class PassThroughWindowFunction<T> implements InternalWindowFunction<T, T, unknown, Window> {
  open(): void {}
  close(): void {}
  process(
    _key: unknown,
    _window: Window,
    _context: ProcessWindowContext<Window>,
    input: T,
    out: Collector<T>,
  ): void {
    out.collect(input);
  }
  clear(): void {}
}

/** A ProcessWindowFunction over the single pre-aggregated value (reduce/aggregate + process). */
export class SingleValueProcessWindowFunction<IN, OUT, K, W extends Window> implements InternalWindowFunction<
  IN,
  OUT,
  K,
  W
> {
  constructor(private readonly fn: ProcessWindowFunction<IN, OUT, K, W>) {}
  open(ctx: RuntimeContext): void | Promise<void> {
    return openFunction(this.fn, ctx);
  }
  close(): void | Promise<void> {
    return closeFunction(this.fn);
  }
  process(key: K, _window: W, context: ProcessWindowContext<W>, input: IN, out: Collector<OUT>): void {
    rejectPromiseResult(this.fn.process(key, context, [input], out), 'process()');
  }
  clear(_window: W, context: ProcessWindowContext<W>): void {
    this.fn.clear?.(context);
  }
}

/** A ProcessWindowFunction over all elements of the window (list state). */
export class IterableProcessWindowFunction<IN, OUT, K, W extends Window> implements InternalWindowFunction<
  readonly IN[],
  OUT,
  K,
  W
> {
  constructor(private readonly fn: ProcessWindowFunction<IN, OUT, K, W>) {}
  open(ctx: RuntimeContext): void | Promise<void> {
    return openFunction(this.fn, ctx);
  }
  close(): void | Promise<void> {
    return closeFunction(this.fn);
  }
  process(
    key: K,
    _window: W,
    context: ProcessWindowContext<W>,
    input: readonly IN[],
    out: Collector<OUT>,
  ): void {
    rejectPromiseResult(this.fn.process(key, context, input, out), 'process()');
  }
  clear(_window: W, context: ProcessWindowContext<W>): void {
    this.fn.clear?.(context);
  }
}

/** A legacy WindowFunction (apply) over all elements of the window. */
export class IterableWindowFunction<IN, OUT, K, W extends Window> implements InternalWindowFunction<
  readonly IN[],
  OUT,
  K,
  W
> {
  constructor(private readonly fn: WindowFunction<IN, OUT, K, W>) {}
  // A WindowFunction is a plain function: it has no open or close.
  open(): void {}
  close(): void {}
  process(
    key: K,
    window: W,
    _context: ProcessWindowContext<W>,
    input: readonly IN[],
    out: Collector<OUT>,
  ): void {
    rejectPromiseResult(this.fn(key, window, input, out), 'apply()');
  }
  clear(): void {}
}

/** A legacy WindowFunction (apply) over the single pre-aggregated value. */
export class SingleValueWindowFunction<IN, OUT, K, W extends Window> implements InternalWindowFunction<
  IN,
  OUT,
  K,
  W
> {
  constructor(private readonly fn: WindowFunction<IN, OUT, K, W>) {}
  // A WindowFunction is a plain function: it has no open or close.
  open(): void {}
  close(): void {}
  process(key: K, window: W, _context: ProcessWindowContext<W>, input: IN, out: Collector<OUT>): void {
    rejectPromiseResult(this.fn(key, window, [input], out), 'apply()');
  }
  clear(): void {}
}

/**
 * With an evictor every element is kept, so a reduce runs when the window fires (Flink's
 * ReduceApplyProcessWindowFunction): fold the remaining elements, then hand the one value on.
 */
export class ReduceApplyWindowFunction<T, OUT, K, W extends Window> implements InternalWindowFunction<
  readonly T[],
  OUT,
  K,
  W
> {
  constructor(
    private readonly reduce: ReduceFunction<T>,
    private readonly inner: InternalWindowFunction<T, OUT, K, W>,
  ) {}
  open(ctx: RuntimeContext): void | Promise<void> {
    return this.inner.open(ctx);
  }
  close(): void | Promise<void> {
    return this.inner.close();
  }
  process(
    key: K,
    window: W,
    context: ProcessWindowContext<W>,
    input: readonly T[],
    out: Collector<OUT>,
  ): void {
    if (input.length === 0) return; // every element was evicted: there is no value to emit
    let acc = input[0] as T;
    for (let i = 1; i < input.length; i++) acc = this.reduce(acc, input[i] as T);
    this.inner.process(key, window, context, acc, out);
  }
  clear(window: W, context: ProcessWindowContext<W>): void {
    this.inner.clear(window, context);
  }
}

/**
 * With an evictor, an aggregate runs when the window fires over the remaining elements (Flink's
 * AggregateApplyWindowFunction); as in Flink an emptied window still yields the result of a fresh accumulator.
 */
export class AggregateApplyWindowFunction<
  IN,
  ACC,
  R,
  OUT,
  K,
  W extends Window,
> implements InternalWindowFunction<readonly IN[], OUT, K, W> {
  constructor(
    private readonly aggregate: AggregateFunction<IN, ACC, R>,
    private readonly inner: InternalWindowFunction<R, OUT, K, W>,
  ) {}
  open(ctx: RuntimeContext): void | Promise<void> {
    return this.inner.open(ctx);
  }
  close(): void | Promise<void> {
    return this.inner.close();
  }
  process(
    key: K,
    window: W,
    context: ProcessWindowContext<W>,
    input: readonly IN[],
    out: Collector<OUT>,
  ): void {
    let acc = this.aggregate.createAccumulator();
    for (const value of input) acc = this.aggregate.add(value, acc);
    this.inner.process(key, window, context, this.aggregate.getResult(acc), out);
  }
  clear(window: W, context: ProcessWindowContext<W>): void {
    this.inner.clear(window, context);
  }
}
