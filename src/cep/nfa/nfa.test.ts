// Ported NFAITCase cases: contiguity, subtypes, windows and timeouts on the pure NFA.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { Event, NFATestHarness, SubEvent, sortMatches } from '../../../test/support/nfa-test-harness.ts';

const name = (n: string) => (e: Event) => e.name === n;

describe('NFA (ported from Flink NFAITCase)', () => {
  it('testNoConditionNFA: followedByAny without conditions yields every ordered pair', () => {
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((n, i) => new Event(40 + i, n, i + 1)) as Event[];
    const h = new NFATestHarness(Pattern.begin<Event>('start').followedByAny('end'));
    const res = h.feed([a!, b!, c!, d!, e!].map((x, i) => [x, i + 1] as const));
    assert.deepEqual(
      sortMatches(res),
      sortMatches([
        [a!, b!],
        [a!, c!],
        [a!, d!],
        [a!, e!],
        [b!, c!],
        [b!, d!],
        [b!, e!],
        [c!, d!],
        [c!, e!],
        [d!, e!],
      ]),
    );
  });

  it('testSimplePatternNFA: start, subtype middle, end', () => {
    const start = new Event(41, 'start', 1.0);
    const middle = new SubEvent(42, 'foo', 1.0, 10.0);
    const end = new Event(43, 'end', 1.0);
    const p = Pattern.begin<Event>('start')
      .where(name('start'))
      .followedBy('middle')
      .subtype(SubEvent)
      .where((v) => v.volume > 5.0)
      .followedBy('end')
      .where(name('end'));
    const h = new NFATestHarness(p);
    const res = h.feed([
      [start, 1],
      [new Event(43, 'foobar', 1.0), 2],
      [new SubEvent(41, 'barfoo', 1.0, 5.0), 3],
      [middle, 3],
      [new Event(43, 'start', 1.0), 4],
      [end, 5],
    ]);
    assert.deepEqual(res, [[start, middle, end]]);
  });

  it('testStrictContinuityWithResults / NoResults', () => {
    const p = () => Pattern.begin<Event>('middle').where(name('a')).next('end').where(name('b'));
    const a = new Event(41, 'a', 2.0);
    const b = new Event(42, 'b', 4.0);
    assert.deepEqual(
      new NFATestHarness(p()).feed([
        [a, 3],
        [b, 5],
      ]),
      [[a, b]],
    );
    const c = new Event(42, 'c', 3.0);
    assert.deepEqual(
      new NFATestHarness(p()).feed([
        [a, 3],
        [c, 4],
        [b, 5],
      ]),
      [],
    );
  });

  it('testSimplePatternWithTimeWindowNFA: matches older than within are dropped', () => {
    const startEvent = new Event(2, 'start', 1.0);
    const middleEvent = new Event(3, 'middle', 1.0);
    const endEvent = new Event(5, 'end', 1.0);
    const p = Pattern.begin<Event>('start')
      .where(name('start'))
      .followedBy('middle')
      .where(name('middle'))
      .followedBy('end')
      .where(name('end'))
      .within(10);
    const res = new NFATestHarness(p).feed([
      [new Event(1, 'start', 1.0), 1],
      [startEvent, 2],
      [middleEvent, 3],
      [new Event(4, 'foobar', 1.0), 4],
      [endEvent, 11],
      [new Event(6, 'end', 1.0), 13],
    ]);
    assert.deepEqual(res, [[startEvent, middleEvent, endEvent]]);
  });

  it('testSimplePatternWithTimeoutHandling: timed-out partial matches carry start + window', () => {
    const p = Pattern.begin<Event>('start')
      .where(name('start'))
      .followedByAny('middle')
      .where(name('middle'))
      .followedByAny('end')
      .where(name('end'))
      .within(10);
    const h = new NFATestHarness(p, true);
    const res = h.feed([
      [new Event(1, 'start', 1.0), 1],
      [new Event(2, 'start', 1.0), 2],
      [new Event(3, 'middle', 1.0), 3],
      [new Event(4, 'foobar', 1.0), 4],
      [new Event(5, 'end', 1.0), 11],
      [new Event(6, 'end', 1.0), 13],
    ]);
    assert.equal(res.length, 1);
    const timeouts = h.timedOut
      .map(
        (t) =>
          `${Object.entries(t.match)
            .map(([k, v]) => `${k}=${v.map((e) => e.id).join(',')}`)
            .join(' ')}@${t.timestamp}`,
      )
      .sort();
    assert.deepEqual(timeouts, ['start=1 middle=3@11', 'start=1@11', 'start=2 middle=3@12', 'start=2@12']);
  });

  it('testBranchingPattern: followedByAny branches on every candidate', () => {
    const start = new Event(40, 'start', 1.0);
    const m1 = new SubEvent(41, 'foo1', 1.0, 10.0);
    const m2 = new SubEvent(42, 'foo2', 1.0, 10.0);
    const m3 = new SubEvent(43, 'foo3', 1.0, 10.0);
    const n1 = new SubEvent(44, 'next-one', 1.0, 2.0);
    const n2 = new SubEvent(45, 'next-one', 1.0, 2.0);
    const end = new Event(46, 'end', 1.0);
    const p = Pattern.begin<Event>('start')
      .where(name('start'))
      .followedByAny('middle-first')
      .subtype(SubEvent)
      .where((v) => v.volume > 5.0)
      .followedByAny('middle-second')
      .subtype(SubEvent)
      .where((v) => v.name === 'next-one')
      .followedByAny('end')
      .where(name('end'));
    const res = new NFATestHarness(p).feed([
      [start, 1],
      [m1, 3],
      [m2, 4],
      [m3, 5],
      [n1, 6],
      [n2, 7],
      [end, 8],
    ]);
    assert.deepEqual(
      sortMatches(res),
      sortMatches([
        [start, m1, n1, end],
        [start, m2, n1, end],
        [start, m3, n1, end],
        [start, m1, n2, end],
        [start, m2, n2, end],
        [start, m3, n2, end],
      ]),
    );
  });

  it('releases every shared-buffer entry once matches complete or time out', () => {
    const p = Pattern.begin<Event>('start')
      .where(name('start'))
      .followedByAny('middle')
      .where(name('middle'))
      .followedByAny('end')
      .where(name('end'))
      .within(10);
    const h = new NFATestHarness(p, true);
    h.feed([
      [new Event(1, 'start', 1.0), 1],
      [new Event(2, 'start', 1.0), 2],
      [new Event(3, 'middle', 1.0), 3],
      [new Event(5, 'end', 1.0), 11],
    ]);
    h.advance(100);
    assert.equal(h.buffer.numEvents(), 0);
    assert.equal(h.buffer.numEntries(), 0);
    assert.equal(h.nfaState.partialMatches.items.length, 1); // only the start state
  });
});
