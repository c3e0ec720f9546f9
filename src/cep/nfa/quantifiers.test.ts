// Ported GreedyITCase / NFAITCase quantifier cases: greedy, until, optional, combinations, consecutive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import {
  Event,
  NFATestHarness,
  sortMatches,
  withTimestamps,
} from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;
const run = (p: Pattern<Event, any, any, any>, events: Event[]) =>
  new NFATestHarness(p).feed(withTimestamps(events));

describe('quantifiers (ported from Flink GreedyITCase and NFAITCase)', () => {
  const c = new Event(40, 'c', 1.0);
  const a1 = new Event(41, 'a', 2.0);
  const a2 = new Event(42, 'a', 2.0);
  const a3 = new Event(43, 'a', 2.0);
  const d = new Event(44, 'd', 3.0);
  const dummy = () => new Event(1, 'dummy', 1111);

  const cAStarD = () =>
    Pattern.begin<Event>('start')
      .where(named('c'))
      .followedBy('middle')
      .where(named('a'))
      .oneOrMore()
      .optional()
      .greedy();

  it('testGreedyZeroOrMore', () => {
    assert.deepEqual(run(cAStarD().followedBy('end').where(named('d')), [c, a1, a2, a3, d]), [
      [c, a1, a2, a3, d],
    ]);
  });

  it('rejects an optional stage right after a greedy one (modern Flink check, replaces the old EndWithOptional case)', () => {
    assert.throws(
      () =>
        Pattern.begin<Event>('start')
          .where(named('c'))
          .followedBy('middle')
          .where(named('a'))
          .oneOrMore()
          .optional()
          .consecutive()
          .greedy()
          .followedBy('end')
          .where(named('d'))
          .optional(),
      /Optional pattern cannot be preceded by greedy pattern/,
    );
  });

  it('testGreedyZeroOrMoreInBetween', () => {
    const p = cAStarD().followedBy('end').where(named('d'));
    assert.deepEqual(run(p, [c, dummy(), a1, dummy(), a2, dummy(), a3, d]), [[c, a1, a2, a3, d]]);
  });

  it('testGreedyZeroOrMoreWithDummyEventsAfterQuantifier / BeforeQuantifier', () => {
    const p = () => cAStarD().followedBy('end').where(named('d'));
    assert.deepEqual(run(p(), [c, a1, a2, new Event(43, 'dummy', 2.0), d]), [[c, a1, a2, d]]);
    assert.deepEqual(run(p(), [c, new Event(43, 'dummy', 2.0), d]), [[c, d]]);
  });

  it('testGreedyUtilZeroOrMoreWithDummyEventsAfterQuantifier / WithDummyEventsBeforeQuantifier', () => {
    const b1 = new Event(41, 'a', 2.0);
    const b2 = new Event(42, 'a', 3.0);
    const b3 = new Event(43, 'a', 3.0);
    const d5 = new Event(45, 'd', 3.0);
    const p = () =>
      cAStarD()
        .until((e) => e.price > 3.0)
        .followedBy('end')
        .where(named('d'));
    assert.deepEqual(run(p(), [c, b1, b2, b3, new Event(44, 'a', 4.0), d5]), [[c, b1, b2, b3, d5]]);
    assert.deepEqual(run(p(), [c, new Event(44, 'a', 4.0), b1, b2, b3, d5]), [[c, d5]]);
  });

  it('testComplexBranchingAfterZeroOrMore (allowCombinations + optional + followedByAny)', () => {
    const start = new Event(40, 'c', 1.0);
    const m1 = new Event(41, 'a', 2.0);
    const m2 = new Event(42, 'a', 3.0);
    const m3 = new Event(43, 'a', 4.0);
    const end1 = new Event(44, 'b', 5.0);
    const end2 = new Event(45, 'd', 6.0);
    const end3 = new Event(46, 'd', 7.0);
    const end4 = new Event(47, 'e', 8.0);
    const p = Pattern.begin<Event>('start')
      .where(named('c'))
      .followedByAny('middle')
      .where(named('a'))
      .oneOrMore()
      .allowCombinations()
      .optional()
      .followedByAny('end1')
      .where(named('b'))
      .followedByAny('end2')
      .where(named('d'))
      .followedByAny('end3')
      .where(named('e'));
    const res = run(p, [start, m1, m2, m3, end1, end2, end3, end4]);
    // every subset of {m1, m2, m3} (in order), then end1, one of end2/end3, end4
    const subsets = [[], [m1], [m2], [m3], [m1, m2], [m1, m3], [m2, m3], [m1, m2, m3]];
    const expected = subsets.flatMap((s) => [end2, end3].map((e2) => [start, ...s, end1, e2, end4]));
    assert.deepEqual(sortMatches(res), sortMatches(expected));
  });

  it('oneOrMore with relaxed, consecutive and combination inner contiguity', () => {
    const x = new Event(1, 'x', 0);
    const base = () => Pattern.begin<Event>('start').where(named('c')).followedBy('middle').where(named('a'));
    const events = [c, a1, x, a2, a3, d];
    const relaxed = run(base().oneOrMore().followedBy('end').where(named('d')), events);
    assert.deepEqual(
      sortMatches(relaxed),
      sortMatches([
        [c, a1, d],
        [c, a1, a2, d],
        [c, a1, a2, a3, d],
      ]),
    );
    const strict = run(base().oneOrMore().consecutive().followedBy('end').where(named('d')), events);
    assert.deepEqual(sortMatches(strict), sortMatches([[c, a1, d]]));
    const combos = run(base().oneOrMore().allowCombinations().followedBy('end').where(named('d')), events);
    assert.deepEqual(
      sortMatches(combos),
      sortMatches([
        [c, a1, d],
        [c, a1, a2, d],
        [c, a1, a3, d],
        [c, a1, a2, a3, d],
      ]),
    );
  });

  it('times(2, 3) and timesOrMore(2)', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('c'))
      .next('middle')
      .where(named('a'))
      .times(2, 3)
      .next('end')
      .where(named('d'));
    assert.deepEqual(run(p, [c, a1, a2, a3, d]), [[c, a1, a2, a3, d]]);
    const q = Pattern.begin<Event>('start').where(named('a')).timesOrMore(2);
    assert.deepEqual(
      sortMatches(run(q, [a1, a2, a3])),
      sortMatches([
        [a1, a2],
        [a1, a2, a3],
        [a2, a3],
      ]),
    );
  });
});
