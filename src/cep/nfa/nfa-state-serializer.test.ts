// The NFA state serializer: a snapshot mid-match resumes exactly, and long shared-buffer paths do not overflow the stack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { Pattern } from '../pattern/pattern.ts';
import { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import { Event, NFATestHarness, flatten } from '../../../test/support/nfa-test-harness.ts';
import { nfaStateSerializer } from './nfa-state-serializer.ts';

const named = (n: string) => (e: Event) => e.name === n;

/** Feeds `events` to two harnesses; the second round-trips its NFA state through the serializer every `every` events. */
function runBoth(pattern: () => Pattern<Event, any, any, any>, events: Event[], every: number) {
  const plain = new NFATestHarness(pattern(), true);
  const restored = new NFATestHarness(pattern(), true);
  const out: [string[], string[]] = [[], []];
  events.forEach((e, i) => {
    out[0].push(
      ...plain.consume(e, i + 1).map((m) =>
        flatten(m)
          .map((x) => x.id)
          .join(','),
      ),
    );
    if (i % every === 0)
      restored.nfaState = nfaStateSerializer.deserialize(nfaStateSerializer.serialize(restored.nfaState));
    out[1].push(
      ...restored.consume(e, i + 1).map((m) =>
        flatten(m)
          .map((x) => x.id)
          .join(','),
      ),
    );
  });
  return { plain, restored, out };
}

describe('nfaStateSerializer', () => {
  it('resumes mid-match with the same matches, timeouts and buffer counts', () => {
    const names = ['a', 'b', 'b', 'x', 'a', 'b', 'c', 'b', 'c', 'a', 'c', 'b', 'b', 'c'];
    const events = Array.from({ length: 200 }, (_, i) => new Event(i, names[i % names.length]!, i));
    const pattern = () =>
      Pattern.begin<Event>('a')
        .where(named('a'))
        .followedByAny('b')
        .where(named('b'))
        .oneOrMore()
        .followedBy('c')
        .where(named('c'))
        .within(12);
    for (const every of [1, 3, 17]) {
      const { plain, restored, out } = runBoth(pattern, events, every);
      assert.ok(out[0].length > 0);
      assert.deepEqual(out[1], out[0]);
      assert.equal(restored.timedOut.length, plain.timedOut.length);
      assert.equal(restored.buffer.numEntries(), plain.buffer.numEntries());
    }
  });

  it('handles a path of 1,500 entries, where structured clone overflows the stack', () => {
    const n = 1_500;
    const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(named('a'))
      .next('b')
      .where(named('b'))
      .oneOrMore()
      .consecutive()
      .greedy()
      .next('c')
      .where(named('c'));
    const h = new NFATestHarness(p);
    h.consume(new Event(0, 'a', 0), 0);
    for (let i = 1; i <= n; i++) h.consume(new Event(i, 'b', 0), i);
    assert.throws(() => serialize(h.nfaState), RangeError);
    h.nfaState = nfaStateSerializer.deserialize(nfaStateSerializer.serialize(h.nfaState));
    const matches = h.consume(new Event(n + 1, 'c', 0), n + 1);
    assert.equal(matches.length, 1);
    assert.equal(matches[0]!['b']!.length, n);
  });
});

describe('nfaStateSerializer, the whole state', () => {
  type Ev = { id: number; name: string; price: number };
  const ev = (id: number, name: string, price: number): Ev => ({ id, name, price });
  // a b whose price equals the a's: a later a can complete first and wait behind an earlier partial match
  const pattern = () =>
    Pattern.begin<Ev>('a', AfterMatchSkipStrategy.skipToNext())
      .where((e) => e.name === 'a')
      .followedBy('b')
      .where((e, ctx) => e.name === 'b' && ctx.getEventsForPattern('a')[0]!.price === e.price);
  const ids = (matches: Record<string, Ev[]>[]) =>
    matches.map((m) => Object.values(m).flatMap((es) => es.map((e) => e.id)));

  it('keeps completed matches held back, both flags, the counters of events and entries, and shared entries', () => {
    const h = new NFATestHarness<Ev>(pattern());
    assert.deepEqual(
      ids(
        h.feedMaps([
          [ev(1, 'a', 1), 1],
          [ev(2, 'a', 2), 2],
          [ev(3, 'b', 2), 3],
        ]),
      ),
      [],
    );
    const state = h.nfaState;
    assert.equal(state.completedMatches.items.length, 1);
    state.stateChanged = true;
    state.newStartPartialMatch = false;
    const restored = nfaStateSerializer.deserialize(nfaStateSerializer.serialize(state));
    // the same graph: plain data compared field by field (elements are structured-cloned)
    assert.deepStrictEqual(restored, state);
    state.stateChanged = false;
    state.newStartPartialMatch = true;
    const flags = nfaStateSerializer.deserialize(nfaStateSerializer.serialize(state));
    assert.equal(flags.stateChanged, false);
    assert.equal(flags.newStartPartialMatch, true);
    // one object per entry and per event, as before: a start event is its entry's event
    const waiting = restored.partialMatches.items.find((cs) => cs.currentStateName === 'b')!;
    assert.equal(waiting.startEventId, waiting.previousBufferEntry!.event);
    const held = restored.completedMatches.items[0]!;
    assert.equal(held.startEventId, held.previousBufferEntry!.edges[0]!.target!.event);
    // matching resumes: the b for the first a completes it, and the held-back match follows (skipToNext keeps it)
    h.nfaState = restored;
    assert.deepEqual(ids(h.feedMaps([[ev(4, 'b', 1), 4]])), [
      [1, 4],
      [2, 3],
    ]);
  });

  it('keeps an entry shared by a partial match and a completed match held back, with the edges into it', () => {
    // a, any b, then a c of the a's price: b3 follows both a1 and a2 (one entry, two edges); c4 completes a2 b3 c4,
    // which waits behind a1 b3, the partial match that holds the shared entry
    const h = new NFATestHarness<Ev>(
      Pattern.begin<Ev>('a', AfterMatchSkipStrategy.skipToNext())
        .where((e) => e.name === 'a')
        .followedByAny('b')
        .where((e) => e.name === 'b')
        .followedBy('c')
        .where((e, ctx) => e.name === 'c' && ctx.getEventsForPattern('a')[0]!.price === e.price),
    );
    const [a1, a2, b3, c4, c5] = [ev(1, 'a', 1), ev(2, 'a', 2), ev(3, 'b', 0), ev(4, 'c', 2), ev(5, 'c', 1)];
    assert.deepEqual(
      h.feedMaps([
        [a1, 1],
        [a2, 2],
        [b3, 3],
        [c4, 4],
      ]),
      [],
    );
    const held = h.nfaState.completedMatches.items;
    assert.equal(held.length, 1);
    const restored = nfaStateSerializer.deserialize(nfaStateSerializer.serialize(h.nfaState));
    assert.deepStrictEqual(restored, h.nfaState);
    const shared = restored.partialMatches.items.find(
      (cs) => cs.currentStateName === 'c',
    )!.previousBufferEntry!;
    assert.equal(restored.completedMatches.items[0]!.previousBufferEntry!.edges[0]!.target, shared);
    h.nfaState = restored;
    assert.deepEqual(h.consume(c5, 5), [
      { a: [a1], b: [b3], c: [c5] },
      { a: [a2], b: [b3], c: [c4] },
    ]);
  });

  it('rejects a snapshot of an unknown version', () => {
    const bytes = serialize({ version: 2 });
    assert.throws(() => nfaStateSerializer.deserialize(bytes), {
      message: 'Unknown NFA state snapshot version 2',
    });
  });
});
