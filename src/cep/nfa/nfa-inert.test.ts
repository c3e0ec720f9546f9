// NFA.isInert, startsNothing, eventReach and mayDropInertEvents: which events leave every partial match as it is, which
// start nothing, and which patterns may drop them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Event, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';
import { Pattern } from '../pattern/pattern.ts';
import { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import { compilePattern } from './compiler/nfa-compiler.ts';
import { EVENT_INERT, EVENT_MAY_START, EVENT_STARTS_NOTHING, NFA } from './nfa.ts';

const named = (n: string) => (e: Event) => e.name === n;
const nfaOf = (p: Pattern<Event, any, any, any>) => new NFA(compilePattern(p), false);
const inert = (p: Pattern<Event, any, any, any>, name: string, timestamp = 1) =>
  nfaOf(p).isInert(new Event(0, name, 0), timestamp);

/** `a followedBy b followedBy c`. */
const abc = () =>
  Pattern.begin<Event>('a')
    .where(named('a'))
    .followedBy('b')
    .where(named('b'))
    .followedBy('c')
    .where(named('c'));

describe('NFA.isInert', () => {
  it('under relaxed contiguity an event no stage takes is inert; one any stage takes is not', () => {
    assert.equal(inert(abc(), 'x'), true);
    assert.equal(inert(abc(), 'a'), false);
    assert.equal(inert(abc(), 'b'), false);
    assert.equal(inert(abc(), 'c'), false);
    const any = Pattern.begin<Event>('a').where(named('a')).followedByAny('b').where(named('b'));
    assert.equal(inert(any, 'x'), true);
    assert.equal(inert(any, 'b'), false);
  });

  it('strict contiguity: an event the next stage does not take ends a partial match, so it is not inert', () => {
    const p = Pattern.begin<Event>('a').where(named('a')).next('b').where(named('b'));
    assert.equal(inert(p, 'x'), false);
    const loop = Pattern.begin<Event>('a').where(named('a')).oneOrMore().consecutive();
    assert.equal(inert(loop, 'x'), false);
  });

  it('an event a PROCEED edge lets a partial match ignore into another state is not inert', () => {
    // an optional first stage: the start state proceeds to b, which ignores x into itself: a new branch
    const optionalStart = Pattern.begin<Event>('a')
      .where(named('a'))
      .optional()
      .followedBy('b')
      .where(named('b'));
    assert.equal(inert(optionalStart, 'x'), false);
    // a loop proceeds to the stage after it on every event
    const loop = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where(named('b'))
      .oneOrMore()
      .followedBy('c')
      .where(named('c'));
    assert.equal(inert(loop, 'x'), false);
    // the loop moves a partial match into its own ignore state: fed to the NFA, x changes it
    const h = new NFATestHarness(loop);
    h.consume(new Event(1, 'a', 0), 1);
    h.consume(new Event(2, 'b', 0), 2);
    h.nfaState.stateChanged = false;
    h.consume(new Event(3, 'x', 0), 3);
    assert.equal(h.nfaState.stateChanged, true);
  });

  it('a negative stage sees every event: one it matches is not inert, one it does not match is', () => {
    const p = Pattern.begin<Event>('a')
      .where(named('a'))
      .notFollowedBy('n')
      .where(named('n'))
      .followedBy('b')
      .where(named('b'));
    assert.equal(inert(p, 'n'), false);
    assert.equal(inert(p, 'x'), true);
  });

  it('a condition that reads the partial match or the processing time leaves the answer false; its timestamp is the one given', () => {
    const reads = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where((e, ctx) => e.name === 'b' && ctx.getEventsForPattern('a').length > 0);
    // 'x' fails before the context is read: inert; 'b' reads it: unknown
    assert.equal(inert(reads, 'x'), true);
    assert.equal(inert(reads, 'b'), false);
    const clock = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where((e, ctx) => ctx.currentProcessingTime() < 0 && e.name === 'b');
    assert.equal(inert(clock, 'x'), false);
    const late = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where((_, ctx) => ctx.timestamp() >= 10);
    assert.equal(inert(late, 'x', 9), true);
    assert.equal(inert(late, 'x', 10), false);
  });

  it('a condition that throws leaves the answer false', () => {
    const p = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where((e) => {
        if (e.name === 'boom') throw new Error('boom');
        return e.name === 'b';
      });
    assert.equal(inert(p, 'boom'), false);
    assert.equal(inert(p, 'x'), true);
  });

  it('an inert event fed to the NFA changes nothing, in any partial match', () => {
    const h = new NFATestHarness(abc().within(100));
    h.consume(new Event(1, 'a', 0), 1);
    h.consume(new Event(2, 'a', 0), 2);
    h.consume(new Event(3, 'b', 0), 3);
    const before = h.nfaState.partialMatches.items.slice();
    const x = new Event(4, 'x', 0);
    assert.equal(h.nfa.isInert(x, 4), true);
    h.nfaState.stateChanged = false;
    assert.deepEqual(h.consume(x, 4), []);
    assert.equal(h.nfaState.stateChanged, false);
    const after = h.nfaState.partialMatches.items;
    assert.equal(after.length, before.length);
    for (let i = 0; i < after.length; i++) assert.equal(after[i], before[i]);
  });
});

describe('NFA.startsNothing', () => {
  const starts = (p: Pattern<Event, any, any, any>, name: string) =>
    !nfaOf(p).startsNothing(new Event(0, name, 0), 1);

  it('only the start states count: an event a later stage takes starts nothing', () => {
    assert.equal(starts(abc(), 'x'), false);
    assert.equal(starts(abc(), 'b'), false);
    assert.equal(starts(abc(), 'c'), false);
    assert.equal(starts(abc(), 'a'), true);
  });

  it('a start state that proceeds to a stage which takes or ignores the event starts something', () => {
    const optionalStart = Pattern.begin<Event>('a')
      .where(named('a'))
      .optional()
      .followedBy('b')
      .where(named('b'));
    assert.equal(starts(optionalStart, 'b'), true);
    assert.equal(starts(optionalStart, 'x'), true);
  });

  it('a start condition that reads the partial match, or throws, leaves the answer false', () => {
    const reads = Pattern.begin<Event>('a').where(
      (e, ctx) => ctx.getEventsForPattern('a').length === 0 && e.name === 'a',
    );
    assert.equal(starts(reads, 'x'), true);
    const throws = Pattern.begin<Event>('a').where((e) => {
      if (e.name === 'boom') throw new Error('boom');
      return e.name === 'a';
    });
    assert.equal(nfaOf(throws).startsNothing(new Event(0, 'boom', 0), 1), false);
    assert.equal(starts(throws, 'x'), false);
  });

  it('an event that starts nothing leaves an idle NFA state as it is', () => {
    const h = new NFATestHarness(abc().within(100));
    const before = h.nfaState.partialMatches.items.slice();
    const b = new Event(1, 'b', 0);
    assert.equal(h.nfa.startsNothing(b, 1), true);
    assert.deepEqual(h.consume(b, 1), []);
    assert.equal(h.nfaState.stateChanged, false);
    assert.deepEqual(h.nfaState.partialMatches.items, before);
  });
});

describe('NFA.eventReach', () => {
  const reach = (p: Pattern<Event, any, any, any>, name: string, timestamp = 1) =>
    nfaOf(p).eventReach(new Event(0, name, 0), timestamp);

  it('is inert, starts nothing, or may start: isInert and startsNothing in one answer', () => {
    assert.equal(reach(abc(), 'x'), EVENT_INERT);
    assert.equal(reach(abc(), 'a'), EVENT_MAY_START);
    assert.equal(reach(abc(), 'b'), EVENT_STARTS_NOTHING);
    assert.equal(reach(abc(), 'c'), EVENT_STARTS_NOTHING);
    // strict contiguity: nothing is inert, and only a starts something
    const strict = Pattern.begin<Event>('a').where(named('a')).next('b').where(named('b'));
    assert.equal(reach(strict, 'x'), EVENT_STARTS_NOTHING);
    assert.equal(reach(strict, 'a'), EVENT_MAY_START);
  });

  it('agrees with isInert and startsNothing when conditions read the context or throw', () => {
    const clockAfterStart = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where((e, ctx) => ctx.currentProcessingTime() < 0 && e.name === 'b');
    assert.equal(reach(clockAfterStart, 'x'), EVENT_STARTS_NOTHING);
    assert.equal(reach(clockAfterStart, 'a'), EVENT_MAY_START);
    const readsAtStart = Pattern.begin<Event>('a')
      .where((e, ctx) => ctx.getEventsForPattern('a').length === 0 && e.name === 'a')
      .followedBy('b')
      .where(named('b'));
    assert.equal(reach(readsAtStart, 'x'), EVENT_MAY_START);
    const throwsLater = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where((e) => {
        if (e.name === 'boom') throw new Error('boom');
        return e.name === 'b';
      });
    assert.equal(reach(throwsLater, 'boom'), EVENT_STARTS_NOTHING);
    assert.equal(reach(throwsLater, 'x'), EVENT_INERT);
    const late = Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where((_, ctx) => ctx.timestamp() >= 10);
    assert.equal(reach(late, 'x', 9), EVENT_INERT);
    assert.equal(reach(late, 'x', 10), EVENT_STARTS_NOTHING);
  });
});

describe('NFA.mayDropInertEvents', () => {
  it('holds unless time passing can complete a match at the time it is advanced to', () => {
    assert.equal(nfaOf(abc()).mayDropInertEvents, true);
    assert.equal(nfaOf(abc().within(10)).mayDropInertEvents, true);
    // a trailing notFollowedBy with a window completes when time passes it (a Pending state)
    const trailingNot = Pattern.begin<Event>('a')
      .where(named('a'))
      .notFollowedBy('n')
      .where(named('n'))
      .within(10);
    assert.equal(nfaOf(trailingNot).mayDropInertEvents, false);
    // a skip strategy holds completed matches back until earlier partial matches end, which a window does with time
    const skip = (within: boolean) => {
      const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipPastLastEvent())
        .where(named('a'))
        .followedBy('b')
        .where(named('b'));
      return nfaOf(within ? p.within(10) : p).mayDropInertEvents;
    };
    assert.equal(skip(false), true);
    assert.equal(skip(true), false);
    const perStage = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToNext())
      .where(named('a'))
      .followedBy('b')
      .where(named('b'))
      .within(5, 'PREVIOUS_AND_CURRENT');
    assert.equal(nfaOf(perStage).mayDropInertEvents, false);
  });
});
