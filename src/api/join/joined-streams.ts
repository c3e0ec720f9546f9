// JoinedStreams: `a.join(b).where(k1).equalTo(k2).window(assigner).apply(fn)`, an inner join per key and window.
import { notPromise, rejectAsyncFunction, rejectPromiseResult } from '../../core/async-function-guard.ts';
import type { DataStream } from '../data-stream.ts';
import { ConfigurationError } from '../../core/errors.ts';
import type { Collector, KeySelector } from '../../core/functions.ts';
import type { Evictor } from '../../windowing/evictor.ts';
import type { Trigger } from '../../windowing/trigger.ts';
import type { WindowAssigner } from '../../windowing/window-assigner.ts';
import type { Window } from '../../windowing/window.ts';
import { CoGroupedStreams, type CoGroupWithWindow } from './co-grouped-streams.ts';
import type { FlatJoinFunction, JoinFunction } from '../../core/join-functions.ts';
import type { TaggedUnion } from './tagged-union.ts';

/**
 * Two streams joined per key and window, as Flink's `JoinedStreams`: every pair of one element of each input with
 * equal keys in the same window is passed to the join function (an inner join; a window with elements of only
 * one input produces nothing). Built on {@link CoGroupedStreams}, so the pairs of a window come out when it
 * fires, first-input element by first-input element, each with every second-input element in arrival order.
 *
 * @example
 * orders.join(payments)
 *   .where((o) => o.id)
 *   .equalTo((p) => p.orderId)
 *   .window(TumblingEventTimeWindows.of(60_000))
 *   .apply((o, p) => ({ id: o.id, paid: p.amount }));
 */
export class JoinedStreams<T1, T2> {
  constructor(
    readonly first: DataStream<T1>,
    readonly second: DataStream<T2>,
  ) {}

  /** The key of the first input's elements. */
  where<K>(keySelector: KeySelector<T1, K>): JoinWhere<T1, T2, K> {
    return new JoinWhere<T1, T2, K>(this.first, this.second, keySelector);
  }
}

/** `join(...).where(k1)`: waits for the second input's key. */
export class JoinWhere<T1, T2, K> {
  constructor(
    private readonly first: DataStream<T1>,
    private readonly second: DataStream<T2>,
    private readonly key1: KeySelector<T1, K>,
  ) {}

  /** The key of the second input's elements. */
  equalTo(keySelector: KeySelector<T2, K>): JoinEqualTo<T1, T2, K> {
    return new JoinEqualTo<T1, T2, K>(this.first, this.second, this.key1, keySelector);
  }
}

/** `join(...).where(k1).equalTo(k2)`: waits for the window assigner. */
export class JoinEqualTo<T1, T2, K> {
  constructor(
    private readonly first: DataStream<T1>,
    private readonly second: DataStream<T2>,
    private readonly key1: KeySelector<T1, K>,
    private readonly key2: KeySelector<T2, K>,
  ) {}

  /** The windows both inputs are cut into. */
  window<W extends Window>(assigner: WindowAssigner<TaggedUnion<T1, T2>, W>): JoinWithWindow<T1, T2, K, W> {
    const coGroup = new CoGroupedStreams(this.first, this.second)
      .where(this.key1)
      .equalTo(this.key2)
      .window(assigner);
    return new JoinWithWindow<T1, T2, K, W>(coGroup);
  }
}

/** A configured window join: optionally set trigger, evictor and allowed lateness, then `apply`. */
export class JoinWithWindow<T1, T2, K, W extends Window> {
  constructor(private readonly coGroup: CoGroupWithWindow<T1, T2, K, W>) {}

  trigger(trigger: Trigger<TaggedUnion<T1, T2>, W>): this {
    this.coGroup.trigger(trigger);
    return this;
  }

  evictor(evictor: Evictor<TaggedUnion<T1, T2>, W>): this {
    this.coGroup.evictor(evictor);
    return this;
  }

  allowedLateness(lateness: number): this {
    this.coGroup.allowedLateness(lateness);
    return this;
  }

  /**
   * Joins every pair with a JoinFunction `(first, second) => result`, or with a FlatJoinFunction
   * `(first, second, out) => void` emitting any number of results. A function that declares a third parameter
   * is a FlatJoinFunction; give its result type explicitly (`apply<R>(...)`), as nothing else names it.
   */
  apply<R>(fn: (first: T1, second: T2, out: Collector<R>) => R | void, name = 'Window Join'): DataStream<R> {
    if (typeof fn !== 'function') {
      throw new ConfigurationError(
        'apply() needs a JoinFunction (first, second) => result or a FlatJoinFunction (first, second, out) => void',
      );
    }
    rejectAsyncFunction(fn, 'apply()', name);
    if (fn.length >= 3) {
      const flat = fn as FlatJoinFunction<T1, T2, R>;
      return this.coGroup.apply<R>((firsts, seconds, out: Collector<R>) => {
        for (const a of firsts)
          for (const b of seconds) rejectPromiseResult(flat(a, b, out), 'join function');
      }, name);
    }
    const join = fn as JoinFunction<T1, T2, R>;
    return this.coGroup.apply<R>((firsts, seconds, out: Collector<R>) => {
      for (const a of firsts) for (const b of seconds) out.collect(notPromise(join(a, b), 'join function'));
    }, name);
  }
}
