// CepOperator's due buffer and registrations: when each key wakes, in which order keys due in one round go, what a
// restore registers, and the processing-time queue, each with the exact output (matches and timeouts in one log).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedOperatorHarness, type HarnessSnapshot } from '../../../test/support/keyed-operator-harness.ts';
import type { DataStream } from '../../api/data-stream.ts';
import { CEP } from '../../api/cep.ts';
import { TestHarness } from '../../testing/test-harness.ts';
import { compilePattern } from '../nfa/compiler/nfa-compiler.ts';
import { Pattern } from '../pattern/pattern.ts';
import { CepOperator, type EventComparator } from './cep-operator.ts';
import { DEFAULT_PARTIAL_MATCH_QUERY } from './partial-match-snapshot.ts';

interface Ev {
  readonly id: number;
  readonly name: string;
  readonly key: string;
}
const ev = (id: number, name: string, key: string): Ev => ({ id, name, key });
const named = (n: string) => (e: Ev) => e.name === n;

/** `a followedBy b within 10`, both named. */
const aThenB = () => Pattern.begin<Ev>('a').where(named('a')).followedBy('b').where(named('b')).within(10);

/** Each match and timeout as `match key:ids@timestamp` or `timeout key:ids@timestamp`, in the order they come. */
function logged(log: string[]) {
  const describe = (m: Record<string, Ev[]>) => {
    const events = Object.values(m).flat();
    return `${events[0]!.key}:${events.map((e) => e.id).join('-')}`;
  };
  return {
    processMatch: (m: Record<string, Ev[]>, ctx: { timestamp(): number }) =>
      void log.push(`match ${describe(m)}@${ctx.timestamp()}`),
    processTimedOutMatch: (m: Record<string, Ev[]>, ctx: { timestamp(): number }) =>
      void log.push(`timeout ${describe(m)}@${ctx.timestamp()}`),
  };
}

function harness(
  pattern: Pattern<Ev, any>,
  log: string[],
  options: {
    processingTime?: boolean;
    comparator?: EventComparator<Ev>;
    restore?: HarnessSnapshot;
    clock?: number;
  } = {},
): KeyedOperatorHarness<Ev, string> {
  return new KeyedOperatorHarness<Ev, string>(
    () =>
      new CepOperator<Ev, string, string>(
        compilePattern(pattern),
        logged(log) as never,
        options.processingTime ?? false,
        options.comparator,
        undefined,
      ),
    (e) => e.key,
    {
      ...(options.restore === undefined ? {} : { restore: options.restore }),
      ...(options.clock === undefined ? {} : { processingTime: options.clock }),
    },
  );
}

const cep = (h: KeyedOperatorHarness<Ev, string>) => h.operator as CepOperator<Ev, string, string>;

describe('CepOperator registrations in event time', () => {
  it('a timeout registered for a partial match that ended still wakes its key first, as its Flink timer fires', () => {
    const log: string[] = [];
    const h = harness(Pattern.begin<Ev>('a').where(named('a')).next('b').where(named('b')).within(10), log);
    // p: a1 registers 11; a2 ends a1's partial match (strict contiguity) and registers 15
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processElement(ev(2, 'a', 'p'), 5);
    h.processWatermark(9);
    assert.deepEqual(cep(h).wakeUpTimes(), [11]);
    h.processElement(ev(4, 'a', 'q'), 12);
    h.processElement(ev(5, 'b', 'q'), 13);
    assert.deepEqual(cep(h).wakeUpTimes(), [11, 12]);
    // p wakes at 11 and advances to the watermark: a2 times out before q (due at 12) matches
    h.processWatermark(20);
    assert.deepEqual(log, ['timeout p:2@15', 'match q:4-5@13']);
    assert.deepEqual(cep(h).wakeUpTimes(), []);
    assert.equal(cep(h).numKeyRecords(), 0);
  });

  it('keeps registrations in time order whatever order they are made in, and drops those the watermark passed', () => {
    const log: string[] = [];
    const h = harness(
      Pattern.begin<Ev>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .within(3, 'PREVIOUS_AND_CURRENT')
        .followedBy('c')
        .where(named('c'))
        .within(10),
      log,
    );
    // a1 registers its window (11), then the gap (4)
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processWatermark(1);
    assert.deepEqual(cep(h).wakeUpTimes(), [4]);
    // b2 registers the gap again (6), between the two
    h.processElement(ev(2, 'b', 'p'), 3);
    h.processWatermark(3);
    assert.deepEqual(cep(h).wakeUpTimes(), [4]);
    h.processWatermark(4);
    assert.deepEqual(cep(h).wakeUpTimes(), [6]);
    h.processWatermark(6);
    assert.deepEqual(cep(h).wakeUpTimes(), [11]);
    assert.deepEqual(log, []);
    h.processWatermark(11);
    assert.deepEqual(log, ['timeout p:1-2@11']);
    assert.deepEqual(cep(h).wakeUpTimes(), []);
  });

  it('registers nothing at or before the watermark of the round: a pattern without a window leaves no wake-up', () => {
    const log: string[] = [];
    const h = harness(Pattern.begin<Ev>('a').where(named('a')).followedBy('b').where(named('b')), log);
    h.processElement(ev(1, 'a', 'p'), 4);
    h.processWatermark(5);
    assert.equal(cep(h).numKeyRecords(), 1);
    assert.deepEqual(cep(h).wakeUpTimes(), []);
    h.processElement(ev(2, 'b', 'p'), 9);
    h.processWatermark(9);
    assert.deepEqual(log, ['match p:1-2@9']);
  });

  it('does not register again at the time a timeout fires at: the wake that times it out is the last one', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    h.processElement(ev(1, 'a', 'p'), 5);
    h.processElement(ev(2, 'a', 'p'), 8);
    // the round at 15 feeds both; a1's window ends at the watermark itself and times out in the same round
    h.processWatermark(15);
    assert.deepEqual(log, ['timeout p:1@15']);
    assert.deepEqual(cep(h).wakeUpTimes(), [18]);
  });

  it('a stale entry of a record forgotten and reused by another key does not wake that key', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    // p registers 11 and matches: its record is forgotten, its entry at 11 stale
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processElement(ev(2, 'b', 'p'), 3);
    h.processWatermark(3);
    // q takes the forgotten record and registers 15
    h.processElement(ev(3, 'a', 'q'), 5);
    h.processWatermark(5);
    h.processElement(ev(4, 'a', 'r'), 12);
    h.processElement(ev(5, 'b', 'r'), 13);
    h.processWatermark(20);
    assert.deepEqual(log, ['match p:1-2@3', 'match r:4-5@13', 'timeout q:3@15']);
    assert.equal(cep(h).numKeyRecords(), 0);
  });

  it('a key woken by its timeout takes its elements of the round with it, before keys due later', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    h.processElement(ev(1, 'a', 'p'), 4); // registers 14
    h.processWatermark(5);
    h.processElement(ev(2, 'a', 'r'), 11);
    h.processElement(ev(3, 'b', 'r'), 12);
    h.processElement(ev(7, 'a', 's'), 14); // due at 14, after p's registration
    h.processElement(ev(8, 'b', 's'), 14);
    h.processElement(ev(5, 'a', 'p'), 15);
    h.processElement(ev(6, 'b', 'p'), 16);
    h.processWatermark(20);
    assert.deepEqual(log, ['match r:2-3@12', 'timeout p:1@14', 'match p:5-6@16', 'match s:7-8@14']);
  });

  it('the wake-up times: a key at its earliest element or registration, keys ascending', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processWatermark(1);
    // (b, not x: an element no stage takes is never buffered)
    h.processElement(ev(2, 'b', 'q'), 9);
    h.processElement(ev(3, 'b', 'p'), 7);
    h.processElement(ev(4, 'b', 'r'), 5);
    assert.deepEqual(cep(h).wakeUpTimes(), [5, 7, 9]);
  });

  it('elements of one timestamp are sorted by the comparator, apart from those of the next', () => {
    const log: string[] = [];
    const h = harness(Pattern.begin<Ev>('a').next('b'), log, { comparator: (x, y) => y.id - x.id });
    h.processElement(ev(1, 'x', 'p'), 1);
    h.processElement(ev(2, 'x', 'p'), 1);
    h.processElement(ev(3, 'x', 'p'), 2);
    h.processWatermark(2);
    assert.deepEqual(log, ['match p:2-1@1', 'match p:1-3@2']);
  });

  it('registers no processing-time timer in event time', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processWatermark(1);
    assert.equal(h.numProcessingTimeTimers(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
  });
});

describe('CepOperator restored in event time', () => {
  it('times restored partial matches out one after another, each wake registering the next', () => {
    const log: string[] = [];
    const before = harness(aThenB(), log);
    before.processElement(ev(1, 'a', 'p'), 1);
    before.processElement(ev(2, 'a', 'p'), 5);
    before.processWatermark(5);
    const after = harness(aThenB(), log, { restore: before.snapshot() });
    assert.deepEqual(cep(after).wakeUpTimes(), [11]);
    after.processWatermark(12);
    assert.deepEqual(log, ['timeout p:1@11']);
    assert.deepEqual(cep(after).wakeUpTimes(), [15]);
    after.processWatermark(16);
    assert.deepEqual(log, ['timeout p:1@11', 'timeout p:2@15']);
    assert.equal(after.numKeyedStateEntries(), 0);
  });

  it('a restored partial match without a window registers no wake-up', () => {
    const log: string[] = [];
    const pattern = () => Pattern.begin<Ev>('a').where(named('a')).followedBy('b').where(named('b'));
    const before = harness(pattern(), log);
    before.processElement(ev(1, 'a', 'p'), 1);
    before.processWatermark(1);
    const after = harness(pattern(), log, { restore: before.snapshot() });
    assert.equal(cep(after).numKeyRecords(), 1);
    assert.deepEqual(cep(after).wakeUpTimes(), []);
    after.processElement(ev(2, 'b', 'p'), 3);
    after.processWatermark(3);
    assert.deepEqual(log, ['match p:1-2@3']);
  });

  it('a restored queue leaves keyed state when its key wakes, not only at the next snapshot', () => {
    const log: string[] = [];
    // b is buffered (a stage takes it: an element none takes would not be) and starts nothing for p
    const before = harness(aThenB(), log);
    before.processElement(ev(1, 'b', 'p'), 5);
    const after = harness(aThenB(), log, { restore: before.snapshot() });
    assert.equal(after.backend.numStateEntries(), 1);
    after.processWatermark(5);
    assert.equal(after.backend.numStateEntries(), 0);
    assert.deepEqual(log, []);
  });
});

describe('CepOperator dirty records', () => {
  it('a partial match that changed after a snapshot is written again for the next one', () => {
    const log: string[] = [];
    const pattern = () =>
      Pattern.begin<Ev>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .followedBy('c')
        .where(named('c'));
    const h = harness(pattern(), log);
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processWatermark(1);
    h.snapshot();
    h.processElement(ev(2, 'b', 'p'), 2);
    h.processWatermark(2);
    const after = harness(pattern(), log, { restore: h.snapshot() });
    after.processElement(ev(3, 'c', 'p'), 3);
    after.processWatermark(3);
    assert.deepEqual(log, ['match p:1-2-3@3']);
  });

  it('after more than 1,024 changed records without a snapshot, a record reused from the pool is still written', () => {
    const log: string[] = [];
    const pattern = () =>
      Pattern.begin<Ev>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .followedBy('c')
        .where(named('c'));
    const h = harness(pattern(), log);
    const keys = Array.from({ length: 1040 }, (_, i) => `k${i}`);
    let t = 1;
    for (const k of keys) h.processElement(ev(0, 'a', k), t);
    h.processWatermark(t++);
    // every record written: none is dirty
    assert.equal(h.numKeyedStateEntries(), 2 * keys.length);
    // k0..k9 change, then match: their records are forgotten while listed as dirty, and pooled
    for (const k of keys.slice(0, 10)) h.processElement(ev(0, 'b', k), t);
    h.processWatermark(t++);
    for (const k of keys.slice(0, 10)) h.processElement(ev(0, 'c', k), t);
    h.processWatermark(t++);
    // 1,030 more change: the list is compacted on the way, dropping the forgotten ten
    for (const k of keys.slice(10)) h.processElement(ev(0, 'b', k), t);
    h.processWatermark(t++);
    // ten new keys take the pooled records
    for (let i = 0; i < 10; i++) h.processElement(ev(i, 'a', `n${i}`), t);
    h.processWatermark(t++);
    const after = harness(pattern(), log, { restore: h.snapshot() });
    log.length = 0;
    for (let i = 0; i < 10; i++) after.processElement(ev(i, 'b', `n${i}`), t);
    after.processElement(ev(0, 'c', 'k10'), t);
    after.processWatermark(t++);
    for (let i = 0; i < 10; i++) after.processElement(ev(i, 'c', `n${i}`), t);
    after.processWatermark(t);
    assert.deepEqual(log, [
      'match k10:0-0-0@6',
      ...Array.from({ length: 10 }, (_, i) => `match n${i}:${i}-${i}-${i}@7`),
    ]);
  });
});

describe('CepOperator in processing time', () => {
  const build = (pattern: Pattern<Ev, any>) => (input: DataStream<Ev>) =>
    CEP.pattern(
      input.keyBy((e) => e.key),
      pattern,
    )
      .inProcessingTime()
      .select((m) => Object.keys(m).join(','));

  it('registers a timer after each window: the first event + window for a new partial match, previous + gap for each change', async () => {
    const h = await TestHarness.create(
      build(
        Pattern.begin<Ev>('a')
          .where(named('a'))
          .followedBy('b')
          .where(named('b'))
          .within(3, 'PREVIOUS_AND_CURRENT')
          .followedBy('c')
          .where(named('c'))
          .within(0, 'PREVIOUS_AND_CURRENT')
          .followedBy('d')
          .where(named('d'))
          .within(10, 'PREVIOUS_AND_CURRENT')
          .followedBy('e')
          .where(named('e'))
          .within(10),
      ),
    );
    const timers = () => h.processingTimeTimers().map((t) => t.timestamp);
    h.setProcessingTime(100);
    h.processElement(ev(1, 'a', 'p'));
    // a timer fires just after its time: the window at 110, the gap of 3 at 103 (the gap of 0 and the gap equal to
    // the window add none)
    assert.deepEqual(timers(), [104, 111]);
    h.setProcessingTime(102);
    h.processElement(ev(2, 'b', 'p'));
    // no new partial match: the gap only
    assert.deepEqual(timers(), [104, 106, 111]);
    // an event that changes nothing registers nothing
    h.setProcessingTime(103);
    h.processElement(ev(3, 'x', 'p'));
    assert.deepEqual(timers(), [104, 106, 111]);
    await h.close();
  });

  it('registers no timer without a window', async () => {
    const h = await TestHarness.create(
      build(Pattern.begin<Ev>('a').where(named('a')).followedBy('b').where(named('b'))),
    );
    h.setProcessingTime(100);
    h.processElement(ev(1, 'a', 'p'));
    assert.deepEqual(h.processingTimeTimers(), []);
    assert.equal(h.numKeyedStateEntries(), 2);
    h.processElement(ev(2, 'b', 'p'));
    assert.deepEqual(h.records(), ['a,b']);
    // the key's partial matches ended: it keeps no state
    assert.equal(h.numKeyedStateEntries(), 0);
    await h.close();
  });

  it('with a comparator, an element that arrives with the clock behind the queue goes before the later times', () => {
    const log: string[] = [];
    // every element ties: each time's elements keep their arrival order
    const options = { processingTime: true, comparator: () => 0 };
    const pairs = () => Pattern.begin<Ev>('a').next('b');
    const first = harness(pairs(), log, { ...options, clock: 300 });
    first.processElement(ev(1, 'x', 'p'), Number.NaN);
    first.processElement(ev(2, 'x', 'p'), Number.NaN);
    // restored where the clock is behind: elements of 100, then of 200, go before those of 300
    const second = harness(pairs(), log, {
      ...options,
      restore: { ...first.snapshot(), processingTime: 100 },
    });
    second.processElement(ev(3, 'x', 'p'), Number.NaN);
    second.processElement(ev(4, 'x', 'p'), Number.NaN);
    const third = harness(pairs(), log, {
      ...options,
      restore: { ...second.snapshot(), processingTime: 200 },
    });
    third.processElement(ev(5, 'x', 'p'), Number.NaN);
    third.processElement(ev(6, 'x', 'p'), Number.NaN);
    assert.deepEqual(log, []);
    third.setProcessingTime(201);
    assert.deepEqual(log, [
      'match p:3-4@100',
      'match p:4-5@200',
      'match p:5-6@200',
      'match p:6-1@300',
      'match p:1-2@300',
    ]);
  });

  it('with a comparator, a snapshot of a reused queue holds only its elements', () => {
    const log: string[] = [];
    const options = { processingTime: true, comparator: (x: Ev, y: Ev) => x.id - y.id };
    const pairs = () => Pattern.begin<Ev>('a').next('b');
    const h = harness(pairs(), log, { ...options, clock: 100 });
    for (const id of [1, 2, 3]) h.processElement(ev(id, 'x', 'p'), Number.NaN);
    h.setProcessingTime(101);
    assert.deepEqual(log, ['match p:1-2@100', 'match p:2-3@100']);
    // the emptied queue of three slots is reused for one element
    h.processElement(ev(4, 'x', 'p'), Number.NaN);
    const restored = harness(pairs(), log, { ...options, restore: h.snapshot() });
    assert.deepEqual(
      cep(restored)
        .partialMatchSnapshot(DEFAULT_PARTIAL_MATCH_QUERY)
        .keys.map((k) => [k.key, k.queuedEvents]),
      [['"p"', 1]],
    );
    restored.setProcessingTime(102);
    assert.deepEqual(log, ['match p:1-2@100', 'match p:2-3@100', 'match p:3-4@101']);
    // and the reused queue itself gives its one element
    h.setProcessingTime(102);
    assert.deepEqual(log, ['match p:1-2@100', 'match p:2-3@100', 'match p:3-4@101', 'match p:3-4@101']);
  });

  it('with a comparator, a restored queue is processed once, and is gone from the next snapshot', () => {
    const log: string[] = [];
    const options = { processingTime: true, comparator: (x: Ev, y: Ev) => x.id - y.id };
    const pairs = () => Pattern.begin<Ev>('a').next('b');
    const h = harness(pairs(), log, { ...options, clock: 100 });
    h.processElement(ev(1, 'x', 'p'), Number.NaN);
    h.processElement(ev(2, 'x', 'p'), Number.NaN);
    const restored = harness(pairs(), log, { ...options, restore: h.snapshot() });
    restored.setProcessingTime(101);
    assert.deepEqual(log, ['match p:1-2@100']);
    const again = harness(pairs(), log, { ...options, restore: restored.snapshot() });
    again.setProcessingTime(200);
    assert.deepEqual(log, ['match p:1-2@100']);
    // the partial match of 2 and its shared-buffer counters
    assert.equal(again.numKeyedStateEntries(), 2);
  });
});
