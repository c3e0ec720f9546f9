// Ported NotPatternITCase cases: notNext, notFollowedBy in the middle and at the end of a pattern with within.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import type { WithinType } from '../pattern/within-type.ts';
import { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import { Event, NFATestHarness, sortMatches } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;

describe('negative patterns (ported from Flink NotPatternITCase)', () => {
  for (const withinType of ['FIRST_AND_LAST', 'PREVIOUS_AND_CURRENT'] as WithinType[]) {
    it(`testNotFollowedByWithin${withinType === 'FIRST_AND_LAST' ? 'FirstAndLast' : 'PreviousAndCurrent'}AtEnd`, () => {
      const a1 = new Event(40, 'a', 1.0);
      const b1 = new Event(41, 'b', 2.0);
      const a2 = new Event(42, 'a', 3.0);
      const c = new Event(43, 'c', 4.0);
      const b2 = new Event(44, 'b', 5.0);
      const a3 = new Event(45, 'a', 7.0);
      const b3 = new Event(46, 'b', 8.0);
      const p = Pattern.begin<Event>('a')
        .where(named('a'))
        .notFollowedBy('b')
        .where(named('b'))
        .within(3, withinType);
      const res = new NFATestHarness(p).feed([
        [a1, 1],
        [b1, 2],
        [a2, 4],
        [c, 5],
        [b2, 10],
        [a3, 11],
        [b3, 13],
      ]);
      assert.deepEqual(res, [[a2]]);
    });
  }

  it('testNotFollowByBeforeTimesWithin', () => {
    const a1 = new Event(40, 'a', 1.0);
    const b1 = new Event(41, 'b', 2.0);
    const a2 = new Event(42, 'a', 3.0);
    const c1 = new Event(43, 'c', 4.0);
    const c2 = new Event(44, 'c', 5.0);
    const a3 = new Event(45, 'a', 7.0);
    const c3 = new Event(46, 'c', 8.0);
    const c4 = new Event(47, 'c', 8.0);
    const p = Pattern.begin<Event>('a')
      .where(named('a'))
      .notFollowedBy('b')
      .where(named('b'))
      .followedBy('c')
      .where(named('c'))
      .times(0, 2)
      .within(3);
    const res = new NFATestHarness(p).feed([
      [a1, 1],
      [b1, 2],
      [a2, 10],
      [c1, 11],
      [c2, 12],
      [a3, 20],
      [c3, 21],
      [c4, 24],
    ]);
    assert.deepEqual(sortMatches(res), sortMatches([[a1], [a2], [a2, c1], [a2, c1, c2], [a3], [a3, c3]]));
  });

  it('testNotFollowedByWithinAtEndAfterMatch (skip past last)', () => {
    const a1 = new Event(40, 'a', 1.0);
    const a2 = new Event(41, 'a', 2.0);
    const a3 = new Event(42, 'a', 3.0);
    const c1 = new Event(43, 'c', 4.0);
    const c2 = new Event(44, 'c', 5.0);
    const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(named('a'))
      .oneOrMore()
      .allowCombinations()
      .followedBy('c')
      .where(named('c'))
      .notFollowedBy('b')
      .where(named('b'))
      .within(5);
    const res = new NFATestHarness(p).feed([
      [a1, 1],
      [a2, 2],
      [a3, 3],
      [c1, 4],
      [c2, 10],
    ]);
    assert.deepEqual(res, [[a1, a2, a3, c1]]);
  });

  it('notNext: the next event must not match; notFollowedBy in the middle', () => {
    const a = new Event(1, 'a', 0);
    const b = new Event(2, 'b', 0);
    const c = new Event(3, 'c', 0);
    const d = new Event(4, 'd', 0);
    const notNext = () =>
      Pattern.begin<Event>('a')
        .where(named('a'))
        .notNext('not')
        .where(named('b'))
        .followedBy('c')
        .where(named('c'));
    assert.deepEqual(
      new NFATestHarness(notNext()).feed([
        [a, 1],
        [b, 2],
        [c, 3],
      ]),
      [],
    );
    assert.deepEqual(
      new NFATestHarness(notNext()).feed([
        [a, 1],
        [d, 2],
        [b, 3],
        [c, 4],
      ]),
      [[a, c]],
    );
    const notFollowed = () =>
      Pattern.begin<Event>('a')
        .where(named('a'))
        .notFollowedBy('not')
        .where(named('b'))
        .followedBy('c')
        .where(named('c'));
    assert.deepEqual(
      new NFATestHarness(notFollowed()).feed([
        [a, 1],
        [d, 2],
        [b, 3],
        [c, 4],
      ]),
      [],
    );
    assert.deepEqual(
      new NFATestHarness(notFollowed()).feed([
        [a, 1],
        [d, 2],
        [c, 3],
        [b, 4],
      ]),
      [[a, c]],
    );
  });

  it('rejects malformed negative patterns with Flink reasons', () => {
    assert.throws(
      () => new NFATestHarness(Pattern.begin<Event>('start').followedBy('middle').notFollowedBy('end')),
      /NotFollowedBy is not supported without windowTime as a last part of a Pattern!/,
    );
    assert.throws(
      () => Pattern.begin<Event>('a').optional().notFollowedBy('b'),
      /optional path to NOT condition/,
    );
    assert.throws(
      () => Pattern.begin<Event>('a').notNext('b').oneOrMore(),
      /Option not applicable to NOT pattern/,
    );
    assert.throws(() => Pattern.begin<Event>('a').notNext('b').optional(), /NOT pattern cannot be optional/);
    assert.throws(
      () => new NFATestHarness(Pattern.begin<Event>('start').followedBy('middle').followedBy('start')),
      /Duplicate pattern name: start. Names must be unique./,
    );
    assert.throws(() => Pattern.begin<Event>('a').until(() => true), /only applicable to looping states/);
    assert.throws(() => Pattern.begin<Event>('a').oneOrMore().times(2), /Already applied quantifier/);
    assert.throws(() => Pattern.begin<Event>('a').allowCombinations(), /Combinations not applicable/);
  });
});
