// Partial-match snapshots: the keys a CEP operator reports, keys by oldest partial match then key text, matches by start.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import { Event, NFATestHarness } from '../../../test/support/nfa-test-harness.ts';
import { compilePattern } from '../nfa/compiler/nfa-compiler.ts';
import { Pattern } from '../pattern/pattern.ts';
import { CepOperator } from './cep-operator.ts';
import { DEFAULT_PARTIAL_MATCH_QUERY, snapshotPartialMatches } from './partial-match-snapshot.ts';

const named = (n: string) => (e: Event) => e.name === n;

/** `a b? c` fed `a`s then an `x`: each `a` then waits in two NFA states at once, `b:0` and `c`. */
function harness(...starts: number[]): NFATestHarness<Event> {
  const h = new NFATestHarness<Event>(
    Pattern.begin<Event>('a')
      .where(named('a'))
      .followedBy('b')
      .where(named('b'))
      .optional()
      .followedBy('c')
      .where(named('c')),
  );
  h.feed([...starts.map((ts) => [new Event(ts, 'a', 1), ts] as const), [new Event(0, 'x', 1), 10]]);
  return h;
}

const started = (h: NFATestHarness<Event>) =>
  h.nfaState.partialMatches.items.filter((s) => s.startEventId !== null);

describe('snapshotPartialMatches', () => {
  it('shows 100 keys and 20 events per partial match with records of up to 200 characters by default', () => {
    assert.deepEqual(DEFAULT_PARTIAL_MATCH_QUERY, {
      maxKeys: 100,
      maxEvents: 20,
      showRecords: true,
      maxRecordLength: 200,
    });
  });

  it('orders keys by their oldest partial match, then by key text, keys with queued events only last', () => {
    const early = harness(7, 3); // oldest 3, newest 7
    const late = harness(5);
    const snapshot = snapshotPartialMatches(
      2,
      [
        { key: 'q', partialMatches: [], queuedEvents: 2 },
        { key: 'z', partialMatches: started(late), queuedEvents: 0 },
        { key: 'p', partialMatches: [], queuedEvents: 1 },
        { key: 'y', partialMatches: started(late).reverse(), queuedEvents: 1 },
        { key: 'zz', partialMatches: started(early).reverse(), queuedEvents: 0 },
        { key: 'r', partialMatches: [], queuedEvents: 3 },
        { key: 'zzz', partialMatches: started(late), queuedEvents: 0 },
      ],
      early.accessor,
      DEFAULT_PARTIAL_MATCH_QUERY,
    );
    assert.equal(snapshot.subtask, 2);
    assert.equal(snapshot.numKeys, 7);
    assert.equal(snapshot.truncated, false);
    assert.deepEqual(
      snapshot.keys.map((k) => [
        k.key,
        k.queuedEvents,
        k.partialMatches.map((m) => `${m.state}@${m.startTimestamp}`),
      ]),
      [
        ['"zz"', 0, ['b:0@3', 'c@3', 'b:0@7', 'c@7']],
        ['"y"', 1, ['b:0@5', 'c@5']],
        ['"z"', 0, ['b:0@5', 'c@5']],
        ['"zzz"', 0, ['b:0@5', 'c@5']],
        ['"p"', 1, []],
        ['"q"', 2, []],
        ['"r"', 3, []],
      ],
    );
    assert.deepEqual(snapshot.keys[0]!.partialMatches[0], {
      state: 'b:0',
      startTimestamp: 3,
      numEvents: 1,
      events: [{ stage: 'a', timestamp: 3, record: '{"id":3,"name":"a","price":1}' }],
    });
  });

  it('shows the first maxKeys keys and says it cut the rest', () => {
    const h = harness(5);
    const snapshot = snapshotPartialMatches(
      0,
      [
        { key: 2, partialMatches: started(h), queuedEvents: 0 },
        { key: 1, partialMatches: started(h).reverse(), queuedEvents: 0 },
      ],
      h.accessor,
      { ...DEFAULT_PARTIAL_MATCH_QUERY, maxKeys: 1, showRecords: false },
    );
    assert.deepEqual(snapshot, {
      subtask: 0,
      numKeys: 2,
      truncated: true,
      keys: [
        {
          key: '1',
          queuedEvents: 0,
          partialMatches: [
            {
              state: 'b:0',
              startTimestamp: 5,
              numEvents: 1,
              events: [{ stage: 'a', timestamp: 5, record: null }],
            },
            {
              state: 'c',
              startTimestamp: 5,
              numEvents: 1,
              events: [{ stage: 'a', timestamp: 5, record: null }],
            },
          ],
        },
      ],
    });
  });
});

describe('CepOperator.partialMatchSnapshot', () => {
  interface Ev {
    readonly key: string;
    readonly name: string;
  }
  const is = (n: string) => (e: Ev) => e.name === n;

  function operatorHarness() {
    return new KeyedOperatorHarness<Ev, string>(
      () =>
        new CepOperator<Ev, string, string>(
          compilePattern(Pattern.begin<Ev>('a').where(is('a')).next('b').where(is('b'))),
          {
            processMatch: (_m: unknown, _ctx: unknown, out: { collect(v: string): void }) =>
              out.collect('match'),
          },
          false,
          undefined,
          undefined,
        ),
      (e) => e.key,
    );
  }

  it('lists each key holding a partial match or queued events once, and skips keys whose matches completed', () => {
    const h = operatorHarness();
    const cep = h.operator as CepOperator<Ev, string, string>;
    // p: a match completed, nothing left; q: a partial match and a queued event; r: a queued event only
    h.processElement({ key: 'p', name: 'a' }, 1);
    h.processElement({ key: 'p', name: 'b' }, 2);
    h.processElement({ key: 'q', name: 'a' }, 3);
    h.processWatermark(3);
    h.processElement({ key: 'q', name: 'x' }, 9);
    h.processElement({ key: 'r', name: 'x' }, 8);
    assert.deepEqual(
      h.records().map((r) => r.value),
      ['match'],
    );
    const snapshot = cep.partialMatchSnapshot({ ...DEFAULT_PARTIAL_MATCH_QUERY, showRecords: false });
    assert.deepEqual(
      snapshot.keys.map((k) => [
        k.key,
        k.queuedEvents,
        k.partialMatches.map((m) => `${m.state}@${m.startTimestamp}`),
      ]),
      [
        ['"q"', 1, ['b@3']],
        ['"r"', 1, []],
      ],
    );
    assert.equal(snapshot.numKeys, 2);
    // the key the last record set is the current key again
    assert.equal(h.backend.getCurrentKey(), 'r');
  });

  it('leaves no current key behind when there was none', () => {
    const h = operatorHarness();
    const cep = h.operator as CepOperator<Ev, string, string>;
    h.processElement({ key: 'q', name: 'a' }, 3);
    h.processWatermark(3);
    h.backend.clearCurrentKey();
    assert.equal(cep.partialMatchSnapshot(DEFAULT_PARTIAL_MATCH_QUERY).numKeys, 1);
    assert.throws(() => h.backend.currentNormalizedKey());
  });
});
