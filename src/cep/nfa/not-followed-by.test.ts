// Ported NotPatternITCase cases: notFollowedBy before optional and times stages, after times, at a branching start,
// and notNext after a loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { Event, matchSets, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;
const run = (p: Pattern<Event, any, any, any>, input: [Event, number][]) =>
  matchSets(new NFATestHarness(p).feed(input));
const ev = (id: number, name: string, price: number) => new Event(id, name, price);
const aNotB = () =>
  Pattern.begin<Event>('start').where(named('a')).notFollowedBy('notPattern').where(named('b'));

describe('notFollowedBy and notNext (ported from Flink NotPatternITCase)', () => {
  const a1 = ev(40, 'a', 1.0);
  const c1 = ev(41, 'c', 2.0);
  const b1 = ev(42, 'b', 3.0);
  const c2 = ev(43, 'c', 4.0);
  const d = ev(43, 'd', 4.0);
  const acbcd: [Event, number][] = [
    [a1, 1],
    [c1, 2],
    [b1, 3],
    [c2, 4],
    [d, 5],
  ];

  it('testNotFollowedByBeforeOptional', () => {
    const p = aNotB()
      .followedByAny('middle')
      .where(named('c'))
      .optional()
      .followedBy('end')
      .where(named('d'));
    assert.deepEqual(run(p, acbcd), matchSets([[a1, c1, d]]));
  });

  it('testNotFollowedByBeforeOptionalTimes', () => {
    const p = aNotB()
      .followedByAny('middle')
      .where(named('c'))
      .times(2)
      .optional()
      .followedBy('end')
      .where(named('d'));
    assert.deepEqual(run(p, acbcd), matchSets([[a1, c1, c2, d]]));
  });

  it('testNotFollowedByBeforeOptionalAtTheEnd', () => {
    const p = aNotB().followedByAny('end').where(named('c')).optional();
    assert.deepEqual(run(p, acbcd.slice(0, 4)), matchSets([[a1, c1], [a1]]));
  });

  it('testTimesWithNotFollowedBy / testTimesWithNotFollowedByAfter', () => {
    const p = () =>
      Pattern.begin<Event>('start')
        .where(named('a'))
        .followedByAny('middle')
        .where(named('b'))
        .times(2)
        .notFollowedBy('notPattern')
        .where(named('c'))
        .followedBy('end')
        .where(named('d'));
    const b = ev(41, 'b', 2.0);
    const c = ev(42, 'c', 3.0);
    const bb = ev(43, 'b', 4.0);
    const dd = ev(43, 'd', 4.0);
    assert.deepEqual(
      run(p(), [
        [a1, 1],
        [b, 2],
        [c, 3],
        [bb, 4],
        [dd, 5],
      ]),
      [],
    );
    const e = ev(41, 'e', 2.0);
    const x1 = ev(42, 'c', 3.0);
    const y1 = ev(43, 'b', 4.0);
    const y2 = ev(44, 'b', 5.0);
    const d1 = ev(46, 'd', 7.0);
    const d2 = ev(47, 'd', 8.0);
    assert.deepEqual(
      run(p(), [
        [a1, 1],
        [d1, 2],
        [e, 1],
        [y1, 3],
        [y2, 3],
        [x1, 2],
        [d2, 5],
      ]),
      [],
    );
  });

  it('testIgnoreStateOfTimesWithNotFollowedBy', () => {
    const e = ev(41, 'e', 2.0);
    const x1 = ev(42, 'c', 3.0);
    const y1 = ev(43, 'b', 4.0);
    const x2 = ev(44, 'c', 5.0);
    const d1 = ev(45, 'd', 6.0);
    const d2 = ev(46, 'd', 7.0);
    const p = aNotB()
      .followedByAny('middle')
      .where(named('c'))
      .times(2)
      .optional()
      .followedBy('end')
      .where(named('d'));
    assert.deepEqual(
      run(p, [
        [a1, 1],
        [d1, 2],
        [e, 1],
        [y1, 3],
        [x1, 2],
        [x2, 4],
        [d2, 5],
      ]),
      matchSets([[a1, d1]]),
    );
  });

  it('testNotFollowedByWithBranchingAtStart', () => {
    const b = ev(42, 'b', 3.0);
    const x1 = ev(41, 'c', 2.0);
    const a2 = ev(41, 'a', 4.0);
    const x2 = ev(43, 'c', 5.0);
    const dd = ev(43, 'd', 6.0);
    const p = aNotB().followedBy('middle').where(named('c')).followedBy('end').where(named('d'));
    assert.deepEqual(
      run(p, [
        [a1, 1],
        [b, 2],
        [x1, 3],
        [a2, 4],
        [x2, 5],
        [dd, 6],
      ]),
      matchSets([[a2, x2, dd]]),
    );
  });

  it('testNotNextAfterOneOrMoreSkipTillNext / SkipTillAny', () => {
    const A_1 = ev(40, 'a', 1.0);
    const B_1 = ev(41, 'b', 2.0);
    const C_1 = ev(43, 'c', 5.0);
    const B_2 = ev(42, 'b', 3.0);
    const D_1 = ev(43, 'd', 9.0);
    const input: [Event, number][] = [A_1, B_1, C_1, B_2, D_1].map((e, i) => [e, i]);
    const p = (any: boolean) => {
      const a = Pattern.begin<Event>('a').where(named('a'));
      return (any ? a.followedByAny('b*') : a.followedBy('b*'))
        .where(named('b'))
        .oneOrMore()
        .notNext('not c')
        .where(named('c'))
        .followedBy('d')
        .where(named('d'));
    };
    assert.deepEqual(run(p(false), input), []);
    assert.deepEqual(run(p(true), input), matchSets([[A_1, B_2, D_1]]));
  });
});
