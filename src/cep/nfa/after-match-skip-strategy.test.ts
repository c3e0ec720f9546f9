// Ported AfterMatchSkipITCase cases: each skip strategy prunes exactly the matches Flink prunes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pattern } from '../pattern/pattern.ts';
import { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import { Event, NFATestHarness, sortMatches } from '../../../test/support/nfa-test-harness.ts';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import {
  compareComputationStates,
  createStartState,
  createState,
  type ComputationState,
} from './computation-state.ts';
import { newQueue, offer } from './java-priority-queue.ts';
import { SharedBuffer, type SharedBufferEvent } from './shared-buffer/shared-buffer.ts';
import { SharedBufferAccessor, type EventIdMatch } from './shared-buffer/shared-buffer-accessor.ts';

// Flink's test records carry no timestamp; all events share one timestamp and are ordered by arrival.
const untimed = (events: Event[]) => events.map((e) => [e, 0] as const);
const named = (n: string) => (e: Event) => e.name === n;
const has = (s: string) => (e: Event) => e.name.includes(s);
const evs = (spec: string) => spec.split(' ').map((n, i) => new Event(i + 1, n, 0.0));

describe('AfterMatchSkipStrategy (ported from Flink AfterMatchSkipITCase)', () => {
  it('testNoSkip: times(3) over six a', () => {
    const a = evs('a a a a a a');
    const p = Pattern.begin<Event>('start', AfterMatchSkipStrategy.noSkip()).where(named('a')).times(3);
    const res = new NFATestHarness(p).feed(untimed(a));
    // each match completes at a distinct event, so the order is fixed
    assert.deepEqual(res, [a.slice(0, 3), a.slice(1, 4), a.slice(2, 5), a.slice(3, 6)]);
  });

  it('testNoSkipWithFollowedByAny / testSkipToNextWithFollowedByAny', () => {
    const a1 = new Event(1, 'a', 0.0);
    const b1 = new Event(2, 'b', 0.0);
    const a2 = new Event(4, 'a', 0.0);
    const b2 = new Event(5, 'b', 0.0);
    const run = (s: AfterMatchSkipStrategy) =>
      new NFATestHarness(
        Pattern.begin<Event>('start', s).where(named('a')).followedByAny('end').where(named('b')),
      ).feed(untimed([a1, b1, a2, b2]));
    assert.deepEqual(run(AfterMatchSkipStrategy.noSkip()), [
      [a1, b1],
      [a1, b2],
      [a2, b2],
    ]);
    assert.deepEqual(run(AfterMatchSkipStrategy.skipToNext()), [
      [a1, b1],
      [a2, b2],
    ]);
  });

  it('testNoSkipWithQuantifierAtTheEnd / testSkipToNextWithQuantifierAtTheEnd', () => {
    const a1 = new Event(1, 'a', 0.0);
    const b1 = new Event(2, 'b', 0.0);
    const b2 = new Event(4, 'b', 0.0);
    const b3 = new Event(5, 'b', 0.0);
    const run = (s: AfterMatchSkipStrategy) =>
      new NFATestHarness(
        Pattern.begin<Event>('start', s).where(named('a')).next('end').where(named('b')).oneOrMore(),
      ).feed(untimed([a1, b1, b2, b3]));
    assert.deepEqual(
      sortMatches(run(AfterMatchSkipStrategy.noSkip())),
      sortMatches([
        [a1, b1, b2, b3],
        [a1, b1, b2],
        [a1, b1],
      ]),
    );
    assert.deepEqual(run(AfterMatchSkipStrategy.skipToNext()), [[a1, b1]]);
  });

  it('testSkipPastLast: times(3) over six a', () => {
    const a = evs('a a a a a a');
    const p = Pattern.begin<Event>('start', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(named('a'))
      .times(3);
    assert.deepEqual(new NFATestHarness(p).feed(untimed(a)), [a.slice(0, 3), a.slice(3, 6)]);
  });

  it('testSkipToFirst / testSkipToLast', () => {
    const ab = evs('ab ab ab ab ab ab ab');
    const p = (s: AfterMatchSkipStrategy) =>
      Pattern.begin<Event>('start', s).where(has('a')).times(2).next('end').where(has('b')).times(2);
    assert.deepEqual(
      new NFATestHarness(p(AfterMatchSkipStrategy.skipToFirst('end'))).feed(untimed(ab.slice(0, 6))),
      [ab.slice(0, 4), ab.slice(2, 6)],
    );
    assert.deepEqual(new NFATestHarness(p(AfterMatchSkipStrategy.skipToLast('end'))).feed(untimed(ab)), [
      ab.slice(0, 4),
      ab.slice(3, 7),
    ]);
  });

  it('testSkipPastLast2: skip past last with followedByAny branches', () => {
    const [a1, a2, b1, b2, c1, c2, d1, d2] = evs('a1 a2 b1 b2 c1 c2 d1 d2') as [
      Event,
      Event,
      Event,
      Event,
      Event,
      Event,
      Event,
      Event,
    ];
    const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(has('a'))
      .followedByAny('b')
      .where(has('b'))
      .followedByAny('c')
      .where(has('c'))
      .followedBy('d')
      .where(has('d'));
    assert.deepEqual(new NFATestHarness(p).feed(untimed([a1, a2, b1, b2, c1, c2, d1, d2])), [
      [a1, b1, c1, d1],
    ]);
  });

  it('testSkipPastLast3: strict next after a broken start', () => {
    const [a1, c, a2, b2] = evs('a1 c a2 b2') as [Event, Event, Event, Event];
    const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(has('a'))
      .next('b')
      .where(has('b'));
    assert.deepEqual(new NFATestHarness(p).feed(untimed([a1, c, a2, b2])), [[a2, b2]]);
  });

  it('testSkipToFirstWithOptionalMatch', () => {
    const [ab1, c1, ab2, c2] = evs('ab1 c1 ab2 c2') as [Event, Event, Event, Event];
    const p = Pattern.begin<Event>('x', AfterMatchSkipStrategy.skipToFirst('b'))
      .where(has('x'))
      .oneOrMore()
      .optional()
      .next('b')
      .where(has('b'))
      .next('c')
      .where(has('c'));
    assert.deepEqual(new NFATestHarness(p).feed(untimed([ab1, c1, ab2, c2])), [
      [ab1, c1],
      [ab2, c2],
    ]);
  });

  it('skipToFirst with throwExceptionOnMiss fails when skipping to the first event of the match', () => {
    const [ab1, c1] = evs('ab1 c1') as [Event, Event];
    const p = Pattern.begin<Event>('b', AfterMatchSkipStrategy.skipToFirst('b').throwExceptionOnMiss())
      .where(has('b'))
      .next('c')
      .where(has('c'));
    assert.throws(
      () => new NFATestHarness(p).feed(untimed([ab1, c1])),
      /Could not skip to first element of a match/,
    );
  });

  it('rejects a skip strategy naming a stage that does not exist', () => {
    const p = Pattern.begin<Event>('start', AfterMatchSkipStrategy.skipToLast('midd'))
      .where(has('a'))
      .next('middle')
      .where(has('d'))
      .oneOrMore()
      .optional()
      .next('end')
      .where(has('c'));
    assert.throws(
      () => new NFATestHarness(p),
      /The pattern name specified in AfterMatchSkipStrategy can not be found/,
    );
  });

  it('testSkipToNext: times(3) over six a keeps the matches that start after the found one', () => {
    const a = evs('a a a a a a');
    const p = Pattern.begin<Event>('start', AfterMatchSkipStrategy.skipToNext()).where(named('a')).times(3);
    assert.deepEqual(new NFATestHarness(p).feed(untimed(a)), [
      a.slice(0, 3),
      a.slice(1, 4),
      a.slice(2, 5),
      a.slice(3, 6),
    ]);
  });

  it('skipToFirst of a stage missing from the match prunes nothing, with partial matches still running', () => {
    const [a1, a2, c1] = evs('a1 a2 c1') as [Event, Event, Event];
    const h = new NFATestHarness(
      Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToFirst('b'))
        .where(has('a'))
        .followedBy('b')
        .where(has('b'))
        .optional()
        .followedBy('c')
        .where(has('c')),
    );
    // a2 c1 completes too, but waits behind a1's partial match, which still waits for a b
    assert.deepEqual(h.feed(untimed([a1, a2, c1])), [[a1, c1]]);
    assert.deepEqual(
      h.nfaState.partialMatches.items.map((cs) => cs.currentStateName),
      ['b:0', 'b:0', 'a'],
    );
    assert.equal(h.nfaState.completedMatches.items.length, 1);
  });

  it('a missed skip target names every event of each stage of the match', () => {
    const [a1, a2, c] = evs('a1 a2 c') as [Event, Event, Event];
    const p = Pattern.begin<Event>('a', AfterMatchSkipStrategy.skipToFirst('b').throwExceptionOnMiss())
      .where(has('a'))
      .oneOrMore()
      .consecutive()
      .next('b')
      .where(has('b'))
      .oneOrMore()
      .optional()
      .consecutive()
      .next('c')
      .where(has('c'));
    assert.throws(() => new NFATestHarness(p).feed(untimed([a1, a2, c])), {
      message: 'Could not skip to b. No such element in the found match {a=[0#0, 0#1], c=[0#2]}',
    });
  });

  it('throwExceptionOnMiss changes nothing when the stage is in the match after its first event', () => {
    const ab = evs('ab ab ab ab ab ab ab');
    const p = Pattern.begin<Event>('start', AfterMatchSkipStrategy.skipToLast('end').throwExceptionOnMiss())
      .where(has('a'))
      .times(2)
      .next('end')
      .where(has('b'))
      .times(2);
    assert.deepEqual(new NFATestHarness(p).feed(untimed(ab)), [ab.slice(0, 4), ab.slice(3, 7)]);
  });

  describe('prune, on a queue and a match built by hand', () => {
    const setup = () => {
      const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
      backend.setCurrentKey('key');
      const accessor = new SharedBufferAccessor<string>(new SharedBuffer<string>(backend));
      const events: SharedBufferEvent<string>[] = [];
      // ids 0..3 in arrival order, timestamps out of order: 5, 3, 7, 4
      for (const [i, ts] of [5, 3, 7, 4].entries()) events.push(accessor.registerEvent(`e${i}`, ts));
      const queue = newQueue<ComputationState>();
      const startingAt = (e: SharedBufferEvent<string>) =>
        createState('b', accessor.put('a', e, null, [1]), [1, 0], e.timestamp, e.timestamp, e);
      offer(queue, createStartState('a'), compareComputationStates);
      for (const i of [3, 0, 2]) offer(queue, startingAt(events[i]!), compareComputationStates);
      // stage x took e0 (ts 5), stage y took e1 (ts 3): the earliest event is not the first one listed
      const match: EventIdMatch = new Map([
        ['x', [events[0]!]],
        ['y', [events[1]!]],
      ]);
      // in the heap's array order
      const starts = () => queue.items.map((cs) => cs.startEventId?.timestamp ?? 'start');
      return { accessor, queue, match, starts };
    };

    it('noSkip prunes nothing', () => {
      const { accessor, queue, match, starts } = setup();
      AfterMatchSkipStrategy.noSkip().prune(queue, [match], accessor as SharedBufferAccessor<unknown>);
      assert.deepEqual(starts(), [4, 7, 5, 'start']);
    });

    it('skipToNext prunes up to the earliest event of the match (timestamp 3): nothing here', () => {
      const { accessor, queue, match, starts } = setup();
      AfterMatchSkipStrategy.skipToNext().prune(queue, [match], accessor as SharedBufferAccessor<unknown>);
      assert.deepEqual(starts(), [4, 7, 5, 'start']);
    });

    it('skipPastLastEvent prunes up to the latest event of the match (timestamp 5)', () => {
      const { accessor, queue, match, starts } = setup();
      AfterMatchSkipStrategy.skipPastLastEvent().prune(
        queue,
        [match],
        accessor as SharedBufferAccessor<unknown>,
      );
      assert.deepEqual(starts(), [7, 'start']);
    });
  });
});
