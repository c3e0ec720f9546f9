// The NFA's queries and guards: its states, idleness, the next timeout, windows of both kinds, the condition context.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import { initialNFAState } from './nfa-state.ts';
import { Event, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;
const ev = (id: number, name: string, price = 0) => new Event(id, name, price);
const ab = () => Pattern.begin<Event>('a').where(named('a')).followedBy('b').where(named('b'));

describe('NFA runtime', () => {
  it('lists its compiled states', () => {
    const h = new NFATestHarness(ab());
    assert.deepEqual(
      [...h.nfa.getStates()].map((s) => `${s.stateType} ${s.name}`),
      ['Final $endState$', 'Normal b', 'Start a'],
    );
    // each prints its type, name and edges
    assert.deepEqual([...h.nfa.getStates()].map(String), [
      'Final State $endState$ []',
      'Normal State b [TAKE -> $endState$, IGNORE -> b]',
      'Start State a [TAKE -> b]',
    ]);
  });

  it('starts a key with one start state at version 1, nothing completed and both flags down', () => {
    const h = new NFATestHarness(ab());
    assert.deepStrictEqual(h.nfa.createInitialNFAState(), {
      partialMatches: {
        items: [
          {
            currentStateName: 'a',
            version: [1],
            previousBufferEntry: null,
            startTimestamp: -1,
            previousTimestamp: -1,
            startEventId: null,
          },
        ],
      },
      completedMatches: { items: [] },
      stateChanged: false,
      newStartPartialMatch: false,
    });
  });

  it('fails naming the states it has when a partial match is in a state it does not know', () => {
    const h = new NFATestHarness(ab());
    h.nfaState = initialNFAState(['c']);
    assert.throws(() => h.consume(ev(1, 'a'), 1), {
      message: 'State c does not exist in the NFA. NFA has states $endState$, b, a',
    });
  });

  it('is idle with only start states waiting, busy with a partial match or a completed match held back', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToNext())
        .where(named('a'))
        .followedBy('b')
        .where((e, ctx) => e.name === 'b' && ctx.getEventsForPattern('a')[0]!.price === e.price),
    );
    assert.equal(h.nfa.isIdle(h.nfaState), true);
    h.consume(ev(1, 'x'), 1);
    assert.equal(h.nfa.isIdle(h.nfaState), true);
    h.consume(ev(2, 'a', 1), 2);
    assert.equal(h.nfa.isIdle(h.nfaState), false);
    h.consume(ev(3, 'a', 2), 3);
    // a2 b4 completes and waits behind a1's partial match
    assert.deepEqual(h.consume(ev(4, 'b', 2), 4), []);
    assert.equal(h.nfaState.completedMatches.items.length, 1);
    // with the partial matches gone, the completed match alone keeps the key busy
    const onlyCompleted = { ...h.nfaState, partialMatches: initialNFAState(['a']).partialMatches };
    assert.equal(h.nfa.isIdle(onlyCompleted), false);
    assert.equal(h.nfa.isIdle({ ...onlyCompleted, completedMatches: { items: [] } }), true);
  });

  it('next timeout: none without a window or with only start states; first event + window; previous event + gap', () => {
    const plain = new NFATestHarness(ab());
    plain.consume(ev(1, 'a'), 5);
    assert.equal(plain.nfa.nextTimeout(plain.nfaState), Number.POSITIVE_INFINITY);

    const windowed = new NFATestHarness(ab().within(10));
    assert.equal(windowed.nfa.nextTimeout(windowed.nfaState), Number.POSITIVE_INFINITY);
    windowed.consume(ev(1, 'x'), 3);
    assert.equal(windowed.nfa.nextTimeout(windowed.nfaState), Number.POSITIVE_INFINITY);
    windowed.consume(ev(2, 'a'), 5);
    windowed.consume(ev(3, 'a'), 7);
    assert.equal(windowed.nfa.nextTimeout(windowed.nfaState), 15);

    const gap = new NFATestHarness(
      Pattern.begin<Event>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .within(4, 'PREVIOUS_AND_CURRENT')
        .followedBy('c')
        .where(named('c'))
        .within(10),
    );
    gap.consume(ev(1, 'a'), 5);
    // waiting for b: 5 + 4
    assert.equal(gap.nfa.nextTimeout(gap.nfaState), 9);
    gap.consume(ev(2, 'b'), 8);
    // waiting for c (no gap): 5 + 10
    assert.equal(gap.nfa.nextTimeout(gap.nfaState), 15);
    // a second a waits for b until 9 + 4
    gap.consume(ev(3, 'a'), 9);
    assert.equal(gap.nfa.nextTimeout(gap.nfaState), 13);

    // the earliest of several: two partial matches waiting for c, started at 5 and 6
    const two = new NFATestHarness(ab().followedBy('c').where(named('c')).within(10));
    two.consume(ev(1, 'a'), 5);
    two.consume(ev(2, 'a'), 6);
    two.consume(ev(3, 'b'), 7);
    assert.deepEqual(
      two.nfaState.partialMatches.items.map((cs) => [cs.currentStateName, cs.startTimestamp]),
      [
        ['c', 5],
        ['c', 6],
        ['a', -1],
      ],
    );
    assert.equal(two.nfa.nextTimeout(two.nfaState), 15);

    // a gap alone (no first-to-last window); a gap of 0 is no gap
    const gapOnly = (ms: number) =>
      new NFATestHarness(ab().within(ms, 'PREVIOUS_AND_CURRENT').followedBy('c').where(named('c')));
    const four = gapOnly(4);
    four.consume(ev(1, 'a'), 5);
    assert.equal(four.nfa.nextTimeout(four.nfaState), 9);
    const zero = gapOnly(0);
    zero.consume(ev(1, 'a'), 5);
    assert.equal(zero.nfa.nextTimeout(zero.nfaState), Number.POSITIVE_INFINITY);
    assert.deepEqual(zero.advance(1_000), []);
    assert.equal(zero.nfaState.partialMatches.items.length, 2);

    // a state without any partial match (not even a start state) has none
    assert.equal(
      windowed.nfa.nextTimeout({ ...windowed.nfaState, partialMatches: { items: [] } }),
      Number.POSITIVE_INFINITY,
    );
  });

  it('next timeout with per-stage gaps: the earliest of every partial match, by its gap or by the window', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .within(4, 'PREVIOUS_AND_CURRENT')
        .followedBy('c')
        .where(named('c'))
        .within(10),
    );
    h.consume(ev(1, 'a'), 5);
    h.consume(ev(2, 'a'), 6);
    // both wait for b: gaps end at 9 and 10, windows at 15 and 16
    assert.equal(h.nfa.nextTimeout(h.nfaState), 9);
    h.consume(ev(3, 'b'), 8);
    // both wait for c (no gap): windows end at 15 and 16
    assert.equal(h.nfa.nextTimeout(h.nfaState), 15);
  });

  it('advanceTime with nothing to time out returns the shared empty result and leaves the queue as it is', () => {
    for (const p of [ab(), ab().within(10), ab().within(4, 'PREVIOUS_AND_CURRENT')]) {
      const h = new NFATestHarness(p, true);
      h.consume(ev(1, 'a'), 1);
      const queue = h.nfaState.partialMatches;
      h.nfaState.stateChanged = false;
      const result = h.nfa.advanceTime(h.accessor, h.nfaState, 4, h.skip);
      assert.deepEqual(result, { matches: [], timedOut: [] });
      assert.equal(Object.isFrozen(result), true);
      assert.equal(result, h.nfa.advanceTime(h.accessor, h.nfaState, 4, h.skip));
      assert.equal(h.nfaState.partialMatches, queue);
      assert.equal(h.nfaState.stateChanged, false);
    }
  });

  it('with per-stage gaps, the first-to-last window still times out a partial match in a stage without a gap', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .within(4, 'PREVIOUS_AND_CURRENT')
        .followedBy('c')
        .where(named('c'))
        .within(10),
      true,
    );
    const [a, b, a2] = [ev(1, 'a'), ev(2, 'b'), ev(3, 'a')];
    h.consume(a, 1);
    h.consume(b, 3);
    h.consume(a2, 9);
    assert.deepEqual(h.advance(10), []);
    assert.equal(h.timedOut.length, 0);
    // the partial match waiting for c times out at 1 + 10; the one waiting for b is within its gap (9 + 4)
    h.advance(11);
    assert.deepEqual(
      h.timedOut.map((t) => [t.match, t.timestamp]),
      [[{ a: [a], b: [b] }, 11]],
    );
    h.advance(13);
    assert.deepEqual(
      h.timedOut.map((t) => [t.match, t.timestamp]),
      [
        [{ a: [a], b: [b] }, 11],
        [{ a: [a2] }, 13],
      ],
    );
  });

  it('without a timeout handler, partial matches that time out are dropped and not collected', () => {
    const h = new NFATestHarness(ab().within(10), false);
    h.consume(ev(1, 'a'), 1);
    assert.equal(h.nfa.nextTimeout(h.nfaState), 11);
    h.advance(11);
    assert.equal(h.timedOut.length, 0);
    assert.equal(h.nfa.isIdle(h.nfaState), true);
    assert.equal(h.buffer.isEmpty(), true);
  });

  it('conditions see the timestamp of the event they are asked about', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('a')
        .where((e, ctx) => e.name === 'a' && ctx.timestamp() >= 5)
        .followedBy('b')
        .where((e, ctx) => e.name === 'b' && ctx.timestamp() % 2 === 0),
    );
    const [a1, a2, b1, b2] = [ev(1, 'a'), ev(2, 'a'), ev(3, 'b'), ev(4, 'b')];
    assert.deepEqual(
      h.feed([
        [a1, 4],
        [a2, 5],
        [b1, 7],
        [b2, 8],
      ]),
      [[a2, b2]],
    );
  });

  it('flags a new partial match only when a start state takes the event', () => {
    const h = new NFATestHarness(ab().within(10));
    const step = (e: Event, ts: number) => {
      h.nfaState.newStartPartialMatch = false;
      h.consume(e, ts);
      return h.nfaState.newStartPartialMatch;
    };
    assert.equal(step(ev(1, 'x'), 1), false);
    assert.equal(step(ev(2, 'a'), 2), true);
    // the partial match skips c, then completes with b: nothing new starts
    assert.equal(step(ev(3, 'c'), 3), false);
    assert.equal(step(ev(4, 'b'), 4), false);
  });

  it('a branch killed by a negative stage releases its events: the buffer empties', () => {
    for (const p of [
      Pattern.begin<Event>('a')
        .where(named('a'))
        .notNext('x')
        .where(named('x'))
        .followedBy('b')
        .where(named('b')),
      Pattern.begin<Event>('a')
        .where(named('a'))
        .notFollowedBy('x')
        .where(named('x'))
        .followedBy('b')
        .where(named('b')),
    ]) {
      const h = new NFATestHarness(p);
      assert.deepEqual(
        h.feed([
          [ev(1, 'a'), 1],
          [ev(2, 'x'), 2],
          [ev(3, 'b'), 3],
        ]),
        [],
      );
      assert.equal(h.nfa.isIdle(h.nfaState), true);
      assert.equal(h.buffer.numEntries(), 0);
      assert.equal(h.buffer.isEmpty(), true);
    }
  });

  it('a completed match held back is emitted at the event that kills the partial match before it', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToNext())
        .where(named('a'))
        .notFollowedBy('x')
        .where(named('x'))
        .followedBy('b')
        .where((e, ctx) => e.name === 'b' && ctx.getEventsForPattern('a')[0]!.price === e.price),
    );
    const [a1, a2, b2] = [ev(1, 'a', 1), ev(2, 'a', 2), ev(3, 'b', 2)];
    assert.deepEqual(h.consume(a1, 1), []);
    assert.deepEqual(h.consume(a2, 2), []);
    // a2 b2 completes and waits behind a1's partial match
    assert.deepEqual(h.consume(b2, 3), []);
    // an event that changes nothing leaves the state as it is
    h.nfaState.stateChanged = false;
    assert.deepEqual(h.consume(ev(4, 'c'), 4), []);
    assert.equal(h.nfaState.stateChanged, false);
    // x kills a1's branch, and with it what held a2 b2 back
    assert.deepEqual(h.consume(ev(5, 'x'), 5), [{ a: [a2], b: [b2] }]);
    assert.equal(h.nfaState.stateChanged, true);
  });

  it('Dewey versions: the start state counts the partial matches it started, each starts a stage of its own', () => {
    const h = new NFATestHarness(ab());
    const versions = () =>
      h.nfaState.partialMatches.items.map((cs) => `${cs.currentStateName} ${cs.version.join('.')}`);
    assert.deepEqual(versions(), ['a 1']);
    h.consume(ev(1, 'x'), 1);
    assert.deepEqual(versions(), ['a 1']);
    h.consume(ev(2, 'a'), 2);
    assert.deepEqual(versions(), ['b 1.0', 'a 2']);
    h.consume(ev(3, 'a'), 3);
    assert.deepEqual(versions(), ['b 1.0', 'b 2.0', 'a 3']);
  });
});
