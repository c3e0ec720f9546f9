// The pattern builder: stage chain, condition composition, quantifier settings and every malformed-pattern check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Event, SubEvent } from '../../../test/support/nfa-test-harness.ts';
import type { ConditionContext } from './conditions.ts';
import { MalformedPatternError } from './malformed-pattern-error.ts';
import { GroupPattern, Pattern } from './pattern.ts';

/** Asserts that `build` throws a MalformedPatternError with exactly `message`. */
function throwsMalformed(build: () => unknown, message: string): void {
  assert.throws(build, (e: unknown) => {
    assert.ok(e instanceof MalformedPatternError, `not a MalformedPatternError: ${String(e)}`);
    assert.equal(e.message, message);
    return true;
  });
}

const noContext: ConditionContext<Event> = {
  getEventsForPattern: () => [],
  timestamp: () => 0,
  currentProcessingTime: () => 0,
};
const ev = (name: string, price = 1) => new Event(1, name, price);

describe('Pattern builder', () => {
  it('chains stages with their contiguity: begin and next strict, followedBy, followedByAny, notNext, notFollowedBy', () => {
    const p = Pattern.begin<Event>('start')
      .next('n')
      .followedBy('f')
      .followedByAny('any')
      .notNext('nn')
      .notFollowedBy('nf');
    const chain: [string, string][] = [];
    for (let s: Pattern<Event, any, any, any> | undefined = p; s !== undefined; s = s.previous) {
      chain.unshift([s.name, s.getQuantifier().consumingStrategy]);
    }
    assert.deepEqual(chain, [
      ['start', 'STRICT'],
      ['n', 'STRICT'],
      ['f', 'SKIP_TILL_NEXT'],
      ['any', 'SKIP_TILL_ANY'],
      ['nn', 'NOT_NEXT'],
      ['nf', 'NOT_FOLLOW'],
    ]);
  });

  it('begins with a group pattern: a strict GroupPattern holding the inner pattern', () => {
    const inner = Pattern.begin<Event>('a').followedBy('b');
    const p = Pattern.begin<Event, typeof inner>(inner);
    assert.ok(p instanceof GroupPattern);
    assert.equal(p.name, 'GroupPattern');
    assert.equal(p.rawPattern, inner);
    assert.equal(p.previous, undefined);
    assert.equal(p.getQuantifier().consumingStrategy, 'STRICT');
    const next = Pattern.begin<Event>('s').next(Pattern.begin<Event>('x'));
    assert.ok(next instanceof GroupPattern);
    assert.equal(next.getQuantifier().consumingStrategy, 'STRICT');
  });

  it('where ANDs, or ORs, subtype ANDs a type test with the conditions before it', () => {
    const cond = (p: Pattern<Event, any, any, any>) => (e: Event) => p.getCondition()(e, noContext);
    assert.equal(cond(Pattern.begin<Event>('s'))(ev('x')), true, 'no condition: true');
    const and = cond(
      Pattern.begin<Event>('s')
        .where((e) => e.price > 1)
        .where((e) => e.price < 5),
    );
    assert.deepEqual(
      [0, 2, 7].map((price) => and(ev('x', price))),
      [false, true, false],
    );
    const or = cond(
      Pattern.begin<Event>('s')
        .where((e) => e.price < 1)
        .or((e) => e.price > 5),
    );
    assert.deepEqual(
      [0, 2, 7].map((price) => or(ev('x', price))),
      [true, false, true],
    );
    const orFirst = cond(Pattern.begin<Event>('s').or((e) => e.price > 5));
    assert.deepEqual(
      [2, 7].map((price) => orFirst(ev('x', price))),
      [false, true],
    );
    const sub = cond(
      Pattern.begin<Event>('s')
        .where((e) => e.price > 1)
        .subtype(SubEvent),
    );
    assert.deepEqual(
      [new SubEvent(1, 'x', 2, 1), new SubEvent(1, 'x', 0, 1), new Event(1, 'x', 2)].map(sub),
      [true, false, false],
    );
  });

  it('subtype takes a class as an instanceof test and any other function as a type guard', () => {
    // The guard's source mentions "subclass of": only a function that starts with `class` is a class.
    const isHeavy = (e: Event): e is SubEvent => e.name === 'subclass of event';
    const guard = Pattern.begin<Event>('s').subtype(isHeavy).getCondition();
    assert.equal(guard(new Event(1, 'subclass of event', 1), noContext), true);
    assert.equal(guard(new SubEvent(1, 'other', 1, 1), noContext), false);
    const byClass = Pattern.begin<Event>('s').subtype(SubEvent).getCondition();
    assert.equal(byClass(new SubEvent(1, 'other', 1, 1), noContext), true);
    assert.equal(byClass(new Event(1, 'subclass of event', 1), noContext), false);
  });

  it('within: the window per within type, 0 allowed, the last call per type wins', () => {
    const p = Pattern.begin<Event>('s').within(0);
    assert.equal(p.getWindowSize(), 0);
    assert.equal(p.getWindowSize('PREVIOUS_AND_CURRENT'), undefined);
    p.within(7, 'PREVIOUS_AND_CURRENT').within(9);
    assert.equal(p.getWindowSize('FIRST_AND_LAST'), 9);
    assert.equal(p.getWindowSize('PREVIOUS_AND_CURRENT'), 7);
    throwsMalformed(
      () => Pattern.begin<Event>('s').within(-1),
      'within needs a window time of 0 or more milliseconds, got -1',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').within(Number.NaN),
      'within needs a window time of 0 or more milliseconds, got NaN',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').within('5' as unknown as number),
      'within needs a window time of 0 or more milliseconds, got 5',
    );
  });

  it('quantifiers: oneOrMore, times, times(from, to), times(0, n) optional, timesOrMore, with window times', () => {
    const q = (p: Pattern<Event, any, any, any>) => [p.getQuantifier().toString(), p.getTimes()?.toString()];
    assert.deepEqual(q(Pattern.begin<Event>('s')), [
      'Quantifier{properties=[SINGLE], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_NEXT}',
      undefined,
    ]);
    assert.deepEqual(q(Pattern.begin<Event>('s').followedBy('a').oneOrMore({ windowTime: 5 })), [
      'Quantifier{properties=[LOOPING], consumingStrategy=SKIP_TILL_NEXT, innerConsumingStrategy=SKIP_TILL_NEXT}',
      'Times{from=1, to=1, windowTime=5}',
    ]);
    assert.deepEqual(q(Pattern.begin<Event>('s').times(3)), [
      'Quantifier{properties=[TIMES], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_NEXT}',
      'Times{from=3, to=3}',
    ]);
    assert.deepEqual(q(Pattern.begin<Event>('s').times(2, 2)), [
      'Quantifier{properties=[TIMES], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_NEXT}',
      'Times{from=2, to=2}',
    ]);
    assert.deepEqual(q(Pattern.begin<Event>('s').times(0, 2, { windowTime: 0 })), [
      'Quantifier{properties=[TIMES, OPTIONAL], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_NEXT}',
      'Times{from=1, to=2, windowTime=0}',
    ]);
    assert.deepEqual(q(Pattern.begin<Event>('s').times(2, { windowTime: 4 }).consecutive()), [
      'Quantifier{properties=[TIMES], consumingStrategy=STRICT, innerConsumingStrategy=STRICT}',
      'Times{from=2, to=2, windowTime=4}',
    ]);
    assert.deepEqual(q(Pattern.begin<Event>('s').timesOrMore(2).allowCombinations().greedy()), [
      'Quantifier{properties=[LOOPING, GREEDY], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_ANY}',
      'Times{from=2, to=2}',
    ]);
    assert.equal(
      Pattern.begin<Event>('s').times(2, 3).toString(),
      "Pattern{name='s', quantifier=Quantifier{properties=[TIMES], consumingStrategy=STRICT, " +
        'innerConsumingStrategy=SKIP_TILL_NEXT}, times=Times{from=2, to=3}}',
    );
    assert.equal(
      Pattern.begin<Event>('s').toString(),
      "Pattern{name='s', quantifier=Quantifier{properties=[SINGLE], consumingStrategy=STRICT, " +
        'innerConsumingStrategy=SKIP_TILL_NEXT}}',
    );
  });

  it('rejects bad quantifier arguments with Flink messages', () => {
    throwsMalformed(
      () => Pattern.begin<Event>('s').times(0),
      'You should give a positive number greater than 0.',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').times(-2),
      'You should give a positive number greater than 0.',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').times(3, 2),
      'The to should be a number greater than or equal to from: 3.',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').timesOrMore(0),
      'The from should be a positive number greater than 0.',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').oneOrMore({ windowTime: -1 }),
      'windowTime must be 0 or more milliseconds, got -1',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').times(2, { windowTime: Number.NaN }),
      'windowTime must be 0 or more milliseconds, got NaN',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').timesOrMore(2, { windowTime: '3' as unknown as number }),
      'windowTime must be 0 or more milliseconds, got 3',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').oneOrMore().times(2),
      'Already applied quantifier to this Pattern. Current quantifier is: ' +
        'Quantifier{properties=[LOOPING], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_NEXT}',
    );
  });

  it('rejects conflicting quantifier options with Flink messages', () => {
    const single =
      'Quantifier{properties=[SINGLE], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_NEXT}';
    throwsMalformed(
      () => Pattern.begin<Event>('s').allowCombinations(),
      `Combinations not applicable to ${single}!`,
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').consecutive(),
      `Consecutive not applicable to ${single}!`,
    );
    throwsMalformed(() => Pattern.begin<Event>('s').greedy(), `Greedy not applicable to ${single}!`);
    throwsMalformed(
      () => Pattern.begin<Event>('s').oneOrMore().consecutive().allowCombinations(),
      'You can apply either combinations or consecutive, not both!',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').oneOrMore().allowCombinations().consecutive(),
      'You can apply either combinations or consecutive, not both!',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').times(2).allowCombinations().allowCombinations(),
      'Combinations already applied!',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').times(2).consecutive().consecutive(),
      'Consecutive already applied!',
    );
    throwsMalformed(() => Pattern.begin<Event>('s').optional().optional(), 'Optional already applied!');
    throwsMalformed(() => Pattern.begin<Event>('s').oneOrMore().greedy().greedy(), 'Greedy already applied!');
    throwsMalformed(
      () => Pattern.begin<Event>('s').notFollowedBy('n').optional(),
      'NOT pattern cannot be optional',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').oneOrMore().greedy().followedBy('o').optional(),
      'Optional pattern cannot be preceded by greedy pattern',
    );
  });

  it('rejects options on negative stages and an optional stage before a negative one', () => {
    const notApplicable = 'Option not applicable to NOT pattern';
    throwsMalformed(() => Pattern.begin<Event>('s').notFollowedBy('n').oneOrMore(), notApplicable);
    throwsMalformed(() => Pattern.begin<Event>('s').notNext('n').times(2), notApplicable);
    throwsMalformed(() => Pattern.begin<Event>('s').notNext('n').times(1, 2), notApplicable);
    throwsMalformed(() => Pattern.begin<Event>('s').notFollowedBy('n').timesOrMore(2), notApplicable);
    throwsMalformed(() => Pattern.begin<Event>('s').notNext('n').greedy(), notApplicable);
    const optionalBeforeNot =
      'Specifying a pattern with an optional path to NOT condition is not supported yet. ' +
      'You can simulate such pattern with two independent patterns, one with and the other without the optional part.';
    throwsMalformed(() => Pattern.begin<Event>('s').optional().notNext('n'), optionalBeforeNot);
    throwsMalformed(() => Pattern.begin<Event>('s').optional().notFollowedBy('n'), optionalBeforeNot);
  });

  it('until: one per stage, looping stages only', () => {
    const stop = (e: Event) => e.name === 'stop';
    const p = Pattern.begin<Event>('s').oneOrMore().until(stop);
    assert.equal(p.getUntilCondition(), stop);
    assert.equal(Pattern.begin<Event>('s').oneOrMore().getUntilCondition(), undefined);
    throwsMalformed(
      () => Pattern.begin<Event>('s').oneOrMore().until(stop).until(stop),
      'Only one until condition can be applied.',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').times(2).until(stop),
      'The until condition is only applicable to looping states.',
    );
  });

  it('rejects missing conditions, bad stage names and conditions on a group', () => {
    const none = undefined as unknown as (e: Event) => boolean;
    for (const build of [
      () => Pattern.begin<Event>('s').where(none),
      () => Pattern.begin<Event>('s').or(none),
      () => Pattern.begin<Event>('s').subtype(none as never),
      () => Pattern.begin<Event>('s').oneOrMore().until(none),
    ]) {
      throwsMalformed(build, 'The condition cannot be null.');
    }
    throwsMalformed(() => Pattern.begin<Event>(''), 'A pattern stage needs a non-empty name, got ');
    throwsMalformed(
      () => Pattern.begin<Event>('s').notFollowedBy(7 as unknown as string),
      'A pattern stage needs a non-empty name, got 7',
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').followedBy('a:b'),
      "Pattern stage name 'a:b' must not contain ':'",
    );
    throwsMalformed(
      () => Pattern.begin<Event>('s').notNext(''),
      'A pattern stage needs a non-empty name, got ',
    );
    const group = () => Pattern.begin<Event>('s').followedBy(Pattern.begin<Event>('a'));
    throwsMalformed(() => group().where(() => true), 'GroupPattern does not support where clause.');
    throwsMalformed(() => group().or(() => true), 'GroupPattern does not support or clause.');
    throwsMalformed(() => group().subtype(SubEvent), 'GroupPattern does not support subtype clause.');
    throwsMalformed(() => group().oneOrMore().greedy(), 'Option not applicable to group pattern');
    throwsMalformed(
      () =>
        new GroupPattern<Event>(
          undefined,
          {} as Pattern<Event>,
          'STRICT',
          Pattern.begin('x').afterMatchSkipStrategy,
        ),
      'A group pattern needs a Pattern',
    );
  });
});
