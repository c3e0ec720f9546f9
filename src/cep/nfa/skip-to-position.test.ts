// Ported AfterMatchSkipITCase cases for skipToFirst / skipToLast positions, loops at the beginning and misses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import { Event, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';

// Flink's test records carry no timestamp; all events share one timestamp and are ordered by arrival.
const untimed = (events: Event[]) => events.map((e) => [e, 0] as const);
const has = (s: string) => (e: Event) => e.name.includes(s);
const ev = (id: number, name: string, price = 0.0) => new Event(id, name, price);
/** Flink's `comparePatterns`: order inside a match and between matches ignored. */
const sets = (matches: Event[][]) =>
  matches
    .map((m) =>
      m
        .map((e) => `${e.name}:${e.id}`)
        .sort()
        .join(' '),
    )
    .sort();
const run = (p: Pattern<Event, any, any, any>, events: Event[]) =>
  sets(new NFATestHarness(p).feed(untimed(events)));

describe('skip to a stage (ported from Flink AfterMatchSkipITCase)', () => {
  it('testSkipToFirstAtStartPosition', () => {
    const [ab1, c1, ab2, c2] = [ev(1, 'ab1'), ev(2, 'c1'), ev(3, 'ab2'), ev(4, 'c2')];
    const p = Pattern.begin<Event>('b', AfterMatchSkipStrategy.skipToFirst('b'))
      .where(has('b'))
      .next('c')
      .where(has('c'));
    assert.deepEqual(
      run(p, [ab1, c1, ab2, c2]),
      sets([
        [ab1, c1],
        [ab2, c2],
      ]),
    );
  });

  describe('a next b+ consecutive over a1 b1 a2 b2 b3 a3 b4', () => {
    const a1 = ev(1, 'a1');
    const b1 = ev(2, 'b1');
    const a2 = ev(3, 'a2');
    const b2 = ev(4, 'b2');
    const b3 = ev(5, 'b3');
    const a3 = ev(3, 'a3');
    const b4 = ev(4, 'b4');
    const p = (s: AfterMatchSkipStrategy) =>
      Pattern.begin<Event>('a', s).where(has('a')).next('b').where(has('b')).oneOrMore().consecutive();
    for (const [name, strategy] of [
      ['testSkipToFirstWithOneOrMore', AfterMatchSkipStrategy.skipToFirst('b')],
      ['testSkipToLastWithOneOrMore', AfterMatchSkipStrategy.skipToLast('b')],
    ] as const) {
      it(name, () => {
        assert.deepEqual(
          run(p(strategy), [a1, b1, a2, b2, b3, a3, b4]),
          sets([
            [a1, b1],
            [a2, b2],
            [a3, b4],
          ]),
        );
      });
    }
  });

  describe('a+ consecutive greedy next b over a1 a2 a3 b1 (examples from the docs)', () => {
    const a1 = ev(1, 'a1');
    const a2 = ev(2, 'a2');
    const a3 = ev(3, 'a3');
    const b1 = ev(4, 'b1');
    const p = (s: AfterMatchSkipStrategy) =>
      Pattern.begin<Event>('a', s)
        .where(has('a'))
        .oneOrMore()
        .consecutive()
        .greedy()
        .next('b')
        .where(has('b'));
    it('testNoSkipWithOneOrMoreAtBeginning', () => {
      assert.deepEqual(
        run(p(AfterMatchSkipStrategy.noSkip()), [a1, a2, a3, b1]),
        sets([
          [a1, a2, a3, b1],
          [a2, a3, b1],
          [a3, b1],
        ]),
      );
    });
    it('testSkipPastLastWithOneOrMoreAtBeginning', () => {
      assert.deepEqual(
        run(p(AfterMatchSkipStrategy.skipPastLastEvent()), [a1, a2, a3, b1]),
        sets([[a1, a2, a3, b1]]),
      );
    });
    it('testSkipToLastWithOneOrMoreAtBeginning', () => {
      assert.deepEqual(
        run(p(AfterMatchSkipStrategy.skipToLast('a')), [a1, a2, a3, b1]),
        sets([
          [a1, a2, a3, b1],
          [a3, b1],
        ]),
      );
    });
    it('testSkipToFirstWithOneOrMoreAtBeginning', () => {
      assert.deepEqual(
        run(p(AfterMatchSkipStrategy.skipToFirst('a')), [a1, a2, a3, b1]),
        sets([
          [a1, a2, a3, b1],
          [a2, a3, b1],
          [a3, b1],
        ]),
      );
    });
  });

  it('testSkipToFirstDiscarding', () => {
    const [a, b, c1, c2, c3, d] = [ev(1, 'a'), ev(2, 'b'), ev(3, 'c1'), ev(4, 'c2'), ev(5, 'c3'), ev(6, 'd')];
    const p = Pattern.begin<Event>('a or c', AfterMatchSkipStrategy.skipToFirst('c*'))
      .where((e) => e.name.includes('a') || e.name.includes('c'))
      .followedBy('b or c')
      .where((e) => e.name.includes('b') || e.name.includes('c'))
      .followedBy('c*')
      .where(has('c'))
      .oneOrMore()
      .greedy()
      .followedBy('d')
      .where(has('d'));
    assert.deepEqual(
      run(p, [a, b, c1, c2, c3, d]),
      sets([
        [a, b, c1, c2, c3, d],
        [c1, c2, c3, d],
      ]),
    );
  });

  it('testSkipBeforeOtherAlreadyCompleted', () => {
    const [a1, c1, a2, c2, b1, b2] = [
      ev(1, 'a1'),
      ev(2, 'c1'),
      ev(3, 'a2', 1.0),
      ev(4, 'c2'),
      ev(5, 'b1', 1.0),
      ev(6, 'b2'),
    ];
    const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToFirst('c'))
      .where(has('a'))
      .followedBy('c')
      .where(has('c'))
      .followedBy('b')
      .where((e, ctx) => e.name.includes('b') && ctx.getEventsForPattern('a')[0]!.price === e.price);
    assert.deepEqual(
      run(p, [a1, c1, a2, c2, b1, b2]),
      sets([
        [a1, c1, b2],
        [a2, c2, b1],
      ]),
    );
  });

  it('testSharedBufferIsProperlyCleared', () => {
    const p = Pattern.begin<Event>('start', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(() => true)
      .times(2);
    const h = new NFATestHarness(p);
    const out = h.feed([0, 1, 2, 3].map((i) => [ev(1, 'a', 1.0), i] as const));
    assert.equal(out.length, 2);
    assert.equal(h.buffer.numEvents(), 0);
    assert.equal(h.buffer.numEntries(), 0);
  });

  describe('a missing skip target: a next b* consecutive next c over a c', () => {
    const a = ev(1, 'a');
    const c = ev(4, 'c');
    const p = (s: AfterMatchSkipStrategy) =>
      Pattern.begin<Event>('a', s)
        .where(has('a'))
        .next('b')
        .where(has('b'))
        .oneOrMore()
        .optional()
        .consecutive()
        .next('c')
        .where(has('c'));

    it('testSkipToFirstNonExistentPositionWithoutException / testSkipToLastNonExistentPositionWithoutException', () => {
      assert.deepEqual(run(p(AfterMatchSkipStrategy.skipToFirst('b')), [a, c]), sets([[a, c]]));
      assert.deepEqual(run(p(AfterMatchSkipStrategy.skipToLast('b')), [a, c]), sets([[a, c]]));
    });

    it('testSkipToFirstNonExistentPosition / testSkipToLastNonExistentPosition', () => {
      for (const s of [AfterMatchSkipStrategy.skipToFirst('b'), AfterMatchSkipStrategy.skipToLast('b')]) {
        assert.throws(() => run(p(s.throwExceptionOnMiss()), [a, c]), {
          message: 'Could not skip to b. No such element in the found match {a=[0#0], c=[0#1]}',
        });
      }
    });
  });

  it('testSkipToFirstElementOfMatch: with exceptions on, skipping to the match start fails', () => {
    const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToFirst('a').throwExceptionOnMiss()).where(
      has('a'),
    );
    assert.throws(() => run(p, [ev(1, 'a1')]), { message: 'Could not skip to first element of a match.' });
    // without: the match is emitted, as with noSkip
    const quiet = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToFirst('a')).where(has('a'));
    assert.deepEqual(run(quiet, [ev(1, 'a1'), ev(2, 'a2')]), sets([[ev(1, 'a1')], [ev(2, 'a2')]]));
  });

  it('describes itself; throwExceptionOnMiss only applies to skip-to strategies; a stage name is required', () => {
    assert.equal(AfterMatchSkipStrategy.noSkip().toString(), 'NO_SKIP');
    assert.equal(AfterMatchSkipStrategy.skipPastLastEvent().toString(), 'SKIP_PAST_LAST_EVENT');
    assert.equal(
      AfterMatchSkipStrategy.skipToNext().throwExceptionOnMiss(),
      AfterMatchSkipStrategy.skipToNext(),
    );
    assert.equal(
      AfterMatchSkipStrategy.skipToLast('b').toString(),
      "SKIP_TO_LAST{patternName='b', shouldThrowException=false}",
    );
    assert.equal(
      AfterMatchSkipStrategy.skipToFirst('b').throwExceptionOnMiss().toString(),
      "SKIP_TO_FIRST{patternName='b', shouldThrowException=true}",
    );
    assert.equal(AfterMatchSkipStrategy.noSkip().isSkipStrategy(), false);
    assert.equal(AfterMatchSkipStrategy.skipToNext().isSkipStrategy(), true);
    assert.throws(() => AfterMatchSkipStrategy.skipToFirst(''), {
      message: 'A skip strategy needs a stage name',
    });
    assert.throws(() => AfterMatchSkipStrategy.skipToLast(undefined as unknown as string), {
      message: 'A skip strategy needs a stage name',
    });
  });
});
