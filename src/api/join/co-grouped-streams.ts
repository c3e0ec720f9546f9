// CoGroupedStreams: `a.coGroup(b).where(k1).equalTo(k2).window(assigner).apply(fn)`, a windowed co-group.
import { rejectAsyncFunction } from '../../core/async-function-guard.ts';
import type { DataStream } from '../data-stream.ts';
import { ConfigurationError } from '../../core/errors.ts';
import type { Collector, KeySelector } from '../../core/functions.ts';
import type { Evictor } from '../../windowing/evictor.ts';
import type { Trigger } from '../../windowing/trigger.ts';
import type { WindowAssigner } from '../../windowing/window-assigner.ts';
import type { Window } from '../../windowing/window.ts';
import type { CoGroupFunction } from '../../core/join-functions.ts';
import type { TaggedUnion } from './tagged-union.ts';
import { RecordType } from '../../core/record-type.ts';
import { TaggedUnionType } from '../../core/tagged-union-type.ts';

/**
 * Two streams grouped by key and window, as Flink's `CoGroupedStreams`: for every key and window, the
 * CoGroupFunction receives the elements of both inputs that fell into it, either side possibly empty. Like Flink,
 * it runs as a union of the two inputs (tagged by side) into one keyed window operator, so the window's trigger,
 * evictor and allowed lateness work as on any window, and results carry the window's max timestamp.
 *
 * @example
 * clicks.coGroup(views)
 *   .where((c) => c.page)
 *   .equalTo((v) => v.page)
 *   .window(TumblingEventTimeWindows.of(60_000))
 *   .apply((cs, vs, out) => out.collect({ clicks: cs.length, views: vs.length }));
 */
export class CoGroupedStreams<T1, T2> {
  constructor(
    readonly first: DataStream<T1>,
    readonly second: DataStream<T2>,
  ) {}

  /** The key of the first input's elements. */
  where<K>(keySelector: KeySelector<T1, K>): CoGroupWhere<T1, T2, K> {
    requireKeySelector(keySelector, 'where');
    return new CoGroupWhere<T1, T2, K>(this.first, this.second, keySelector);
  }
}

/** `coGroup(...).where(k1)`: waits for the second input's key. */
export class CoGroupWhere<T1, T2, K> {
  constructor(
    private readonly first: DataStream<T1>,
    private readonly second: DataStream<T2>,
    private readonly key1: KeySelector<T1, K>,
  ) {}

  /** The key of the second input's elements; must equal the first input's key for elements that belong together. */
  equalTo(keySelector: KeySelector<T2, K>): CoGroupEqualTo<T1, T2, K> {
    requireKeySelector(keySelector, 'equalTo');
    return new CoGroupEqualTo<T1, T2, K>(this.first, this.second, this.key1, keySelector);
  }
}

/** `coGroup(...).where(k1).equalTo(k2)`: waits for the window assigner. */
export class CoGroupEqualTo<T1, T2, K> {
  constructor(
    private readonly first: DataStream<T1>,
    private readonly second: DataStream<T2>,
    private readonly key1: KeySelector<T1, K>,
    private readonly key2: KeySelector<T2, K>,
  ) {}

  /** The windows both inputs are cut into. */
  window<W extends Window>(
    assigner: WindowAssigner<TaggedUnion<T1, T2>, W>,
  ): CoGroupWithWindow<T1, T2, K, W> {
    return new CoGroupWithWindow<T1, T2, K, W>(this.first, this.second, this.key1, this.key2, assigner);
  }
}

/** A configured co-group: optionally set trigger, evictor and allowed lateness, then `apply`. */
export class CoGroupWithWindow<T1, T2, K, W extends Window> {
  private windowTrigger: Trigger<TaggedUnion<T1, T2>, W> | undefined = undefined;
  private windowEvictor: Evictor<TaggedUnion<T1, T2>, W> | undefined = undefined;
  private lateness = 0;

  constructor(
    private readonly first: DataStream<T1>,
    private readonly second: DataStream<T2>,
    private readonly key1: KeySelector<T1, K>,
    private readonly key2: KeySelector<T2, K>,
    private readonly assigner: WindowAssigner<TaggedUnion<T1, T2>, W>,
  ) {}

  /** Replaces the assigner's default trigger. */
  trigger(trigger: Trigger<TaggedUnion<T1, T2>, W>): this {
    this.windowTrigger = trigger;
    return this;
  }

  /** Removes elements of both inputs before and/or after the function runs. */
  evictor(evictor: Evictor<TaggedUnion<T1, T2>, W>): this {
    this.windowEvictor = evictor;
    return this;
  }

  /** Keeps each window `lateness` ms past its end, so late elements fire it again. */
  allowedLateness(lateness: number): this {
    this.lateness = lateness;
    return this;
  }

  /** Runs `fn` once per key and window with the elements of both inputs, in arrival order. */
  apply<R>(fn: CoGroupFunction<T1, T2, R>, name = 'CoGroup'): DataStream<R> {
    if (typeof fn !== 'function') {
      throw new ConfigurationError('apply() needs a CoGroupFunction (first, second, out) => void');
    }
    rejectAsyncFunction(fn, 'apply()', name);
    const key1 = this.key1;
    const key2 = this.key2;
    const one = this.first.map((value): TaggedUnion<T1, T2> => ({ input: 1, value }), `${name} Input 1`);
    const two = this.second.map((value): TaggedUnion<T1, T2> => ({ input: 2, value }), `${name} Input 2`);
    // With both inputs' records declared, the tagged elements cross threads typed too (Flink's UnionSerializer: the
    // tag, then each input's own serializer); otherwise they go through msgpackr, as undeclared records do.
    const type1 = this.first.transformation.outputType;
    const type2 = this.second.transformation.outputType;
    if (type1 instanceof RecordType && type2 instanceof RecordType) {
      const union = new TaggedUnionType(type1, type2);
      one.transformation.outputType = union;
      two.transformation.outputType = union;
    }
    let windowed = one
      .union(two)
      .keyBy((u): K => (u.input === 1 ? key1(u.value) : key2(u.value)))
      .window(this.assigner);
    if (this.windowTrigger !== undefined) windowed = windowed.trigger(this.windowTrigger);
    if (this.windowEvictor !== undefined) windowed = windowed.evictor(this.windowEvictor);
    windowed = windowed.allowedLateness(this.lateness);
    return windowed
      .apply((_key: K, _window: W, elements: Iterable<TaggedUnion<T1, T2>>, out: Collector<R>) => {
        // Flink's CoGroupWindowFunction: split the window's elements back into their inputs.
        const firsts: T1[] = [];
        const seconds: T2[] = [];
        for (const u of elements) {
          if (u.input === 1) firsts.push(u.value);
          else seconds.push(u.value);
        }
        fn(firsts, seconds, out);
      })
      .name(name);
  }
}

function requireKeySelector(fn: unknown, what: string): void {
  if (typeof fn !== 'function') throw new ConfigurationError(`${what}() needs a key selector function`);
}
