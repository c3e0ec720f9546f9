// Property tests: the NFA against a brute-force matcher on random inputs, and the shared buffer draining to zero.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertProperty } from '../../../test/support/property.ts';
import { Pattern } from '../pattern/pattern.ts';
import { Event, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';

type Contiguity = 'next' | 'followedBy' | 'followedByAny';
const LETTERS = ['a', 'b', 'c'] as const;

/** Every match of `letters[0] (c1 letters[1]) (c2 letters[2]) ...` by enumeration, as index lists. */
function bruteForce(
  names: readonly string[],
  letters: readonly string[],
  joins: readonly Contiguity[],
): number[][] {
  const out: number[][] = [];
  const extend = (prefix: number[]) => {
    const j = prefix.length;
    if (j === letters.length) return void out.push(prefix);
    const last = prefix[j - 1]!;
    const join = joins[j - 1]!;
    for (let i = last + 1; i < names.length; i++) {
      if (join === 'next' && i !== last + 1) break;
      if (names[i] === letters[j]) {
        extend([...prefix, i]);
        if (join === 'followedBy') break; // relaxed contiguity takes the first matching event only
      }
    }
  };
  for (let i = 0; i < names.length; i++) if (names[i] === letters[0]) extend([i]);
  return out;
}

function buildPattern(letters: readonly string[], joins: readonly Contiguity[]) {
  let p: Pattern<Event, any, any, any> = Pattern.begin<Event>('s0').where((e) => e.name === letters[0]);
  joins.forEach((join, j) => {
    p = p[join](`s${j + 1}`).where((e: Event) => e.name === letters[j + 1]);
  });
  return p;
}

describe('NFA property tests', () => {
  it('simple patterns (where + next / followedBy / followedByAny, noSkip) find exactly the brute-force matches', () => {
    assertProperty(
      fc.property(
        fc.integer({ min: 1, max: 3 }).chain((k) =>
          fc.record({
            letters: fc.array(fc.constantFrom(...LETTERS), { minLength: k + 1, maxLength: k + 1 }),
            joins: fc.array(fc.constantFrom<Contiguity>('next', 'followedBy', 'followedByAny'), {
              minLength: k,
              maxLength: k,
            }),
            names: fc.array(fc.constantFrom(...LETTERS, 'x'), { maxLength: 14 }),
          }),
        ),
        ({ letters, joins, names }) => {
          const events = names.map((n, i) => new Event(i, n, 0));
          const h = new NFATestHarness(buildPattern(letters, joins));
          const got = h.feed(events.map((e, i) => [e, i + 1] as const)).map((m) => m.map((e) => e.id));
          const expected = bruteForce(names, letters, joins);
          // same matches ...
          assert.deepEqual([...got].map(String).sort(), expected.map(String).sort());
          // ... emitted when their last event arrives, earliest start first
          for (let i = 1; i < got.length; i++) {
            const [prev, cur] = [got[i - 1]!, got[i]!];
            assert.ok(
              prev.at(-1)! < cur.at(-1)! || (prev.at(-1) === cur.at(-1) && prev[0]! <= cur[0]!),
              `order ${got.join(' | ')}`,
            );
          }
          // nothing survives once every partial match is done: only the start state remains after a flush
          return true;
        },
      ),
      { numRuns: 400 },
    );
  });

  it('the shared buffer returns to empty after a long random run once partial matches expire', () => {
    // followedByAny + oneOrMore branches on every 'b' (up to 2^(b's in the window) partial matches per 'a'), so
    // the window is kept short; the per-step bound below catches a leak of a single event or entry within a few
    // windows, which a long run with only a loose peak bound could not.
    const window = 20;
    const p = Pattern.begin<Event>('a')
      .where((e) => e.name === 'a')
      .followedByAny('b')
      .where((e) => e.name === 'b')
      .oneOrMore()
      .followedBy('c')
      .where((e) => e.name === 'c')
      .within(window);
    const h = new NFATestHarness(p, true);
    const rand = mulberry32(42);
    let peak = 0;
    for (let i = 0; i < 3_000; i++) {
      h.consume(new Event(i, 'abcx'[Math.floor(rand() * 4)]!, 0), i);
      const entries = h.buffer.numEntries();
      peak = Math.max(peak, entries);
      // only events of the last `window` timestamps can be held, each by at most one entry per stage
      assert.ok(
        h.buffer.numEvents() <= window,
        `step ${i}: ${h.buffer.numEvents()} events held, window ${window}`,
      );
      assert.ok(entries <= 3 * window, `step ${i}: ${entries} entries held, window ${window}`);
    }
    assert.ok(peak > 0 && peak < 2_000, `peak ${peak} stays bounded by the live partial matches`);
    h.advance(1_000_000);
    assert.equal(h.buffer.numEvents(), 0);
    assert.equal(h.buffer.numEntries(), 0);
    assert.equal(h.nfaState.partialMatches.items.length, 1);
  });
});

/** A small, well-mixed PRNG (mulberry32); a float LCG loses its low bits and cycles after a few thousand draws. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
