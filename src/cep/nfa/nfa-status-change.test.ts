// Ported NFAStatusChangeITCase: the NFA state says it changed exactly when its partial matches or buffer did.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { Event, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;

/** Feeds one event after clearing the flag (Flink's `resetStateChanged`), returns whether the state changed. */
function changedBy(h: NFATestHarness<Event>, event: Event, timestamp: number): boolean {
  h.nfaState.stateChanged = false;
  h.consume(event, timestamp);
  return h.nfaState.stateChanged;
}

/** Advances time only (Flink's `process(null, timestamp)`), returns whether the state changed. */
function changedByTime(h: NFATestHarness<Event>, timestamp: number): boolean {
  h.nfaState.stateChanged = false;
  h.advance(timestamp);
  return h.nfaState.stateChanged;
}

describe('NFA state changes (ported from Flink NFAStatusChangeITCase)', () => {
  it('testNFAChange', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('a'))
      .followedByAny('middle')
      .where(named('b'))
      .oneOrMore()
      .optional()
      .allowCombinations()
      .followedBy('middle2')
      .where(named('d'))
      .followedBy('end')
      .where(named('e'))
      .within(10);
    const h = new NFATestHarness(p, true);
    // the event does not match the take condition of the start state
    assert.equal(changedBy(h, new Event(1, 'b', 1.0), 1), false);
    // the event matches the take condition of the start state
    assert.equal(changedBy(h, new Event(2, 'a', 1.0), 2), true);
    // the ignore and proceed conditions of 'middle:1' make more than one computation state of one
    assert.equal(changedBy(h, new Event(3, 'f', 1.0), 3), true);
    // only the ignore condition of 'middle:2' matches and its target is 'middle:2' again
    assert.equal(changedBy(h, new Event(4, 'f', 1.0), 4), false);
    // the take condition of 'middle:2'
    assert.equal(changedBy(h, new Event(5, 'b', 1.0), 5), true);
    // the take condition of 'middle2'
    assert.equal(changedBy(h, new Event(6, 'd', 1.0), 6), true);
    // within the window nothing times out
    assert.equal(changedByTime(h, 8), false);
    assert.equal(h.timedOut.length, 0);
    // the partial matches started at 2 time out at 12
    assert.equal(changedByTime(h, 12), true);
    assert.notEqual(h.timedOut.length, 0);
    assert.deepEqual(new Set(h.timedOut.map((t) => t.timestamp)), new Set([12]));
  });

  it('testNFAChangedOnOneNewComputationState', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('start'))
      .followedBy('a*')
      .where(named('a'))
      .oneOrMore()
      .optional()
      .next('end')
      .where(named('b'))
      .within(10);
    const h = new NFATestHarness(p, true);
    changedBy(h, new Event(6, 'start', 1.0), 6);
    assert.equal(changedBy(h, new Event(6, 'a', 1.0), 7), true);
  });

  it('testNFAChangedOnTimeoutWithoutPrune', () => {
    const p = Pattern.begin<Event>('start')
      .where(named('start'))
      .followedBy('end')
      .where(named('end'))
      .within(10);
    const h = new NFATestHarness(p, true);
    changedBy(h, new Event(6, 'start', 1.0), 6);
    assert.equal(changedBy(h, new Event(6, 'end', 1.0), 17), true);
    assert.deepEqual(
      h.timedOut.map((t) => [t.match, t.timestamp]),
      [[{ start: [new Event(6, 'start', 1.0)] }, 16]],
    );
  });
});
