// CepOperator in event time drops elements the NFA calls inert on arrival and skips, for a key with no partial match,
// elements that start nothing: what is dropped or skipped, what is kept, and that each key's matches and timeouts are
// those of the NFA fed every element in timestamp order (a property test).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { KeyedOperatorHarness, type HarnessSnapshot } from '../../../test/support/keyed-operator-harness.ts';
import { assertProperty } from '../../../test/support/property.ts';
import { OutputTag } from '../../core/output-tag.ts';
import { AfterMatchSkipStrategy } from '../nfa/after-match-skip-strategy.ts';
import { compilePattern } from '../nfa/compiler/nfa-compiler.ts';
import { NFA } from '../nfa/nfa.ts';
import { SharedBuffer } from '../nfa/shared-buffer/shared-buffer.ts';
import { SharedBufferAccessor } from '../nfa/shared-buffer/shared-buffer-accessor.ts';
import { Pattern } from '../pattern/pattern.ts';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import { CepOperator } from './cep-operator.ts';

interface Ev {
  readonly id: number;
  readonly name: string;
  readonly key: string;
}
const ev = (id: number, name: string, key: string): Ev => ({ id, name, key });
const named = (n: string) => (e: Ev) => e.name === n;
const byId = (a: Ev, b: Ev) => a.id - b.id;

/** Each match and timeout as `match key:ids@timestamp` or `timeout key:ids@timestamp`, in the order they come. */
function logged(log: string[]) {
  const describe = (m: Record<string, Ev[]>) => {
    const events = Object.values(m)
      .flat()
      .sort((a, b) => a.id - b.id);
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
  pattern: Pattern<Ev, any, any, any>,
  log: string[],
  late?: OutputTag<Ev>,
  restore?: HarnessSnapshot,
) {
  return new KeyedOperatorHarness<Ev, string>(
    () =>
      new CepOperator<Ev, string, string>(compilePattern(pattern), logged(log) as never, false, byId, late),
    (e) => e.key,
    restore === undefined ? {} : { restore },
  );
}

const cep = (h: KeyedOperatorHarness<Ev, string>) => h.operator as CepOperator<Ev, string, string>;

/** `a followedBy b within 10`. */
const aThenB = () => Pattern.begin<Ev>('a').where(named('a')).followedBy('b').where(named('b')).within(10);

describe('CepOperator drops inert elements in event time', () => {
  it('an element no stage takes is not buffered; one a stage takes is, partial match or not', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    h.processElement(ev(1, 'x', 'p'), 3);
    assert.deepEqual(cep(h).wakeUpTimes(), []);
    h.processElement(ev(2, 'b', 'p'), 4);
    h.processElement(ev(3, 'a', 'q'), 5);
    assert.deepEqual(cep(h).wakeUpTimes(), [4, 5]);
    // a partial match does not make an inert element matter: q's x at 6 is dropped too
    h.processWatermark(5);
    h.processElement(ev(4, 'x', 'q'), 6);
    assert.deepEqual(cep(h).wakeUpTimes(), [15]);
    h.processElement(ev(5, 'b', 'q'), 7);
    h.processWatermark(20);
    assert.deepEqual(log, ['match q:3-5@7']);
  });

  it('a late inert element still goes to the late-data side output', () => {
    const log: string[] = [];
    const late = new OutputTag<Ev>('late');
    const h = harness(aThenB(), log, late);
    h.processWatermark(10);
    h.processElement(ev(1, 'x', 'p'), 9);
    h.processElement(ev(2, 'x', 'p'), 11);
    assert.deepEqual(h.sideOutput(late), [{ value: ev(1, 'x', 'p'), timestamp: 9 }]);
  });

  it('with strict contiguity nothing is inert: x ends the partial match', () => {
    const log: string[] = [];
    const h = harness(Pattern.begin<Ev>('a').where(named('a')).next('b').where(named('b')), log);
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processElement(ev(2, 'x', 'p'), 2);
    h.processElement(ev(3, 'b', 'p'), 3);
    h.processElement(ev(4, 'a', 'p'), 4);
    h.processElement(ev(5, 'b', 'p'), 5);
    h.processWatermark(10);
    assert.deepEqual(log, ['match p:4-5@5']);
  });

  it('a trailing notFollowedBy completes at the time of the element after its window: inert elements are kept', () => {
    const log: string[] = [];
    const h = harness(
      Pattern.begin<Ev>('a').where(named('a')).notFollowedBy('n').where(named('n')).within(10),
      log,
    );
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processElement(ev(2, 'x', 'p'), 12);
    h.processWatermark(20);
    // advanced to 12 before x: the match completes there, not at the watermark
    assert.deepEqual(log, ['match p:1@12']);
  });

  it('a key with no partial match skips the elements that start nothing, up to the first timestamp that starts something', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    h.processElement(ev(1, 'b', 'p'), 3);
    h.processElement(ev(2, 'a', 'p'), 4);
    h.processElement(ev(3, 'b', 'p'), 6);
    h.processElement(ev(4, 'b', 'q'), 5);
    h.processWatermark(10);
    assert.deepEqual(log, ['match p:2-3@6']);
    assert.deepEqual(cep(h).wakeUpTimes(), []);
    assert.equal(cep(h).numKeyRecords(), 0);
  });

  it('elements of one timestamp are skipped only all together: the comparator may put a start first', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    // b4 arrives first, but the comparator (by id) feeds a3 first, and b4 completes its match
    h.processElement(ev(4, 'b', 'p'), 5);
    h.processElement(ev(3, 'a', 'p'), 5);
    h.processWatermark(5);
    assert.deepEqual(log, ['match p:3-4@5']);
  });

  it('a key with no partial match wakes at its first element of the round, one that starts nothing included', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    // Flink's timer for p fires at 3, before q's at 4: p's match comes first though q's a is earlier than p's
    h.processElement(ev(1, 'b', 'p'), 3);
    h.processElement(ev(2, 'a', 'q'), 4);
    h.processElement(ev(3, 'a', 'p'), 5);
    h.processElement(ev(4, 'b', 'q'), 6);
    h.processElement(ev(5, 'b', 'p'), 6);
    h.processWatermark(10);
    assert.deepEqual(log, ['match p:3-5@6', 'match q:2-4@6']);
  });

  it('many keys starting something in one round: each wakes in turn, the rest are not woken', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    // nine: one past the keys found by a scan, so the lookup goes through the Map of the round's starters
    const keys = Array.from({ length: 9 }, (_, k) => `k${String(k).padStart(2, '0')}`);
    let id = 0;
    // each key's b first (in reverse key order), then the a's, then the b's completing them; idle keys only send b's
    for (const key of [...keys].reverse()) h.processElement(ev(id++, 'b', key), 3);
    for (const key of keys) h.processElement(ev(id++, 'b', `idle-${key}`), 4);
    for (const key of keys) h.processElement(ev(id++, 'a', key), 5);
    for (const key of keys) h.processElement(ev(id++, 'b', key), 6);
    h.processWatermark(10);
    assert.deepEqual(
      log,
      [...keys].reverse().map((key) => `match ${key}:${18 + keys.indexOf(key)}-${27 + keys.indexOf(key)}@6`),
    );
    assert.equal(cep(h).numKeyRecords(), 0);
    assert.deepEqual(cep(h).wakeUpTimes(), []);
  });

  it('a restored queue of elements that start nothing still starts from a later element that does', () => {
    for (const order of ['restored first', 'restored after'] as const) {
      const log: string[] = [];
      const before = harness(aThenB(), log);
      // restored: a b that starts nothing (p), or an a that starts a match (q)
      if (order === 'restored first') before.processElement(ev(1, 'b', 'p'), 5);
      else before.processElement(ev(1, 'a', 'p'), 5);
      const after = harness(aThenB(), log, undefined, before.snapshot());
      if (order === 'restored first') {
        after.processElement(ev(2, 'a', 'p'), 6);
        after.processElement(ev(3, 'b', 'p'), 7);
      } else {
        // a b after the restored a: the key is woken from the a on, not from where the restored queue starts
        after.processElement(ev(3, 'b', 'p'), 7);
      }
      after.processWatermark(10);
      assert.deepEqual(log, [order === 'restored first' ? 'match p:2-3@7' : 'match p:1-3@7'], order);
      assert.equal(after.backend.numStateEntries(), 0, order);
    }
  });

  it('an element that starts nothing meets no condition after arrival unless its key has or starts a partial match', () => {
    const log: string[] = [];
    // the start condition counts its calls per key: on arrival (each element once) and in the NFA
    const calls = new Map<string, number>();
    const counted = () =>
      Pattern.begin<Ev>('a')
        .where((e) => {
          calls.set(e.key, (calls.get(e.key) ?? 0) + 1);
          return e.name === 'a';
        })
        .followedBy('b')
        .where(named('b'))
        .within(10);
    const h = harness(counted(), log);
    h.processElement(ev(1, 'b', 'idle'), 3);
    h.processElement(ev(2, 'b', 'idle'), 4);
    h.processElement(ev(3, 'b', 'p'), 3);
    h.processElement(ev(4, 'a', 'p'), 5);
    h.processElement(ev(5, 'b', 'p'), 6);
    assert.deepEqual(
      [...calls],
      [
        ['idle', 2],
        ['p', 3],
      ],
    );
    calls.clear();
    h.processWatermark(10);
    // idle: not woken; p: fed from its a on (a and b each meet the start state), not its b at 3
    assert.deepEqual([...calls], [['p', 2]]);
    assert.deepEqual(log, ['match p:4-5@6']);
    // a restored element that starts nothing: its key is woken to clear the queue, and fed nothing
    const before = harness(counted(), log);
    before.processElement(ev(6, 'b', 'q'), 12);
    const after = harness(counted(), log, undefined, before.snapshot());
    calls.clear();
    after.processWatermark(20);
    assert.deepEqual([...calls], []);
    assert.equal(after.backend.numStateEntries(), 0);
  });

  it('a key with a partial match is woken once, at its first entry, also when its timeout comes after an element', () => {
    const log: string[] = [];
    const h = harness(aThenB(), log);
    h.processElement(ev(1, 'a', 'p'), 1);
    h.processWatermark(1);
    // the round: p's a at 10, p's timeout at 11 (1 + 10), p's b at 12: fed in that order in one wake
    h.processElement(ev(2, 'a', 'p'), 10);
    h.processElement(ev(3, 'b', 'p'), 12);
    h.processWatermark(20);
    assert.deepEqual(log, ['timeout p:1@11', 'match p:2-3@12']);
  });

  it('a restored partial match takes its elements in the first round after the restore', () => {
    const log: string[] = [];
    const before = harness(aThenB(), log);
    before.processElement(ev(1, 'a', 'p'), 1);
    before.processWatermark(1);
    const after = harness(aThenB(), log, undefined, before.snapshot());
    after.processElement(ev(2, 'b', 'p'), 2);
    after.processWatermark(5);
    assert.deepEqual(log, ['match p:1-2@2']);
  });

  it('each key gets the matches and timeouts of the NFA fed all its elements in timestamp order', () => {
    type Join = 'next' | 'followedBy' | 'followedByAny';
    type Quantifier = 'one' | 'optional' | 'oneOrMore' | 'times2';
    const stage = fc.record({
      letter: fc.constantFrom('a', 'b', 'c'),
      join: fc.constantFrom<Join>('next', 'followedBy', 'followedByAny'),
      quantifier: fc.constantFrom<Quantifier>('one', 'one', 'optional', 'oneOrMore', 'times2'),
    });
    const input = fc.record({
      stages: fc.array(stage, { minLength: 2, maxLength: 3 }),
      within: fc.constantFrom(0, 3, 6, 15),
      skip: fc.constantFrom('noSkip', 'skipPastLastEvent', 'skipToNext'),
      events: fc.array(
        fc.record({
          key: fc.constantFrom('p', 'q'),
          name: fc.constantFrom('a', 'b', 'c', 'x', 'x'),
          step: fc.integer({ min: 0, max: 3 }),
          jitter: fc.integer({ min: 0, max: 4 }),
          watermark: fc.boolean(),
        }),
        { maxLength: 30 },
      ),
    });
    assertProperty(
      fc.property(input, ({ stages, within, skip, events }) => {
        // skip strategies hold matches back while a window runs, which only the NFA's mayDropInertEvents excludes
        const strategy =
          within > 0 || skip === 'noSkip'
            ? AfterMatchSkipStrategy.noSkip()
            : skip === 'skipToNext'
              ? AfterMatchSkipStrategy.skipToNext()
              : AfterMatchSkipStrategy.skipPastLastEvent();
        let p: Pattern<Ev, any, any, any> = Pattern.begin<Ev>('s0', strategy);
        stages.forEach((s, i) => {
          if (i > 0) p = p[s.join](`s${i}`);
          p = p.where(named(s.letter));
          if (s.quantifier === 'optional' && i > 0) p = p.optional();
          if (s.quantifier === 'oneOrMore') p = p.oneOrMore();
          if (s.quantifier === 'times2') p = p.times(2);
        });
        if (within > 0) p = p.within(within);
        // the stream: timestamps wander forward and trail the maximum by at most 4, watermarks trail it by 5
        const log: string[] = [];
        const h = harness(p, log);
        const fed: { e: Ev; ts: number }[] = [];
        let clock = 10;
        let max = 0;
        events.forEach((r, id) => {
          clock += r.step;
          const ts = Math.max(1, clock - r.jitter);
          const e = ev(id, r.name, r.key);
          fed.push({ e, ts });
          h.processElement(e, ts);
          max = Math.max(max, ts);
          if (r.watermark) h.processWatermark(max - 5);
        });
        const end = max + 100;
        h.processWatermark(end);
        const expected: string[] = [];
        for (const key of ['p', 'q']) {
          const mine = fed.filter((f) => f.e.key === key).sort((x, y) => x.ts - y.ts || byId(x.e, y.e));
          expected.push(...reference(p, mine, end));
        }
        const byKey = (lines: string[], key: string) => lines.filter((l) => l.includes(` ${key}:`));
        for (const key of ['p', 'q']) assert.deepEqual(byKey(log, key), byKey(expected, key));
        return true;
      }),
      { numRuns: 400 },
    );
  });
});

/** The NFA fed every element of one key in timestamp order, advanced before each timestamp and to `end`. */
function reference(
  pattern: Pattern<Ev, any, any, any>,
  fed: readonly { e: Ev; ts: number }[],
  end: number,
): string[] {
  const compiled = compilePattern(pattern);
  const nfa = new NFA(compiled, true);
  const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
  backend.setCurrentKey('key');
  const accessor = new SharedBufferAccessor<Ev>(new SharedBuffer<Ev>(backend));
  const state = nfa.createInitialNFAState();
  const log: string[] = [];
  const handler = logged(log);
  const emit = (matches: readonly Record<string, Ev[]>[], ts: number) => {
    for (const m of matches) handler.processMatch(m, { timestamp: () => ts });
  };
  const advance = (ts: number) => {
    const { matches, timedOut } = nfa.advanceTime(accessor, state, ts, compiled.afterMatchSkipStrategy);
    emit(matches, ts);
    for (const t of timedOut) handler.processTimedOutMatch(t.match, { timestamp: () => t.timestamp });
  };
  let last = Number.NaN;
  for (const { e, ts } of fed) {
    if (ts !== last) advance(ts);
    last = ts;
    emit(
      nfa.process(accessor, state, e, ts, compiled.afterMatchSkipStrategy, {
        currentProcessingTime: () => 0,
      }),
      ts,
    );
  }
  advance(end);
  return log;
}
