// Ported GreedyITCase / NFAITCase quantifier cases: greedy, until, optional, combinations, consecutive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import {
  Event,
  NFATestHarness,
  matchSets,
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
  it('testGreedyTimesRange / testEndWithGreedyTimesRange: greedy times(2, 5) takes every a before the next stage, or ends at each count', () => {
    const a4 = new Event(44, 'a', 2.0);
    const d45 = new Event(45, 'd', 2.0);
    const base = () =>
      Pattern.begin<Event>('start')
        .where(named('c'))
        .followedBy('middle')
        .where(named('a'))
        .times(2, 5)
        .greedy();
    assert.deepEqual(run(base().followedBy('end').where(named('d')), [c, a1, a2, a3, a4, d45]), [
      [c, a1, a2, a3, a4, d45],
    ]);
    assert.deepEqual(
      matchSets(run(base(), [c, a1, a2, a3, a4, new Event(44, 'dummy', 2.0)])),
      matchSets([
        [c, a1, a2],
        [c, a1, a2, a3],
        [c, a1, a2, a3, a4],
      ]),
    );
  });

  it('an event that stops a loop and starts the next stage is matched once (greedy loop with until)', () => {
    const d4 = new Event(45, 'd', 4.0);
    const p = () =>
      cAStarD()
        .until((e) => e.price > 3.0)
        .followedBy('end')
        .where(named('d'));
    // d4 both ends the loop (until) and is the end stage's event: one match, not one per way out of the loop
    assert.deepEqual(run(p(), [c, d4]), [[c, d4]]);
    assert.deepEqual(run(p(), [c, a1, d4]), [[c, a1, d4]]);
  });

  it('until on a consecutive loop: the loop stops at the until event, an unrelated event ends it', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('c'))
      .followedBy('middle')
      .where(named('a'))
      .oneOrMore()
      .consecutive()
      .until((e) => e.price > 3.0)
      .followedBy('end')
      .where(named('d'));
    assert.deepEqual(run(p, [c, a1, new Event(46, 'x', 1.0), a2, new Event(45, 'd', 4.0)]), [
      [c, a1, new Event(45, 'd', 4.0)],
    ]);
  });

  it('until on a looping group: no iteration takes or skips the stopping event', () => {
    const s = new Event(1, 's', 1);
    const ga1 = new Event(2, 'a', 1);
    const gb1 = new Event(3, 'b', 1);
    const ga2 = new Event(4, 'a', 1);
    const e = new Event(8, 'e', 1);
    const p = () =>
      Pattern.begin<Event>('s')
        .where(named('s'))
        .followedBy(Pattern.begin<Event>('a').where(named('a')).followedBy('b').where(named('b')))
        .oneOrMore()
        .until((ev) => ev.price > 5)
        .followedBy('e')
        .where(named('e'));
    // without a stopping event the second iteration completes
    assert.deepEqual(matchSets(run(p(), [s, ga1, gb1, ga2, new Event(6, 'b', 1), e])), [
      'a:2:1 a:4:1 b:3:1 b:6:1 e:8:1 s:1:1',
      'a:2:1 b:3:1 e:8:1 s:1:1',
    ]);
    // a stopping event the group would skip (x) or take (a b) ends the open iteration
    assert.deepEqual(run(p(), [s, ga1, gb1, ga2, new Event(5, 'x', 10), new Event(6, 'b', 1), e]), [
      [s, ga1, gb1, e],
    ]);
    assert.deepEqual(run(p(), [s, ga1, gb1, ga2, new Event(7, 'b', 10), e]), [[s, ga1, gb1, e]]);
  });
});
