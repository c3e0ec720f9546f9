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
