// The NFA's branching: the Dewey versions of the partial matches one event opens (Flink's computeNextStates), the
// order of matches that share entries, PROCEED chains into the final state, edges without a condition, and the
// condition context's reads of a partial match's path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import { Pattern } from '../pattern/pattern.ts';
import { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import { NFA } from './nfa.ts';
import { SharedBuffer } from './shared-buffer/shared-buffer.ts';
import { SharedBufferAccessor } from './shared-buffer/shared-buffer-accessor.ts';
import { State } from './state.ts';
import { Event, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';

const named = (n: string) => (e: Event) => e.name === n;
const namedAny =
  (...ns: string[]) =>
  (e: Event) =>
    ns.includes(e.name);
const ev = (id: number, name: string) => new Event(id, name, 0);

/** The partial matches as `state@version`, in the queue's order. */
const versions = (h: NFATestHarness<Event>) =>
  h.nfaState.partialMatches.items.map((cs) => `${cs.currentStateName}@${cs.version.join('.')}`);

describe('NFA branching', () => {
  it('Dewey versions of an event that opens three TAKE and two IGNORE branches from one partial match', () => {
    // s0 a, s1 b+ (optional), s2 b (optional, followedByAny), s3 b|c (followedByAny). Its states:
    //   s0 (start): TAKE -> s1:1
    //   s1:1: TAKE -> s1, PROCEED -> s2, IGNORE -> s1:2      (the loop's first b)
    //   s1:   PROCEED -> s2, TAKE -> s1, IGNORE -> s1:0      (the loop)
    //   s2:   TAKE -> s3, PROCEED -> s3, IGNORE -> s2:0
    //   s2:0: TAKE -> s3, IGNORE -> s2:0 (self)
    //   s3:   TAKE -> $endState$, IGNORE -> s3 (self)
    const h = new NFATestHarness(
      Pattern.begin<Event>('s0')
        .where(named('a'))
        .followedBy('s1')
        .where(named('b'))
        .oneOrMore()
        .optional()
        .followedByAny('s2')
        .where(named('b'))
        .optional()
        .followedByAny('s3')
        .where(namedAny('b', 'c')),
    );
    const [a1, b2, b3] = [ev(1, 'a'), ev(2, 'b'), ev(3, 'b')];
    assert.deepEqual(h.consume(a1, 1), []);
    // the start state took one branch: the partial match gets 1 + 0 and a stage, the start state 1 + 1
    assert.deepEqual(versions(h), ['s1:1@1.0', 's0@2']);

    // From s1:1 at 1.0, b2 opens, depth first: TAKE -> s1, (PROCEED to s2) TAKE -> s3, IGNORE -> s2:0,
    // (PROCEED to s3) TAKE -> final, IGNORE -> s3: 3 takes, 2 ignores. Takes count down from 1.(0 + 3 - 1),
    // ignores from 1.(0 + (3 - 1) + 2), each with a stage of its own.
    assert.deepEqual(h.consume(b2, 2), [{ s0: [a1], s3: [b2] }]);
    assert.deepEqual(versions(h), ['s1@1.2.0', 's3@1.1.0', 's2:0@1.4.0', 's3@1.3.0', 's0@2']);

    // From s1 at 1.2.0 the same branches (its TAKE into itself counts as a take): 1.2.(2, 1, 0) and 1.2.(4, 3).
    // s3 and s2:0 take once and ignore themselves: the ignore adds 0 ignores + 1 take to the last digit.
    assert.deepEqual(h.consume(b3, 3), [
      { s0: [a1], s1: [b2], s3: [b3] },
      { s0: [a1], s3: [b3] },
      { s0: [a1], s2: [b2], s3: [b3] },
    ]);
    assert.deepEqual(versions(h), [
      's1@1.2.2.0',
      's3@1.2.1.0',
      's2:0@1.2.4.0',
      's3@1.2.3.0',
      's3@1.1.1',
      's3@1.4.0.0',
      's2:0@1.4.1',
      's3@1.3.1',
      's0@2',
    ]);
  });

  it('an optional first stage: the start state counts the branches behind its PROCEED edge', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('s0').where(named('b')).optional().followedBy('s1').where(namedAny('b', 'c')),
    );
    const step = (e: Event, ts: number) => {
      h.nfaState.stateChanged = false;
      h.nfaState.newStartPartialMatch = false;
      const matches = h.consume(e, ts);
      return { matches, changed: h.nfaState.stateChanged, started: h.nfaState.newStartPartialMatch };
    };
    // a: no take; s1's IGNORE (reached by PROCEED) is an ignore branch of the start state: 1 + (1 + 1).
    // The start state changed, but no partial match started.
    assert.deepEqual(step(ev(1, 'a'), 1), { matches: [], changed: true, started: false });
    assert.deepEqual(versions(h), ['s0@3']);
    // b: TAKE -> s1 and (PROCEED to s1) TAKE -> final: 3.(3 + 1).0 waits for s1, b alone matches s1,
    // and the start state adds 0 ignores + 2 takes
    const b2 = ev(2, 'b');
    assert.deepEqual(step(b2, 2), { matches: [{ s1: [b2] }], changed: true, started: true });
    assert.deepEqual(versions(h), ['s1@4.0', 's0@5']);
  });

  it('matches completed by one event that share its entry come out in the order of their first event, each with its own path', () => {
    // s0 (b|c)? next s1 (a|c): c3 completes after c2 (s0 c2, s1 c3) and alone (s1 c3); both take c3 into s1,
    // one entry with two edges, which only their versions tell apart
    const h = new NFATestHarness(
      Pattern.begin<Event>('s0').where(namedAny('b', 'c')).optional().next('s1').where(namedAny('a', 'c')),
    );
    const [a1, c2, c3] = [ev(1, 'a'), ev(2, 'c'), ev(3, 'c')];
    assert.deepEqual(h.consume(a1, 1), [{ s1: [a1] }]);
    assert.deepEqual(h.consume(c2, 2), [{ s1: [c2] }]);
    assert.deepEqual(h.consume(c3, 3), [{ s0: [c2], s1: [c3] }, { s1: [c3] }]);
  });

  it('a match completes through a chain of PROCEED edges (two optional stages at the end)', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('s0')
        .where(named('a'))
        .followedBy('s1')
        .where(named('b'))
        .optional()
        .followedBy('s2')
        .where(named('c'))
        .optional(),
    );
    const [a1, b2, c3] = [ev(1, 'a'), ev(2, 'b'), ev(3, 'c')];
    assert.deepEqual(h.consume(a1, 1), [{ s0: [a1] }]);
    assert.deepEqual(h.consume(b2, 2), [{ s0: [a1], s1: [b2] }]);
    assert.deepEqual(h.consume(c3, 3), [
      { s0: [a1], s1: [b2], s2: [c3] },
      { s0: [a1], s2: [c3] },
    ]);
  });

  it('an edge without a condition is always followed', () => {
    // start --TAKE (no condition)--> middle --TAKE (no condition)--> final, middle ignoring nothing
    const end = new State<string>('end', 'Final');
    const middle = new State<string>('middle', 'Normal');
    const start = new State<string>('start', 'Start');
    start.addTake(middle, undefined);
    middle.addTake(end, undefined);
    const nfa = new NFA<string>(
      {
        states: [end, middle, start],
        windowTime: 0,
        windowTimes: new Map(),
        afterMatchSkipStrategy: AfterMatchSkipStrategy.noSkip(),
      },
      false,
    );
    const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
    backend.setCurrentKey('k');
    const accessor = new SharedBufferAccessor<string>(new SharedBuffer<string>(backend));
    const state = nfa.createInitialNFAState();
    const timers = { currentProcessingTime: () => 0 };
    const feed = (e: string, ts: number) =>
      nfa.process(accessor, state, e, ts, AfterMatchSkipStrategy.noSkip(), timers);
    assert.deepEqual(feed('x', 1), []);
    assert.deepEqual(feed('y', 2), [{ start: ['x'], middle: ['y'] }]);
    assert.deepEqual(feed('z', 3), [{ start: ['y'], middle: ['z'] }]);
  });

  it('extractCurrentMatches: the events so far; none for a start state or a partial match whose entries were released', () => {
    const h = new NFATestHarness(
      Pattern.begin<Event>('a').where(named('a')).followedBy('b').where(named('b')).within(10),
      true,
    );
    const a1 = ev(1, 'a');
    h.consume(a1, 1);
    const [waiting, start] = h.nfaState.partialMatches.items as [any, any];
    assert.deepEqual(h.accessor.materializeMatch(h.nfa.extractCurrentMatches(h.accessor, waiting)), {
      a: [a1],
    });
    assert.deepEqual(h.nfa.extractCurrentMatches(h.accessor, start), new Map());
    // a1's partial match times out at 11 and releases its entry
    h.advance(11);
    assert.equal(h.timedOut.length, 1);
    assert.equal(h.buffer.numEntries(), 0);
    assert.deepEqual(h.nfa.extractCurrentMatches(h.accessor, waiting), new Map());
  });
});

describe('NFA condition context', () => {
  it('reads a partial match path once per event, and answers a repeated stage from what it read', () => {
    const seen: (readonly Event[])[] = [];
    const h = new NFATestHarness(
      Pattern.begin<Event>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .followedBy('c')
        .where((e, ctx) => {
          const a = ctx.getEventsForPattern('a');
          const b = ctx.getEventsForPattern('b');
          const again = ctx.getEventsForPattern('b');
          seen.push(a, b, again);
          return e.name === 'c' && again === b && a[0]!.price === b[0]!.price;
        }),
    );
    let walks = 0;
    const extractFirstPath = h.accessor.extractFirstPath.bind(h.accessor);
    h.accessor.extractFirstPath = (node, version, out) => {
      walks++;
      return extractFirstPath(node, version, out);
    };
    const [a1, b2, c3] = [ev(1, 'a'), ev(2, 'b'), ev(3, 'c')];
    h.consume(a1, 1);
    h.consume(b2, 2);
    assert.equal(walks, 0);
    // the partial match waiting for c reads its path once for the questions of its TAKE and IGNORE conditions;
    // the completed match is read once more
    assert.deepEqual(h.consume(c3, 3), [{ a: [a1], b: [b2], c: [c3] }]);
    assert.equal(walks, 2);
    assert.deepEqual(seen, [[a1], [b2], [b2], [a1], [b2], [b2]]);
  });
});
