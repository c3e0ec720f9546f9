// Ported GroupITCase cases: looping, optional, combined and nested group patterns, and negation after a group.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { Event, matchSets, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;
const feed = (p: Pattern<Event, any, any, any>, events: Event[]) =>
  matchSets(new NFATestHarness(p).feed(events.map((e, i) => [e, i + 1] as const)));
const ab = () => Pattern.begin<Event>('middle1').where(named('a')).followedBy('middle2').where(named('b'));
const start = () => Pattern.begin<Event>('start').where(named('c'));

describe('group patterns (ported from Flink GroupITCase)', () => {
  const c = new Event(40, 'c', 1.0);
  const a1 = new Event(41, 'a', 2.0);
  const b1 = new Event(42, 'b', 3.0);
  const a2 = new Event(43, 'a', 4.0);
  const b2 = new Event(44, 'b', 5.0);
  const a3 = new Event(45, 'a', 4.0);
  const b3 = new Event(46, 'b', 5.0);
  const d = new Event(47, 'd', 6.0);
  const two = [c, a1, b1, a2, b2, d];
  const three = [c, a1, b1, a2, b2, a3, b3, d];

  it('testGroupFollowedByOneOrMore: c (a b)+ d', () => {
    const p = start().followedBy(ab()).oneOrMore().followedBy('end').where(named('d'));
    assert.deepEqual(
      feed(p, two),
      matchSets([
        [c, a1, b1, d],
        [c, a1, b1, a2, b2, d],
      ]),
    );
  });

  it('testGroupFollowedByZeroOrMore: c (a b)* d', () => {
    const p = start().followedBy(ab()).oneOrMore().optional().followedBy('end').where(named('d'));
    assert.deepEqual(
      feed(p, two),
      matchSets([
        [c, d],
        [c, a1, b1, d],
        [c, a1, b1, a2, b2, d],
      ]),
    );
  });

  it('testGroupFollowedByAnyTimesCombinations: c any (a b){2} d', () => {
    const p = start().followedByAny(ab()).times(2).allowCombinations().followedBy('end').where(named('d'));
    assert.deepEqual(
      feed(p, three),
      matchSets([
        [c, a1, b1, a2, b2, d],
        [c, a1, b1, a3, b3, d],
        [c, a2, b2, a3, b3, d],
      ]),
    );
  });

  it('testGroupFollowedByAnyTimesOptional: c any (a b){2}? d', () => {
    const p = start().followedByAny(ab()).times(2).optional().followedBy('end').where(named('d'));
    assert.deepEqual(
      feed(p, three),
      matchSets([
        [c, d],
        [c, a1, b1, a2, b2, d],
        [c, a2, b2, a3, b3, d],
      ]),
    );
  });

  it('testGroupFollowedByAnyOneOrMore: c any (a b){1,} d', () => {
    const p = start().followedByAny(ab()).oneOrMore().followedBy('end').where(named('d'));
    assert.deepEqual(
      feed(p, three),
      matchSets([
        [c, a1, b1, d],
        [c, a2, b2, d],
        [c, a3, b3, d],
        [c, a1, b1, a2, b2, d],
        [c, a2, b2, a3, b3, d],
        [c, a1, b1, a2, b2, a3, b3, d],
      ]),
    );
  });

  it('testGroupNextZeroOrMore: c next (a b)* consecutive d', () => {
    const e1 = new Event(41, 'a', 2.0);
    const f1 = new Event(42, 'b', 3.0);
    const e2 = new Event(43, 'a', 3.0);
    const f2 = new Event(44, 'b', 3.0);
    const e3 = new Event(45, 'a', 4.0);
    const f3 = new Event(46, 'b', 3.0);
    const dd = new Event(47, 'd', 1.0);
    const p = start().next(ab()).oneOrMore().optional().consecutive().followedBy('end').where(named('d'));
    assert.deepEqual(
      feed(p, [c, e1, f1, e2, f2, e3, f3, dd]),
      matchSets([
        [c, dd],
        [c, e1, f1, dd],
        [c, e1, f1, e2, f2, dd],
        [c, e1, f1, e2, f2, e3, f3, dd],
      ]),
    );
  });

  describe('negation after a group: c (a b) ^d e', () => {
    const g1 = new Event(41, 'a', 2.0);
    const h1 = new Event(42, 'b', 3.0);
    const dd = new Event(43, 'd', 3.0);
    const g2 = new Event(44, 'a', 4.0);
    const h2 = new Event(45, 'b', 5.0);
    const e = new Event(46, 'e', 6.0);
    const input = [c, g1, h1, dd, g2, h2, e];

    it('testGroupNotFollowedBy', () => {
      const p = start()
        .followedByAny(ab())
        .notFollowedBy('notPattern')
        .where(named('d'))
        .followedBy('end')
        .where(named('e'));
      assert.deepEqual(feed(p, input), matchSets([[c, g2, h2, e]]));
    });

    it('testGroupNotNext', () => {
      const p = start()
        .followedByAny(ab())
        .notNext('notPattern')
        .where(named('d'))
        .followedBy('end')
        .where(named('e'));
      assert.deepEqual(feed(p, input), matchSets([[c, g2, h2, e]]));
    });
  });

  describe('nested groups', () => {
    const dd = new Event(40, 'd', 1.0);
    const n = (id: number, name: string, price: number) => new Event(id, name, price);
    const bc = () =>
      Pattern.begin<Event>('middle2').where(named('b')).followedBy('middle3').where(named('c'));
    const dStart = () => Pattern.begin<Event>('start').where(named('d'));

    it('testGroupNest: d (a (b c)*)? e', () => {
      const x1 = n(41, 'a', 2.0);
      const y1 = n(42, 'b', 3.0);
      const z1 = n(43, 'c', 4.0);
      const y2 = n(44, 'b', 5.0);
      const z2 = n(45, 'c', 4.0);
      const e = n(46, 'e', 6.0);
      const p = dStart()
        .followedBy(Pattern.begin<Event>('middle1').where(named('a')).followedBy(bc()).oneOrMore().optional())
        .optional()
        .followedBy('end')
        .where(named('e'));
      assert.deepEqual(
        feed(p, [dd, x1, y1, z1, y2, z2, e]),
        matchSets([
          [dd, e],
          [dd, x1, e],
          [dd, x1, y1, z1, e],
          [dd, x1, y1, z1, y2, z2, e],
        ]),
      );
    });

    it('testGroupNestTimes: d any (a (b c){3}){0, 2} e', () => {
      const x1 = n(41, 'a', 2.0);
      const [y1, z1, y2, z2, y3, z3] = [
        n(42, 'b', 3.0),
        n(43, 'c', 4.0),
        n(44, 'b', 5.0),
        n(45, 'c', 4.0),
        n(46, 'b', 5.0),
        n(47, 'c', 4.0),
      ];
      const x2 = n(48, 'a', 2.0);
      const [y4, z4, y5, z5, y6, z6] = [
        n(49, 'b', 3.0),
        n(50, 'c', 4.0),
        n(51, 'b', 5.0),
        n(52, 'c', 4.0),
        n(53, 'b', 5.0),
        n(54, 'c', 4.0),
      ];
      const e = n(55, 'e', 6.0);
      const p = dStart()
        .followedByAny(Pattern.begin<Event>('middle1').where(named('a')).followedBy(bc()).times(3))
        .times(0, 2)
        .followedBy('end')
        .where(named('e'));
      const first = [x1, y1, z1, y2, z2, y3, z3];
      const second = [x2, y4, z4, y5, z5, y6, z6];
      assert.deepEqual(
        feed(p, [dd, ...first, ...second, e]),
        matchSets([
          [dd, e],
          [dd, ...first, e],
          [dd, ...second, e],
          [dd, ...first, ...second, e],
        ]),
      );
    });
  });
});
