// Pattern: the FlinkCEP pattern DSL — stages joined by contiguity, with conditions, quantifiers and a time window.
import { AfterMatchSkipStrategy } from '../nfa/after-match-skip-strategy.ts';
import {
  andCondition,
  orCondition,
  trueCondition,
  type Condition,
  type IterativeCondition,
} from './conditions.ts';
import { MalformedPatternError } from './malformed-pattern-error.ts';
import { Quantifier, Times, type ConsumingStrategy } from './quantifier.ts';
import type { WithinType } from './within-type.ts';

/** The stages of a pattern with none yet (the type `{}`, named so it reads as what it means). */
export type NoStages = Record<never, never>;

/** Flattens an intersection for readable hover types. */
export type Simplify<O> = { [K in keyof O]: O[K] } & NoStages;

/** The match a pattern produces: each positive stage's name mapped to the events it accepted, in order. */
export type PatternMatch<P> =
  P extends Pattern<any, any, infer Prev, infer Cur> ? Simplify<Prev & Cur> : never;

/** Options of the looping quantifiers: the largest gap allowed between two consecutive events of the stage. */
export interface QuantifierOptions {
  /** Milliseconds between the previous and the current event of the repetition (Flink's `windowTime` argument). */
  windowTime?: number;
}

/** A type guard or a class: how `subtype` narrows a stage (Flink's `subtype(Class)`). */
export type SubtypeSelector<F, S extends F> =
  ((value: F) => value is S) | (abstract new (...args: any[]) => S);

/**
 * A pattern: a chain of named stages. Each stage has a condition (`where` / `or`), a quantifier (`oneOrMore`,
 * `times`, `optional`, ...) and a contiguity towards the stage before it (`next` strict, `followedBy` relaxed,
 * `followedByAny` non-deterministic relaxed, `notNext` / `notFollowedBy` negative). As in Flink, the builder methods
 * configure the current stage and return it; `next`/`followedBy`/... start a new stage.
 *
 * The type parameters collect the stage names, so the match a pattern produces is typed:
 * `match.login` is `Click[]`. `T` is the event type, `F` the current stage's (sub)type.
 *
 * @example
 * const p = Pattern.begin<Click, 'login'>('login').where((c) => c.kind === 'login')
 *   .followedBy('buy').where((c) => c.kind === 'buy')
 *   .within(Time.minutes(5));
 * // PatternMatch<typeof p> is { login: Click[]; buy: Click[] }
 */
export class Pattern<T, F extends T = T, Prev extends object = NoStages, Cur extends object = NoStages> {
  /** Type-only markers carrying the match type. */
  declare readonly __prev?: Prev;
  declare readonly __cur?: Cur;
  declare readonly __stage?: F;

  /** @internal */ protected conditionValue: Condition<T> | undefined = undefined;
  /** @internal */ protected untilConditionValue: Condition<T> | undefined = undefined;
  /** @internal */ protected quantifierValue: Quantifier;
  /** @internal */ protected timesValue: Times | undefined = undefined;
  private readonly windowTimes = new Map<WithinType, number>();

  /** @internal Use {@link Pattern.begin} and the stage methods. */
  constructor(
    readonly name: string,
    readonly previous: Pattern<T, any, any, any> | undefined,
    consumingStrategy: ConsumingStrategy,
    readonly afterMatchSkipStrategy: AfterMatchSkipStrategy,
  ) {
    this.quantifierValue = Quantifier.one(consumingStrategy);
  }

  /**
   * Starts a pattern with a stage (or with a group pattern). To have the first stage's name typed as well, give it
   * as the second type argument: `Pattern.begin<Ev, 'start'>('start')`.
   *
   * @example
   * Pattern.begin<Ev>('start', AfterMatchSkipStrategy.skipPastLastEvent()).where((e) => e.name === 'a')
   */
  static begin<T, const N extends string = string>(
    name: N,
    afterMatchSkipStrategy?: AfterMatchSkipStrategy,
  ): Pattern<T, T, NoStages, { [K in N]: T[] }>;
  static begin<T, GP extends Pattern<T, any, any, any>>(
    group: GP,
    afterMatchSkipStrategy?: AfterMatchSkipStrategy,
  ): GroupPattern<T, NoStages, PatternMatch<GP>>;
  static begin<T>(
    nameOrGroup: string | Pattern<T, any, any, any>,
    skip?: AfterMatchSkipStrategy,
  ): Pattern<T, any, any, any> {
    const strategy = skip ?? AfterMatchSkipStrategy.noSkip();
    if (typeof nameOrGroup === 'string') {
      return new Pattern<T>(checkName(nameOrGroup), undefined, 'STRICT', strategy);
    }
    return new GroupPattern<T>(undefined, nameOrGroup, 'STRICT', strategy);
  }

  /** The stage's condition; `true` when none was given. */
  getCondition(): Condition<T> {
    return this.conditionValue ?? trueCondition;
  }

  getUntilCondition(): Condition<T> | undefined {
    return this.untilConditionValue;
  }

  getQuantifier(): Quantifier {
    return this.quantifierValue;
  }

  getTimes(): Times | undefined {
    return this.timesValue;
  }

  /** The stage's `within` interval of the given type, or undefined. */
  getWindowSize(withinType: WithinType = 'FIRST_AND_LAST'): number | undefined {
    return this.windowTimes.get(withinType);
  }

  /**
   * Adds a condition, AND-ed with the ones before. A one-argument function is a simple condition; with a second
   * argument it is iterative and sees the events matched so far.
   *
   * @example
   * .where((e) => e.price > 10)
   */
  where(condition: IterativeCondition<T, F>): this {
    checkFunction(condition);
    const c = condition as Condition<T>;
    this.conditionValue = this.conditionValue === undefined ? c : andCondition(this.conditionValue, c);
    return this;
  }

  /** Adds a condition, OR-ed with the ones before. */
  or(condition: IterativeCondition<T, F>): this {
    checkFunction(condition);
    const c = condition as Condition<T>;
    this.conditionValue = this.conditionValue === undefined ? c : orCondition(this.conditionValue, c);
    return this;
  }

  /**
   * Accepts only events of a subtype: give a class (an `instanceof` test) or a type guard. The stage's events are
   * then typed as the subtype.
   *
   * @example
   * .followedBy('middle').subtype(SubEvent)          // class
   * .followedBy('middle').subtype(isSubEvent)        // (e: Ev) => e is SubEvent
   */
  subtype<S extends F>(selector: SubtypeSelector<F, S>): Pattern<T, S, Prev, { [K in keyof Cur]: S[] }> {
    checkFunction(selector);
    const test: Condition<T> = isClass(selector)
      ? (value) => value instanceof (selector as abstract new (...args: any[]) => S)
      : (value) => (selector as (value: F) => value is S)(value as F);
    this.conditionValue = this.conditionValue === undefined ? test : andCondition(this.conditionValue, test);
    return this as unknown as Pattern<T, S, Prev, { [K in keyof Cur]: S[] }>;
  }

  /**
   * Stops a looping stage: once an event satisfies `condition`, the loop takes no more events (the stopping event
   * itself is not taken).
   */
  until(condition: IterativeCondition<T, F>): this {
    checkFunction(condition);
    if (this.untilConditionValue !== undefined)
      throw new MalformedPatternError('Only one until condition can be applied.');
    if (!this.quantifierValue.hasProperty('LOOPING')) {
      throw new MalformedPatternError('The until condition is only applicable to looping states.');
    }
    this.untilConditionValue = condition as Condition<T>;
    return this;
  }

  /**
   * The time the match must complete in. `FIRST_AND_LAST` (default): between the first and the last event of the
   * match; several `within`s in one pattern: the smallest wins. `PREVIOUS_AND_CURRENT`: between the previous
   * stage's event and this stage's event. Partial matches that exceed it time out.
   *
   * @example
   * .followedBy('end').within(Time.minutes(1))
   */
  within(windowTime: number, withinType: WithinType = 'FIRST_AND_LAST'): this {
    if (typeof windowTime !== 'number' || !(windowTime >= 0)) {
      throw new MalformedPatternError(
        `within needs a window time of 0 or more milliseconds, got ${String(windowTime)}`,
      );
    }
    this.windowTimes.set(withinType, windowTime);
    return this;
  }

  /** Appends a stage that must match the very next event (strict contiguity). */
  next<const N extends string>(name: N): Pattern<T, T, Prev & Cur, { [K in N]: T[] }>;
  next<GP extends Pattern<T, any, any, any>>(group: GP): GroupPattern<T, Prev & Cur, PatternMatch<GP>>;
  next(nameOrGroup: string | Pattern<T, any, any, any>): Pattern<T, any, any, any> {
    return this.append(nameOrGroup, 'STRICT');
  }

  /** Appends a stage; events that do not match it in between are skipped (relaxed contiguity). */
  followedBy<const N extends string>(name: N): Pattern<T, T, Prev & Cur, { [K in N]: T[] }>;
  followedBy<GP extends Pattern<T, any, any, any>>(group: GP): GroupPattern<T, Prev & Cur, PatternMatch<GP>>;
  followedBy(nameOrGroup: string | Pattern<T, any, any, any>): Pattern<T, any, any, any> {
    return this.append(nameOrGroup, 'SKIP_TILL_NEXT');
  }

  /** Appends a stage; every later matching event starts a match of its own (non-deterministic relaxed contiguity). */
  followedByAny<const N extends string>(name: N): Pattern<T, T, Prev & Cur, { [K in N]: T[] }>;
  followedByAny<GP extends Pattern<T, any, any, any>>(
    group: GP,
  ): GroupPattern<T, Prev & Cur, PatternMatch<GP>>;
  followedByAny(nameOrGroup: string | Pattern<T, any, any, any>): Pattern<T, any, any, any> {
    return this.append(nameOrGroup, 'SKIP_TILL_ANY');
  }

  /** Appends a negative stage: the next event must not match it. Its events never appear in a match. */
  notNext(name: string): Pattern<T, T, Prev & Cur, NoStages> {
    this.checkNoOptionalBeforeNot();
    return new Pattern<T>(checkName(name), this, 'NOT_NEXT', this.afterMatchSkipStrategy) as any;
  }

  /**
   * Appends a negative stage: no matching event may occur between the stages around it. At the end of a pattern it
   * needs a `within` (the match is emitted once the window passes without such an event).
   */
  notFollowedBy(name: string): Pattern<T, T, Prev & Cur, NoStages> {
    this.checkNoOptionalBeforeNot();
    return new Pattern<T>(checkName(name), this, 'NOT_FOLLOW', this.afterMatchSkipStrategy) as any;
  }

  /** Makes the stage optional: the match may skip it (its name is then absent from the match). */
  optional(): Pattern<T, F, Prev, Partial<Cur>> {
    if (this.previous !== undefined && this.previous.getQuantifier().hasProperty('GREEDY')) {
      throw new MalformedPatternError('Optional pattern cannot be preceded by greedy pattern');
    }
    this.quantifierValue.optional();
    return this as any;
  }

  /**
   * The stage takes one or more events. With relaxed inner contiguity (the default), `A1 A2 B` for
   * `a.oneOrMore().followedBy(b)` yields `{A1 B}` and `{A1 A2 B}`.
   *
   * @example
   * .followedBy('middle').where(isA).oneOrMore({ windowTime: Time.seconds(5) })
   */
  oneOrMore(options: QuantifierOptions = {}): this {
    this.checkNoNotPattern();
    this.checkQuantifierNotApplied();
    this.quantifierValue = Quantifier.looping(this.quantifierValue.consumingStrategy);
    this.timesValue = Times.of(1, 1, checkWindow(options.windowTime));
    return this;
  }

  /**
   * The stage takes exactly `times` events, or between `from` and `to` (`times(0, n)` makes it optional).
   *
   * @example
   * .next('b').times(3)
   * .next('b').times(2, 4)
   * .next('b').times(3, { windowTime: 1000 })
   */
  times(times: number, options?: QuantifierOptions): this;
  times(from: number, to: number, options?: QuantifierOptions): this;
  times(first: number, second?: number | QuantifierOptions, third?: QuantifierOptions): this {
    this.checkNoNotPattern();
    this.checkQuantifierNotApplied();
    if (typeof second === 'number') {
      let from = first;
      this.quantifierValue = Quantifier.times(this.quantifierValue.consumingStrategy);
      if (from === 0) {
        this.quantifierValue.optional();
        from = 1;
      }
      this.timesValue = Times.of(from, second, checkWindow(third?.windowTime));
    } else {
      if (!(first > 0)) throw new MalformedPatternError('You should give a positive number greater than 0.');
      this.quantifierValue = Quantifier.times(this.quantifierValue.consumingStrategy);
      this.timesValue = Times.of(first, first, checkWindow(second?.windowTime));
    }
    return this;
  }

  /** The stage takes `times` events or more. */
  timesOrMore(times: number, options: QuantifierOptions = {}): this {
    this.checkNoNotPattern();
    this.checkQuantifierNotApplied();
    this.quantifierValue = Quantifier.looping(this.quantifierValue.consumingStrategy);
    this.timesValue = Times.of(times, times, checkWindow(options.windowTime));
    return this;
  }

  /** A looping stage takes as many events as it can before the next stage may start. */
  greedy(): this {
    this.checkNoNotPattern();
    if (this instanceof GroupPattern)
      throw new MalformedPatternError('Option not applicable to group pattern');
    this.quantifierValue.greedy();
    return this;
  }

  /**
   * For looping and times stages: every combination of matching events is tried, like `followedByAny` between the
   * stage's own events (`A1 A2 B` then also yields `{A2 B}`).
   */
  allowCombinations(): this {
    this.quantifierValue.combinations();
    return this;
  }

  /** For looping and times stages: the stage's events must be consecutive (any other event ends the loop). */
  consecutive(): this {
    this.quantifierValue.consecutive();
    return this;
  }

  toString(): string {
    return `Pattern{name='${this.name}', quantifier=${this.quantifierValue}${this.timesValue ? `, times=${this.timesValue}` : ''}}`;
  }

  private append(
    nameOrGroup: string | Pattern<T, any, any, any>,
    strategy: ConsumingStrategy,
  ): Pattern<T, any, any, any> {
    if (typeof nameOrGroup === 'string') {
      return new Pattern<T>(checkName(nameOrGroup), this, strategy, this.afterMatchSkipStrategy);
    }
    return new GroupPattern<T>(this, nameOrGroup, strategy, this.afterMatchSkipStrategy);
  }

  private checkNoNotPattern(): void {
    const s = this.quantifierValue.consumingStrategy;
    if (s === 'NOT_FOLLOW' || s === 'NOT_NEXT')
      throw new MalformedPatternError('Option not applicable to NOT pattern');
  }

  private checkQuantifierNotApplied(): void {
    if (!this.quantifierValue.hasProperty('SINGLE')) {
      throw new MalformedPatternError(
        `Already applied quantifier to this Pattern. Current quantifier is: ${this.quantifierValue}`,
      );
    }
  }

  private checkNoOptionalBeforeNot(): void {
    if (this.quantifierValue.hasProperty('OPTIONAL')) {
      throw new MalformedPatternError(
        'Specifying a pattern with an optional path to NOT condition is not supported yet. ' +
          'You can simulate such pattern with two independent patterns, one with and the other without the optional part.',
      );
    }
  }
}

/**
 * A group pattern: a whole pattern used as one stage, so quantifiers apply to the sequence
 * (Flink's `GroupPattern`). Conditions go on the inner stages, not on the group.
 *
 * @example
 * Pattern.begin<Ev>('start').where(isC)
 *   .followedBy(Pattern.begin<Ev>('a').where(isA).followedBy('b').where(isB)).oneOrMore()
 *   .followedBy('end').where(isE)
 */
export class GroupPattern<T, Prev extends object = NoStages, Cur extends object = NoStages> extends Pattern<
  T,
  T,
  Prev,
  Cur
> {
  /** @internal */
  constructor(
    previous: Pattern<T, any, any, any> | undefined,
    readonly rawPattern: Pattern<T, any, any, any>,
    consumingStrategy: ConsumingStrategy,
    afterMatchSkipStrategy: AfterMatchSkipStrategy,
  ) {
    super('GroupPattern', previous, consumingStrategy, afterMatchSkipStrategy);
    if (!(rawPattern instanceof Pattern)) throw new MalformedPatternError('A group pattern needs a Pattern');
  }

  override where(_condition: IterativeCondition<T, T>): this {
    throw new MalformedPatternError('GroupPattern does not support where clause.');
  }

  override or(_condition: IterativeCondition<T, T>): this {
    throw new MalformedPatternError('GroupPattern does not support or clause.');
  }

  override subtype<S extends T>(_selector: SubtypeSelector<T, S>): never {
    throw new MalformedPatternError('GroupPattern does not support subtype clause.');
  }
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new MalformedPatternError(`A pattern stage needs a non-empty name, got ${String(name)}`);
  }
  // Flink derives a state's stage name by cutting its internal name at ':' (NFAStateNameHandler), so a ':' in a
  // user name would silently file its events under a shorter name. Weir rejects it instead.
  if (name.includes(':'))
    throw new MalformedPatternError(`Pattern stage name '${name}' must not contain ':'`);
  return name;
}

function checkFunction(f: unknown): void {
  if (typeof f !== 'function') throw new MalformedPatternError('The condition cannot be null.');
}

function checkWindow(windowTime: number | undefined): number | undefined {
  if (windowTime === undefined) return undefined;
  if (typeof windowTime !== 'number' || !(windowTime >= 0)) {
    throw new MalformedPatternError(`windowTime must be 0 or more milliseconds, got ${String(windowTime)}`);
  }
  return windowTime;
}

function isClass(f: object): boolean {
  // `class` syntax means an instanceof test; any other function is taken as a type guard.
  return /^class[\s{]/.test(Function.prototype.toString.call(f));
}
