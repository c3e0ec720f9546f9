// Ported TimesRangeITCase: times(from, to) with every contiguity, optional, combinations and consecutive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { Event, NFATestHarness, sortMatches } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;
const start = new Event(40, 'c', 1.0);
const m1 = new Event(41, 'a', 2.0);
const m2 = new Event(42, 'a', 3.0);
const m3 = new Event(43, 'a', 4.0);
const end = new Event(44, 'b', 5.0);
const f = () => new Event(23, 'f', 1.0);

/** c, then the middle stage as `middle` configures it, then followedBy b. */
function pattern(middle: (p: Pattern<Event, Event, any, any>) => Pattern<Event, Event, any, any>) {
  return middle(Pattern.begin<Event>('start').where(named('c')))
    .followedBy('end1')
    .where(named('b'));
}

function run(
  middle: (p: Pattern<Event, Event, any, any>) => Pattern<Event, Event, any, any>,
  input: [Event, number][],
): string[] {
  return sortMatches(new NFATestHarness(pattern(middle)).feed(input));
}

/** start f m1 f m2 m3 end at 1..7 (Flink's input with two foreign events). */
const withGaps = (): [Event, number][] => [
  [start, 1],
  [f(), 2],
  [m1, 3],
  [f(), 4],
  [m2, 5],
  [m3, 6],
  [end, 7],
];

describe('times(from, to) (ported from Flink TimesRangeITCase)', () => {
  it('testTimesRange: next, times(1, 3), allowCombinations', () => {
    const input: [Event, number][] = [
      [start, 1],
      [m1, 2],
      [m2, 3],
      [m3, 4],
      [end, 6],
    ];
    assert.deepEqual(
      run((p) => p.next('middle').where(named('a')).times(1, 3).allowCombinations(), input),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
        [start, m1, m3, end],
        [start, m1, end],
      ]),
    );
  });

  it('testTimesRangeFromZero: times(0, 2) makes the stage optional', () => {
    const input: [Event, number][] = [
      [start, 1],
      [m1, 2],
      [m2, 3],
      [m3, 4],
      [end, 6],
    ];
    assert.deepEqual(
      run((p) => p.next('middle').where(named('a')).times(0, 2).allowCombinations(), input),
      sortMatches([
        [start, m1, m2, end],
        [start, m1, m3, end],
        [start, m1, end],
        [start, end],
      ]),
    );
  });

  it('testTimesRangeNonStrict', () => {
    assert.deepEqual(
      run((p) => p.followedByAny('middle').where(named('a')).times(1, 3).allowCombinations(), withGaps()),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
        [start, m1, m3, end],
        [start, m2, m3, end],
        [start, m1, end],
        [start, m2, end],
        [start, m3, end],
      ]),
    );
  });

  it('testTimesRangeStrict: times(0, 3).consecutive()', () => {
    assert.deepEqual(
      run((p) => p.followedByAny('middle').where(named('a')).times(0, 3).consecutive(), withGaps()),
      sortMatches([
        [start, m2, m3, end],
        [start, m1, end],
        [start, m2, end],
        [start, m3, end],
        [start, end],
      ]),
    );
  });

  it('testTimesRangeStrictOptional: times(1, 3).consecutive().optional()', () => {
    assert.deepEqual(
      run(
        (p) => p.followedByAny('middle').where(named('a')).times(1, 3).consecutive().optional(),
        withGaps(),
      ),
      sortMatches([
        [start, m2, m3, end],
        [start, m1, end],
        [start, m2, end],
        [start, m3, end],
        [start, end],
      ]),
    );
  });

  it('testTimesRangeStrictOptional1: next, times(1, 3).consecutive().optional()', () => {
    const input: [Event, number][] = [
      [start, 1],
      [m1, 3],
      [m2, 5],
      [m3, 6],
      [end, 7],
    ];
    assert.deepEqual(
      run((p) => p.next('middle').where(named('a')).times(1, 3).consecutive().optional(), input),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
        [start, m1, end],
        [start, end],
      ]),
    );
  });

  it('testTimesRangeNonStrictOptional1: an optional range with no event for it', () => {
    const input: [Event, number][] = [
      [start, 1],
      [f(), 2],
      [end, 7],
    ];
    assert.deepEqual(
      run((p) => p.followedBy('middle').where(named('a')).times(1, 3).optional(), input),
      sortMatches([[start, end]]),
    );
  });

  it('testTimesRangeNonStrictOptional2: times(2, 3).allowCombinations().optional()', () => {
    assert.deepEqual(
      run(
        (p) => p.followedByAny('middle').where(named('a')).times(2, 3).allowCombinations().optional(),
        withGaps(),
      ),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
        [start, m1, m3, end],
        [start, m2, m3, end],
        [start, end],
      ]),
    );
  });

  it('testTimesRangeNonStrictOptional3: times(2, 3).optional()', () => {
    assert.deepEqual(
      run((p) => p.followedByAny('middle').where(named('a')).times(2, 3).optional(), withGaps()),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
        [start, m2, m3, end],
        [start, end],
      ]),
    );
  });

  it('testTimesRangeNonStrictWithNext: next, times(2, 3).allowCombinations()', () => {
    const input: [Event, number][] = [
      [start, 1],
      [m1, 2],
      [f(), 3],
      [m2, 4],
      [f(), 5],
      [m3, 6],
      [end, 7],
    ];
    assert.deepEqual(
      run((p) => p.next('middle').where(named('a')).times(2, 3).allowCombinations(), input),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
        [start, m1, m3, end],
      ]),
    );
  });

  it('testTimesRangeNotStrictWithFollowedBy / WithFollowedByAny', () => {
    const input: [Event, number][] = [
      [start, 1],
      [m1, 2],
      [m2, 4],
      [m3, 6],
      [end, 7],
    ];
    assert.deepEqual(
      run((p) => p.followedBy('middle').where(named('a')).times(2, 3), input),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
      ]),
    );
    assert.deepEqual(
      run((p) => p.followedByAny('middle').where(named('a')).times(2, 3).allowCombinations(), input),
      sortMatches([
        [start, m1, m2, m3, end],
        [start, m1, m2, end],
        [start, m2, m3, end],
        [start, m1, m3, end],
      ]),
    );
  });
});
