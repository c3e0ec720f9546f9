// Ported FlinkCEP cases: GroupITCase, UntilConditionITCase, IterativeConditionsITCase and NFAITCase's WithinType tests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConditionContext } from '../pattern/conditions.ts';
import { Pattern } from '../pattern/pattern.ts';
import type { Match } from './nfa.ts';
import { Event, matchSets, NFATestHarness, SubEvent } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;
const key = (e: Event) => `${e.name}:${e.id}:${e.price}`;
const feed = (p: Pattern<Event, any, any, any>, records: [Event, number][]) =>
  new NFATestHarness(p).feed(records);
const isSubEvent = (e: Event): e is SubEvent => e instanceof SubEvent;
const describeMatch = (m: Match<Event>) =>
  Object.keys(m)
    .sort()
    .map((k) => `${k}=${m[k]!.map(key).join(',')}`)
    .join(' ');

describe('group patterns (ported from Flink GroupITCase)', () => {
  const c = new Event(40, 'c', 1.0);
  const a1 = new Event(41, 'a', 2.0);
  const b1 = new Event(42, 'b', 3.0);
  const a2 = new Event(43, 'a', 4.0);
  const b2 = new Event(44, 'b', 5.0);
  const d = new Event(45, 'd', 6.0);
  const ab = () => Pattern.begin<Event>('middle1').where(named('a')).followedBy('middle2').where(named('b'));

  it('testGroupFollowedByTimes: c (a b){2} d', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('c'))
      .followedBy(ab())
      .times(2)
      .followedBy('end')
      .where(named('d'));
    const res = feed(p, [
      [c, 1],
      [a1, 2],
      [b1, 3],
      [a2, 4],
      [b2, 5],
      [d, 6],
    ]);
    assert.deepEqual(matchSets(res), matchSets([[c, a1, b1, a2, b2, d]]));
  });

  it('testGroupFollowedByOptional: c (a b)? d', () => {
    const a1b = new Event(41, 'a', 2.0);
    const a2b = new Event(42, 'a', 2.0);
    const b = new Event(43, 'b', 3.0);
    const dd = new Event(44, 'd', 4.0);
    const p = Pattern.begin<Event>('start')
      .where(named('c'))
      .followedBy(ab())
      .optional()
      .followedBy('end')
      .where(named('d'));
    const res = feed(p, [
      [c, 1],
      [a1b, 2],
      [a2b, 3],
      [b, 4],
      [dd, 5],
    ]);
    assert.deepEqual(
      matchSets(res),
      matchSets([
        [c, dd],
        [c, a1b, b, dd],
      ]),
    );
  });

  it('testFollowedByGroupTimesOptional: c (a b){2}? d', () => {
    const a = new Event(41, 'a', 2.0);
    const dd = new Event(45, 'd', 3.0);
    const p = Pattern.begin<Event>('start')
      .where(named('c'))
      .followedBy(ab())
      .times(2)
      .optional()
      .followedBy('end')
      .where(named('d'));
    assert.deepEqual(
      matchSets(
        feed(p, [
          [c, 1],
          [a, 2],
          [dd, 3],
        ]),
      ),
      matchSets([[c, dd]]),
    );
  });
});

describe('until (ported from Flink UntilConditionITCase)', () => {
  const untilCondition = (e: Event) => e.price === 5.0;
  const start = new Event(40, 'c', 1.0);
  const m1 = new Event(41, 'a', 2.0);
  const m2 = new Event(42, 'a', 3.0);
  const m3 = new Event(43, 'a', 4.0);
  const breaking = new Event(44, 'a', 5.0);
  const ignored = new Event(45, 'a', 6.0);
  const base = () => Pattern.begin<Event>('start').where(named('c')).followedBy('middle').where(named('a'));
  const input: [Event, number][] = [
    [start, 1],
    [m1, 3],
    [m2, 4],
    [breaking, 6],
    [ignored, 7],
  ];
  const input3: [Event, number][] = [
    [start, 1],
    [m1, 3],
    [m2, 4],
    [m3, 5],
    [breaking, 6],
    [ignored, 7],
  ];
  const thenEnd = (p: Pattern<Event, any, any, any>) =>
    p.until(untilCondition).followedBy('end').where(untilCondition);

  const drained = (h: NFATestHarness<Event>) => {
    // Flink asserts nfa.isEmpty(): nothing is left but the start state
    assert.equal(h.nfaState.partialMatches.items.length, 1);
    assert.equal(h.buffer.numEvents(), 0);
  };

  it('testUntilConditionFollowedByOneOrMore', () => {
    const h = new NFATestHarness(thenEnd(base().oneOrMore()));
    assert.deepEqual(
      matchSets(h.feed(input)),
      matchSets([
        [start, m1, m2, breaking],
        [start, m1, breaking],
      ]),
    );
    drained(h);
  });

  it('testUntilConditionFollowedByOneOrMoreCombinations', () => {
    const h = new NFATestHarness(thenEnd(base().oneOrMore().allowCombinations()));
    assert.deepEqual(
      matchSets(h.feed(input3)),
      matchSets([
        [start, m1, m2, m3, breaking],
        [start, m1, m2, breaking],
        [start, m1, m3, breaking],
        [start, m1, breaking],
      ]),
    );
    drained(h);
  });

  it('testUntilConditionFollowedByOneOrMoreConsecutive', () => {
    const breaking45 = new Event(45, 'a', 5.0);
    const h = new NFATestHarness(thenEnd(base().oneOrMore().consecutive()));
    const res = h.feed([
      [start, 1],
      [m1, 3],
      [m2, 4],
      [breaking45, 7],
      [new Event(46, 'a', 6.0), 8],
    ]);
    assert.deepEqual(
      matchSets(res),
      matchSets([
        [start, m1, m2, breaking45],
        [start, m1, breaking45],
      ]),
    );
    drained(h);
  });

  it('testUntilConditionFollowedByZeroOrMore', () => {
    const h = new NFATestHarness(thenEnd(base().oneOrMore().optional()));
    assert.deepEqual(
      matchSets(h.feed(input)),
      matchSets([
        [start, m1, m2, breaking],
        [start, m1, breaking],
        [start, breaking],
      ]),
    );
    drained(h);
  });

  it('testUntilConditionFollowedByZeroOrMoreCombinations', () => {
    const h = new NFATestHarness(thenEnd(base().oneOrMore().optional().allowCombinations()));
    assert.deepEqual(
      matchSets(h.feed(input3)),
      matchSets([
        [start, m1, m2, m3, breaking],
        [start, m1, m2, breaking],
        [start, m1, m3, breaking],
        [start, m1, breaking],
        [start, breaking],
      ]),
    );
    drained(h);
  });

  it('testUntilConditionFollowedByAnyOneOrMore', () => {
    const m3after = new Event(45, 'a', 6.0);
    const p = Pattern.begin<Event>('start')
      .where(named('c'))
      .followedByAny('middle')
      .where(named('a'))
      .oneOrMore()
      .until(untilCondition);
    const res = feed(p, [
      [start, 1],
      [m1, 3],
      [m2, 4],
      [breaking, 6],
      [m3after, 7],
    ]);
    assert.deepEqual(
      matchSets(res),
      matchSets([
        [start, m1, m2],
        [start, m1],
        [start, m2],
        [start, m3after],
      ]),
    );
  });
});

describe('iterative conditions (ported from Flink IterativeConditionsITCase)', () => {
  const start1 = new Event(40, 'start', 1.0);
  const start2 = new Event(40, 'start', 2.0);
  const start3 = new Event(40, 'start', 3.0);
  const start4 = new Event(40, 'start', 4.0);
  const middle1 = new SubEvent(41, 'foo1', 1.0, 10);
  const middle2 = new SubEvent(42, 'foo2', 2.0, 10);
  const middle3 = new SubEvent(43, 'foo3', 3.0, 10);
  const middle4 = new SubEvent(43, 'foo4', 1.0, 10);
  const nextOne = new Event(44, 'next-one', 1.0);
  const end = new Event(46, 'end', 1.0);
  const sumOf = (events: readonly Event[]) => events.reduce((s, e) => s + e.price, 0);

  const branching = (eager: boolean) => {
    const middleCondition = (v: SubEvent, ctx: ConditionContext<Event>) =>
      v.name.startsWith('foo') && sumOf(ctx.getEventsForPattern('middle')) + v.price < 5.0;
    let middle = Pattern.begin<Event>('start')
      .where(named('start'))
      .followedBy('middle')
      .subtype(isSubEvent)
      .where(middleCondition)
      .oneOrMore();
    if (!eager) middle = middle.allowCombinations();
    return feed(middle.followedBy('end').where(named('end')), [
      [start1, 1],
      [middle1, 2],
      [middle2, 3],
      [start2, 4],
      [middle3, 5],
      [middle4, 5],
      [nextOne, 6],
      [end, 8],
    ]);
  };

  it('testIterativeWithBranchingPatternEager', () => {
    assert.deepEqual(
      matchSets(branching(true)),
      matchSets([
        [start1, end, middle1, middle2, middle4],
        [start1, end, middle2, middle1],
        [start1, end, middle1],
        [start2, end, middle3, middle4],
        [start2, end, middle3],
      ]),
    );
  });

  it('testIterativeWithBranchingPatternCombinations', () => {
    assert.deepEqual(
      matchSets(branching(false)),
      matchSets([
        [start1, end, middle1, middle2, middle4],
        [start1, end, middle2, middle1],
        [start1, end, middle3, middle1],
        [start2, end, middle3, middle4],
        [start1, end, middle4, middle1],
        [start1, end, middle1],
        [start2, end, middle3],
      ]),
    );
  });

  const loopingStart = (eager: boolean) => {
    const cond = (v: Event, ctx: ConditionContext<Event>) =>
      v.name === 'start' && sumOf(ctx.getEventsForPattern('start')) + v.price < 5.0;
    let p = Pattern.begin<Event>('start').where(cond).oneOrMore();
    if (!eager) p = p.allowCombinations();
    return feed(p.optional().followedBy('end').where(named('end')), [
      [start1, 1],
      [start2, 2],
      [start3, 3],
      [end, 4],
    ]);
  };

  it('testIterativeWithLoopingStartingEager', () => {
    assert.deepEqual(
      matchSets(loopingStart(true)),
      matchSets([[start1, start2, end], [start1, end], [start2, end], [start3, end], [end]]),
    );
  });

  it('testIterativeWithLoopingStartingCombination', () => {
    assert.deepEqual(
      matchSets(loopingStart(false)),
      matchSets([
        [start1, start2, end],
        [start1, start3, end],
        [start1, end],
        [start2, end],
        [start3, end],
        [end],
      ]),
    );
  });

  it('testIterativeWithPrevPatternDependency', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('start'))
      .oneOrMore()
      .followedBy('end')
      .where((v, ctx) => v.name === 'end' && sumOf(ctx.getEventsForPattern('start')) >= 2.0);
    const res = feed(p, [
      [start1, 1],
      [start2, 2],
      [end, 4],
    ]);
    assert.deepEqual(
      matchSets(res),
      matchSets([
        [start1, start2, end],
        [start2, end],
      ]),
    );
  });

  it('testIterativeWithABACPattern', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('start'))
      .followedByAny('middle1')
      .subtype(isSubEvent)
      .where((v) => v.name.startsWith('foo'))
      .followedBy('middle2')
      .where((v, ctx) => v.name === 'start' && sumOf(ctx.getEventsForPattern('middle2')) + v.price <= 5.0)
      .oneOrMore()
      .followedBy('end')
      .where(named('end'));
    const res = feed(p, [
      [start1, 1],
      [middle1, 2],
      [start2, 2],
      [start3, 2],
      [middle2, 2],
      [start4, 2],
      [middle3, 2],
      [middle4, 2],
      [end, 4],
    ]);
    assert.deepEqual(
      matchSets(res),
      matchSets([
        [start1, start2, start3, middle1, end],
        [start1, middle1, start2, end],
        [start1, middle2, start4, end],
        [start2, middle2, start4, end],
        [start3, middle2, start4, end],
      ]),
    );
  });

  it('testIterativeWithPrevPatternDependencyAfterBranching', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('start'))
      .oneOrMore()
      .followedByAny('middle1')
      .subtype(isSubEvent)
      .where((v) => v.name.startsWith('foo'))
      .followedByAny('end')
      .where((v, ctx) => v.name === 'end' && sumOf(ctx.getEventsForPattern('start')) >= 2.0);
    const res = feed(p, [
      [start1, 1],
      [start2, 2],
      [middle1, 4],
      [start3, 5],
      [middle2, 6],
      [end, 7],
    ]);
    assert.deepEqual(
      matchSets(res),
      matchSets([
        [start1, start2, middle1, end],
        [start2, middle1, end],
        [start1, start2, middle2, end],
        [start1, start2, start3, middle2, end],
        [start2, start3, middle2, end],
        [start2, middle2, end],
        [start3, middle2, end],
      ]),
    );
  });
});

describe('within types and timeouts (ported from Flink NFAITCase)', () => {
  const events = (): [Event, number][] => [
    [new Event(1, 'start', 1.0), 1],
    [new Event(2, 'start', 1.0), 2],
    [new Event(3, 'middle', 1.0), 3],
    [new Event(4, 'foobar', 1.0), 4],
    [new Event(5, 'end', 1.0), 11],
    [new Event(6, 'end', 1.0), 13],
  ];
  const ev = (id: number, name: string) => new Event(id, name, 1.0);

  it('testSimplePatternWithTimeWindowNFAWithinPreviousAndCurrent', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('start'))
      .followedBy('middle')
      .where(named('middle'))
      .followedBy('end')
      .where(named('end'))
      .within(9, 'PREVIOUS_AND_CURRENT');
    assert.deepEqual(
      matchSets(feed(p, events())),
      matchSets([
        [ev(1, 'start'), ev(3, 'middle'), ev(5, 'end')],
        [ev(2, 'start'), ev(3, 'middle'), ev(5, 'end')],
      ]),
    );
  });

  const anyPattern = () =>
    Pattern.begin<Event>('start')
      .where(named('start'))
      .followedByAny('middle')
      .where(named('middle'))
      .followedByAny('end')
      .where(named('end'));
  const timeouts = (h: NFATestHarness<Event>) =>
    h.timedOut.map((t) => `${describeMatch(t.match)} @${t.timestamp}`).sort();

  it('testSimplePatternWithTimeoutHandlingWithinFirstAndLast', () => {
    const h = new NFATestHarness(anyPattern().within(10), true);
    assert.equal(h.feed(events()).length, 1);
    assert.deepEqual(
      timeouts(h),
      [
        `middle=middle:3:1 start=start:1:1 @11`,
        `middle=middle:3:1 start=start:2:1 @12`,
        `start=start:1:1 @11`,
        `start=start:2:1 @12`,
      ].sort(),
    );
  });

  it('testSimplePatternWithTimeoutHandlingWithinPreviousAndCurrent', () => {
    const h = new NFATestHarness(anyPattern().within(10, 'PREVIOUS_AND_CURRENT'), true);
    assert.equal(h.feed(events()).length, 2);
    assert.deepEqual(timeouts(h), [
      `middle=middle:3:1 start=start:1:1 @13`,
      `middle=middle:3:1 start=start:2:1 @13`,
    ]);
  });
});
