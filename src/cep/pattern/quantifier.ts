// Quantifier: how many events a pattern stage takes and how strictly they must follow each other (Flink's Quantifier).
import { MalformedPatternError } from './malformed-pattern-error.ts';

/**
 * How a stage relates to the events before it (Flink's `Quantifier.ConsumingStrategy`).
 * - `STRICT`: `next` — the very next event must match.
 * - `SKIP_TILL_NEXT`: `followedBy` — non-matching events in between are ignored; the first match is taken.
 * - `SKIP_TILL_ANY`: `followedByAny` — every later match starts its own branch.
 * - `NOT_NEXT` / `NOT_FOLLOW`: `notNext` / `notFollowedBy` — negative stages.
 */
export type ConsumingStrategy = 'STRICT' | 'SKIP_TILL_NEXT' | 'SKIP_TILL_ANY' | 'NOT_FOLLOW' | 'NOT_NEXT';

/** The properties a quantifier can carry (Flink's `Quantifier.QuantifierProperty`). */
export type QuantifierProperty = 'SINGLE' | 'LOOPING' | 'TIMES' | 'OPTIONAL' | 'GREEDY';

/**
 * The repetition bounds of a `times` / looping stage and the optional maximum gap between two consecutive events
 * of the repetition (Flink's `Quantifier.Times`).
 */
export class Times {
  private constructor(
    readonly from: number,
    readonly to: number,
    readonly windowTime: number | undefined,
  ) {
    if (!(from > 0)) throw new MalformedPatternError('The from should be a positive number greater than 0.');
    if (!(to >= from))
      throw new MalformedPatternError(`The to should be a number greater than or equal to from: ${from}.`);
  }

  static of(from: number, to: number, windowTime?: number): Times {
    return new Times(from, to, windowTime);
  }

  toString(): string {
    return `Times{from=${this.from}, to=${this.to}${this.windowTime !== undefined ? `, windowTime=${this.windowTime}` : ''}}`;
  }
}

/**
 * A stage's quantifier: its consuming strategy towards the previous stage, the strategy between its own repeated
 * events (`innerConsumingStrategy`: relaxed by default, strict with `consecutive()`, any with
 * `allowCombinations()`) and its properties. Mirrors Flink's checks and messages.
 */
export class Quantifier {
  private readonly properties: Set<QuantifierProperty>;
  private innerStrategy: ConsumingStrategy = 'SKIP_TILL_NEXT';

  private constructor(
    readonly consumingStrategy: ConsumingStrategy,
    first: QuantifierProperty,
  ) {
    this.properties = new Set([first]);
  }

  static one(consumingStrategy: ConsumingStrategy): Quantifier {
    return new Quantifier(consumingStrategy, 'SINGLE');
  }

  static looping(consumingStrategy: ConsumingStrategy): Quantifier {
    return new Quantifier(consumingStrategy, 'LOOPING');
  }

  static times(consumingStrategy: ConsumingStrategy): Quantifier {
    return new Quantifier(consumingStrategy, 'TIMES');
  }

  hasProperty(property: QuantifierProperty): boolean {
    return this.properties.has(property);
  }

  get innerConsumingStrategy(): ConsumingStrategy {
    return this.innerStrategy;
  }

  combinations(): void {
    check(!this.hasProperty('SINGLE'), `Combinations not applicable to ${this}!`);
    check(this.innerStrategy !== 'STRICT', 'You can apply either combinations or consecutive, not both!');
    check(this.innerStrategy !== 'SKIP_TILL_ANY', 'Combinations already applied!');
    this.innerStrategy = 'SKIP_TILL_ANY';
  }

  consecutive(): void {
    check(this.hasProperty('LOOPING') || this.hasProperty('TIMES'), `Consecutive not applicable to ${this}!`);
    check(
      this.innerStrategy !== 'SKIP_TILL_ANY',
      'You can apply either combinations or consecutive, not both!',
    );
    check(this.innerStrategy !== 'STRICT', 'Consecutive already applied!');
    this.innerStrategy = 'STRICT';
  }

  optional(): void {
    check(!this.hasProperty('OPTIONAL'), 'Optional already applied!');
    check(
      !(this.consumingStrategy === 'NOT_NEXT' || this.consumingStrategy === 'NOT_FOLLOW'),
      'NOT pattern cannot be optional',
    );
    this.properties.add('OPTIONAL');
  }

  greedy(): void {
    check(!this.hasProperty('SINGLE'), `Greedy not applicable to ${this}!`);
    check(!this.hasProperty('GREEDY'), 'Greedy already applied!');
    this.properties.add('GREEDY');
  }

  toString(): string {
    return `Quantifier{properties=[${[...this.properties].join(', ')}], consumingStrategy=${this.consumingStrategy}, innerConsumingStrategy=${this.innerStrategy}}`;
  }
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new MalformedPatternError(message);
}
