// CepOperator's element queue and timers: watermark order, the timers it keeps, late data and keys that start nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../../api/data-stream.ts';
import { CEP } from '../../api/cep.ts';
import { OutputTag } from '../../core/output-tag.ts';
import { TestHarness } from '../../testing/test-harness.ts';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import { compilePattern } from '../nfa/compiler/nfa-compiler.ts';
import { CepOperator } from './cep-operator.ts';
import { Pattern } from '../pattern/pattern.ts';
import type { JobRuntime } from '../../runtime/job-runtime.ts';
import type { InternalTimerService, Triggerable } from '../../time/internal-timer-service.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../../state/namespace.ts';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { nfaStateSerializer } from '../nfa/nfa-state-serializer.ts';
import type { NFAState } from '../nfa/nfa-state.ts';
import { NFA } from '../nfa/nfa.ts';

interface Ev {
  readonly id: number;
  readonly name: string;
  readonly key: string;
}
const ev = (id: number, name = 'x', key = 'k'): Ev => ({ id, name, key });
const named = (n: string) => (e: Ev) => e.name === n;
const timeouts = new OutputTag<string>('timeouts');
const late = new OutputTag<Ev>('late');

/** `a next b` without conditions: every event pairs with the one processed right after it. */
function pairs(input: DataStream<Ev>) {
  return CEP.pattern(
    input.keyBy((e) => e.key),
    Pattern.begin<Ev, 'a'>('a').next('b'),
  ).select((m) => `${m.a[0]!.id}-${m.b[0]!.id}`);
}

/**
 * The CEP operators' wake-up times, ascending: in event time they replace timers (the harness's `eventTimeTimers`
 * stays empty), so they are read from the operators of the harness's runtime.
 */
function wakeUps(h: TestHarness<any>): number[] {
  assert.deepEqual(h.eventTimeTimers(), []);
  const runtime = (h as unknown as { runtime: JobRuntime }).runtime;
  const times: number[] = [];
  for (const subtasks of runtime.subtasks.values()) {
    for (const s of subtasks) if (s.operator instanceof CepOperator) times.push(...s.operator.wakeUpTimes());
  }
  return times.sort((a, b) => a - b);
}

/** The CEP operators' keys held in records (keys with partial matches), summed over the harness's subtasks. */
function keyRecords(h: TestHarness<any>): number {
  const runtime = (h as unknown as { runtime: JobRuntime }).runtime;
  let n = 0;
  for (const subtasks of runtime.subtasks.values()) {
    for (const s of subtasks) if (s.operator instanceof CepOperator) n += s.operator.numKeyRecords();
  }
  return n;
}

describe('CepOperator element queue', () => {
  it('sorts out-of-order elements by timestamp, equal timestamps in arrival order, the key due at the earliest', async () => {
    const h = await TestHarness.create(pairs);
    for (const [id, ts] of [
      [1, 5],
      [2, 9],
      [3, 7],
      [4, 6],
      [5, 8],
      [6, 7],
      [7, 5],
      [8, 9],
    ] as const) {
      h.processElement(ev(id), ts);
    }
    // no timer: the key is due at its earliest queued element
    assert.deepEqual(wakeUps(h), [5]);
    h.processWatermark(6);
    assert.deepEqual(h.output(), [
      { value: '1-7', timestamp: 5 },
      { value: '7-4', timestamp: 6 },
      { watermark: 6 },
    ]);
    // the key is due at the earliest element left
    assert.deepEqual(wakeUps(h), [7]);
    h.processWatermark(20);
    assert.deepEqual(h.records(), ['1-7', '7-4', '4-3', '3-6', '6-5', '5-2', '2-8']);
    assert.deepEqual(wakeUps(h), []);
    await h.close();
  });

  it('an element inserted before the earliest queued one makes the key due earlier', async () => {
    const h = await TestHarness.create(pairs);
    h.processElement(ev(1), 10);
    h.processElement(ev(2), 12);
    h.processElement(ev(3), 4);
    assert.deepEqual(wakeUps(h), [4]);
    h.processWatermark(4);
    assert.deepEqual(h.records(), []);
    h.processWatermark(10);
    assert.deepEqual(h.records(), ['3-1']);
    h.processWatermark(12);
    assert.deepEqual(h.records(), ['3-1', '1-2']);
    await h.close();
  });

  it('keys due at the same time wake in the order their timers were registered; a key woken earlier keeps its place', async () => {
    const h = await TestHarness.create(pairs);
    h.processElement(ev(1, 'x', 'p'), 10); // p registers 10
    h.processElement(ev(2, 'x', 'q'), 10); // q registers 10, after p
    h.processElement(ev(3, 'x', 'p'), 4); // p registers 4 too
    h.processElement(ev(5, 'x', 'q'), 10);
    h.processWatermark(4);
    assert.deepEqual(wakeUps(h), [10, 10]);
    h.processWatermark(10);
    // p's registration at 10 is still the first one made at 10: p wakes before q
    assert.deepEqual(h.records(), ['3-1', '2-5']);
    await h.close();
  });

  it('a queue emptied and refilled keeps working for the same and other keys', async () => {
    const h = await TestHarness.create(pairs);
    h.processElement(ev(1, 'x', 'p'), 1);
    h.processElement(ev(2, 'x', 'p'), 2);
    h.processWatermark(2);
    h.processElement(ev(3, 'x', 'q'), 3);
    h.processElement(ev(4, 'x', 'q'), 4);
    h.processElement(ev(5, 'x', 'p'), 5);
    h.processWatermark(5);
    assert.deepEqual(h.records(), ['1-2', '3-4', '2-5']);
    await h.close();
  });

  it('an element after the watermark waits for it even when an earlier timer of its key fires first', async () => {
    // x1 starts a match that times out at 13: that timer fires while x2 and x3 (20, 21) wait; x4 (15) arrives after
    // it and must still be processed before them.
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').followedBy('b').within(3),
      ).select(
        timeouts,
        (m, ts) => `timeout ${m.a![0]!.id} @${ts}`,
        (m) => `${m.a[0]!.id}-${m.b[0]!.id}`,
      ),
    );
    h.processElement(ev(1), 10);
    h.processWatermark(10);
    h.processElement(ev(2), 20);
    h.processElement(ev(3), 21);
    // due at the timeout (13), before its queued elements (20)
    assert.deepEqual(wakeUps(h), [13]);
    h.processWatermark(13);
    assert.deepEqual(
      h.sideOutput(timeouts).map((r) => r.value),
      ['timeout 1 @13'],
    );
    h.processElement(ev(4), 15);
    h.processWatermark(30);
    assert.deepEqual(h.output(), [
      { watermark: 10 },
      { watermark: 13 },
      { value: '2-3', timestamp: 21 },
      { watermark: 30 },
    ]);
    assert.deepEqual(h.sideOutput(timeouts), [
      { value: 'timeout 1 @13', timestamp: 13 },
      { value: 'timeout 4 @18', timestamp: 18 },
      { value: 'timeout 3 @24', timestamp: 24 },
    ]);
    await h.close();
  });

  it('a previous-to-current window times a partial match out at its last event + gap, without a next element', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a')
          .where(named('a'))
          .followedBy('b')
          .where(named('b'))
          .within(4, 'PREVIOUS_AND_CURRENT')
          .followedBy('c')
          .where(named('c')),
      ).select(
        timeouts,
        (m, ts) => `timeout [${Object.keys(m).join(',')}] @${ts}`,
        (m) => `${m.a[0]!.id}-${m.b[0]!.id}-${m.c[0]!.id}`,
      ),
    );
    h.processElement(ev(1, 'a'), 10);
    h.processWatermark(10);
    assert.deepEqual(wakeUps(h), [14]);
    h.processWatermark(30);
    assert.deepEqual(h.sideOutput(timeouts), [{ value: 'timeout [a] @14', timestamp: 14 }]);
    assert.deepEqual(h.records(), []);
    await h.close();
  });

  it('keys whose events start nothing keep no state; a started match keeps the NFA state and its buffered event', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').where(named('a')).next('b'),
      ).select((m) => `${m.a[0]!.id}-${m.b[0]!.id}`),
    );
    h.processElement(ev(1, 'x', 'p'), 10);
    h.processElement(ev(2, 'y', 'q'), 11);
    h.processWatermark(20);
    assert.equal(h.numKeyedStateEntries(), 0);
    h.processElement(ev(3, 'a', 'q'), 21);
    h.processElement(ev(4, 'z', 'p'), 21);
    h.processWatermark(22);
    assert.equal(h.numKeyedStateEntries(), 2);
    h.processElement(ev(5, 'b', 'q'), 23);
    h.processWatermark(23);
    assert.deepEqual(h.records(), ['3-5']);
    await h.close();
  });

  it('a key holds something only while it has a partial match: buffered elements cost no record, state entry or timer', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').where(named('a')).followedBy('b').where(named('b')).within(10),
      ).select(
        timeouts,
        (m, ts) => `timeout ${m.a![0]!.id} @${ts}`,
        (m) => `${m.a[0]!.id}-${m.b[0]!.id}`,
      ),
    );
    // (the b elements start nothing here, but are buffered: an element no stage takes would not be)
    h.processElement(ev(1, 'b', 'p'), 1);
    h.processElement(ev(2, 'a', 'q'), 2);
    h.processElement(ev(3, 'b', 'r'), 3);
    h.processElement(ev(4, 'a', 's'), 4);
    h.processElement(ev(5, 'b', 'p'), 9);
    // waiting for the watermark: no key is held, and no timer is registered for any
    assert.equal(keyRecords(h), 0);
    assert.deepEqual(wakeUps(h), [1, 2, 3, 4]);
    h.processWatermark(5);
    // q and s started partial matches: each holds its record, due at its timeout; p and r hold nothing but p's
    // element at 9
    assert.equal(keyRecords(h), 2);
    assert.deepEqual(wakeUps(h), [9, 12, 14]);
    h.processElement(ev(6, 'b', 'q'), 6);
    h.processWatermark(9);
    assert.deepEqual(h.records(), ['2-6']);
    // q's match completed: only s is held
    assert.equal(keyRecords(h), 1);
    assert.deepEqual(wakeUps(h), [14]);
    assert.equal(h.numKeyedStateEntries(), 2); // s's NFA state and its shared-buffer counters
    h.processWatermark(14);
    assert.deepEqual(
      h.sideOutput(timeouts).map((r) => r.value),
      ['timeout 4 @14'],
    );
    // s timed out: nothing is held for any key
    assert.equal(keyRecords(h), 0);
    assert.deepEqual(wakeUps(h), []);
    assert.equal(h.numKeyedStateEntries(), 0);
    await h.close();
  });

  it('late elements go to the late-data side output, or are dropped and counted', async () => {
    const withTag = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').next('b'),
      )
        .sideOutputLateData(late)
        .select((m) => `${m.a[0]!.id}-${m.b[0]!.id}`),
    );
    withTag.processWatermark(10);
    withTag.processElement(ev(1), 10);
    withTag.processElement(ev(2), 11);
    withTag.processElement(ev(3), 9);
    withTag.processWatermark(11);
    assert.deepEqual(withTag.sideOutput(late), [
      { value: ev(1), timestamp: 10 },
      { value: ev(3), timestamp: 9 },
    ]);
    assert.deepEqual(withTag.records(), []);
    await withTag.close();
  });

  it('fails naming the operator when an event-time record has no timestamp', async () => {
    const h = await TestHarness.create(pairs);
    assert.throws(
      () => h.processElement(ev(1)),
      (e: unknown) =>
        String(e).includes(
          "Operator 'CepOperator': a record has no timestamp, but the pattern stream runs in event time; " +
            'assign timestamps and watermarks upstream or call inProcessingTime()',
        ),
    );
    await h.close().catch(() => undefined);
  });

  it('processing time with a comparator: the elements of one millisecond are sorted, and matched one millisecond later', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').next('b'),
        (x, y) => y.id - x.id,
      )
        .inProcessingTime()
        .select((m) => `${m.a[0]!.id}-${m.b[0]!.id}`),
    );
    h.setProcessingTime(100);
    h.processElement(ev(1));
    h.processElement(ev(2));
    assert.deepEqual(
      h.processingTimeTimers().map((t) => t.timestamp),
      [101],
    );
    assert.deepEqual(h.records(), []);
    h.setProcessingTime(101);
    assert.deepEqual(h.output(), [{ value: '2-1', timestamp: undefined }]);
    h.processElement(ev(3));
    h.processElement(ev(4));
    assert.deepEqual(
      h.processingTimeTimers().map((t) => t.timestamp),
      [102],
    );
    h.setProcessingTime(102);
    assert.deepEqual(h.records(), ['2-1', '1-4', '4-3']);
    await h.close();
  });

  it('equal timestamps keep arrival order for primitive events too', async () => {
    const h = await TestHarness.create((input: DataStream<string>) =>
      CEP.pattern(
        input.keyBy(() => 'k'),
        Pattern.begin<string, 'a'>('a').next('b'),
      ).select((m) => `${m.a[0]!}-${m.b[0]!}`),
    );
    for (const v of ['c', 'a', 'b']) h.processElement(v, 1);
    h.processWatermark(1);
    assert.deepEqual(h.records(), ['c-a', 'a-b']);
    await h.close();
  });

  it('a partial match started earlier in the same watermark round is kept when a later event changes nothing', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').where(named('a')).followedBy('b').where(named('b')),
      ).select((m) => `${m.a[0]!.id}-${m.b[0]!.id}`),
    );
    h.processElement(ev(1, 'a'), 5);
    h.processElement(ev(2, 'x'), 6);
    h.processWatermark(6);
    h.processElement(ev(3, 'b'), 7);
    h.processWatermark(7);
    assert.deepEqual(h.records(), ['1-3']);
    await h.close();
  });

  it('registers the window timer only for an event that starts a partial match', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a')
          .where(named('a'))
          .followedBy('b')
          .where(named('b'))
          .followedBy('c')
          .where(named('c'))
          .within(10),
      ).select((m) => `${m.a[0]!.id}-${m.b[0]!.id}-${m.c[0]!.id}`),
    );
    h.processElement(ev(1, 'a'), 1);
    h.processWatermark(1);
    assert.deepEqual(wakeUps(h), [11]);
    h.processElement(ev(2, 'b'), 3);
    h.processWatermark(3);
    assert.deepEqual(wakeUps(h), [11]);
    h.processElement(ev(3, 'c'), 4);
    h.processWatermark(20);
    assert.deepEqual(h.records(), ['1-2-3']);
    await h.close();
  });

  it('emits a match completed by time passing (notFollowedBy at the end), and ignores timeouts without a handler', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').where(named('a')).notFollowedBy('b').where(named('b')).within(5),
      ).select((m) => `${m.a[0]!.id}`),
    );
    h.processElement(ev(1, 'a'), 1);
    h.processElement(ev(2, 'a'), 2);
    h.processElement(ev(3, 'b'), 4);
    h.processElement(ev(4, 'a'), 10);
    h.processWatermark(20);
    // a1 and a2 are followed by b3 within 5 ms; a4 is not, and is emitted once the watermark passes its window
    // end (15), stamped with that watermark as Flink does
    assert.deepEqual(h.output(), [{ value: '4', timestamp: 20 }, { watermark: 20 }]);
    await h.close();
  });

  it('restores a queue whose earlier slots were processed: only the waiting elements come back', async () => {
    const h = await TestHarness.create(pairs);
    h.processElement(ev(1), 1);
    h.processElement(ev(2), 2);
    h.processElement(ev(3), 3);
    h.processWatermark(2);
    assert.deepEqual(h.records(), ['1-2']);
    const snapshot = h.snapshot();
    await h.close();
    const restored = await TestHarness.restore(pairs, snapshot);
    restored.processElement(ev(4), 4);
    restored.processWatermark(10);
    assert.deepEqual(restored.records(), ['2-3', '3-4']);
    await restored.close();
  });

  it('conditions and the match function see the current processing time', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').where((_, ctx) => ctx.currentProcessingTime() >= 100),
      ).process({
        processMatch(m, ctx, out) {
          out.collect(`${m.a[0]!.id}@${ctx.currentProcessingTime()}`);
        },
      }),
    );
    h.setProcessingTime(50);
    h.processElement(ev(1), 1);
    h.processWatermark(1);
    h.setProcessingTime(120);
    h.processElement(ev(2), 2);
    h.processWatermark(2);
    assert.deepEqual(h.records(), ['2@120']);
    await h.close();
  });
  it('an element inserted before the only queued one goes first, whatever processed slots left behind', async () => {
    const h = await TestHarness.create(pairs);
    h.processElement(ev(1), 1);
    h.processElement(ev(2), 2);
    h.processElement(ev(3), 8);
    h.processWatermark(2);
    assert.deepEqual(h.records(), ['1-2']);
    // the queue now holds 3@8 only; 4@5 goes before it
    h.processElement(ev(4), 5);
    h.processWatermark(10);
    assert.deepEqual(h.records(), ['1-2', '2-4', '4-3']);
    await h.close();
  });

  it('a partial match started by a key is its own: another key in the same round does not see it', async () => {
    const h = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').where(named('a')).followedBy('b').where(named('b')),
      ).select((m) => `${m.a[0]!.id}-${m.b[0]!.id}`),
    );
    // p: a then an event that changes nothing, in one watermark round
    h.processElement(ev(1, 'a', 'p'), 5);
    h.processElement(ev(2, 'x', 'p'), 6);
    h.processWatermark(6);
    h.processElement(ev(3, 'b', 'q'), 7);
    h.processWatermark(7);
    assert.deepEqual(h.records(), []);
    h.processElement(ev(4, 'b', 'p'), 8);
    h.processWatermark(8);
    assert.deepEqual(h.records(), ['1-4']);
    await h.close();
  });

  it('registers no extra timer for a previous-to-current window the pattern window already covers', async () => {
    const build = (gap: number, window: number) => (input: DataStream<Ev>) => {
      const p = Pattern.begin<Ev, 'a'>('a')
        .where(named('a'))
        .followedBy('b')
        .where(named('b'))
        .within(gap, 'PREVIOUS_AND_CURRENT')
        .followedBy('c')
        .where(named('c'));
      return CEP.pattern(
        input.keyBy((e) => e.key),
        p.within(window),
      ).select((m) => `${m.a[0]!.id}-${m.b[0]!.id}-${m.c[0]!.id}`);
    };
    // gap 10 = window 10: the window timer at a + 10 is the only one; b at 3 registers none at 13
    const same = await TestHarness.create(build(10, 10));
    same.processElement(ev(1, 'a'), 1);
    same.processWatermark(1);
    assert.deepEqual(wakeUps(same), [11]);
    same.processElement(ev(2, 'b'), 3);
    same.processWatermark(3);
    assert.deepEqual(wakeUps(same), [11]);
    await same.close();
  });

  it('a match or timeout function that returns a Promise fails naming the method', async () => {
    const matching = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a'),
      ).process({
        processMatch: () => Promise.resolve() as unknown as void,
      }),
    );
    matching.processElement(ev(1), 1);
    assert.throws(
      () => matching.processWatermark(1),
      /failed while processing watermark 1: processMatch\(\) returned a Promise\. /,
    );
    await matching.close().catch(() => undefined);
    const timingOut = await TestHarness.create((input: DataStream<Ev>) =>
      CEP.pattern(
        input.keyBy((e) => e.key),
        Pattern.begin<Ev, 'a'>('a').followedBy('b').within(2),
      ).process({
        processMatch: () => undefined,
        processTimedOutMatch: () => Promise.resolve() as unknown as void,
      }),
    );
    timingOut.processElement(ev(1), 1);
    timingOut.processWatermark(1);
    assert.throws(
      () => timingOut.processWatermark(5),
      /failed while processing watermark 5: processTimedOutMatch\(\) returned a Promise\. /,
    );
    await timingOut.close().catch(() => undefined);
  });
});

describe('CepOperator in processing time with a comparator', () => {
  it('an element of a new millisecond that arrives before the due timer fires takes a timer of its own, one of the same millisecond does not', () => {
    const h = new KeyedOperatorHarness<Ev, string>(
      () =>
        new CepOperator<Ev, string, string>(
          compilePattern(Pattern.begin<Ev>('a').next('b')),
          {
            processMatch: (m: any, _ctx: unknown, out: { collect(v: string): void }) =>
              out.collect(`${m.a[0].id}-${m.b[0].id}`),
          },
          true,
          (x, y) => y.id - x.id,
          undefined,
        ),
      (e) => e.key,
      { processingTime: 100 },
    );
    // scheduled before the operator's timer for 101, so it runs first when the clock reaches 101
    h.clock.schedule(101, () => {
      h.processElement(ev(3), Number.NaN);
      h.processElement(ev(4), Number.NaN);
    });
    h.processElement(ev(1), Number.NaN);
    h.processElement(ev(2), Number.NaN);
    assert.equal(h.numProcessingTimeTimers(), 1);
    h.setProcessingTime(101);
    // the timer at 101 took every queued element: 100's sorted (2, 1), then 101's (4, 3); the timer at 102 waits
    assert.deepEqual(
      h.records().map((r) => r.value),
      ['2-1', '1-4', '4-3'],
    );
    assert.equal(h.numProcessingTimeTimers(), 1);
    h.setProcessingTime(102);
    assert.equal(h.numProcessingTimeTimers(), 0);
    assert.deepEqual(
      h.records().map((r) => r.value),
      ['2-1', '1-4', '4-3'],
    );
  });
});

describe('CepOperator restored from a snapshot of the timer version', () => {
  // That version kept an event-time timer per key at its earliest queued element, and an NFA state for every key
  // that had changed one, also after its partial matches ended: such snapshots still restore.
  const operator = () =>
    new CepOperator<Ev, string, string>(
      compilePattern(Pattern.begin<Ev>('a').next('b')),
      {
        processMatch: (m: any, _ctx: unknown, out: { collect(v: string): void }) =>
          out.collect(`${m.a[0].id}-${m.b[0].id}`),
      },
      false,
      undefined,
      undefined,
    );

  it('a restored timer finds its key done by the round, and an NFA state without partial matches is dropped', () => {
    const before = new KeyedOperatorHarness<Ev, string>(operator, (e) => e.key);
    before.processElement(ev(1, 'x', 'p'), 5);
    before.processElement(ev(2, 'x', 'p'), 6);
    // the timer service under the name that version used
    const timers: InternalTimerService<VoidNamespace> = before.timers.getInternalTimerService(
      'watermark-callbacks',
      voidNamespaceSerializer,
      before.operator as unknown as Triggerable<string, VoidNamespace>,
    );
    before.backend.setCurrentKey('p');
    timers.registerEventTimeTimer(VoidNamespace, 5);
    before.backend.setCurrentKey('q');
    const nfaStates = before.backend.getOrCreateKeyedState(
      new ValueStateDescriptor<NFAState>('nfaStateName', { serializer: nfaStateSerializer }),
      voidNamespaceSerializer,
    );
    nfaStates.setCurrentNamespace(VoidNamespace);
    nfaStates.update(
      new NFA(compilePattern(Pattern.begin<Ev>('a').next('b')), false).createInitialNFAState(),
    );
    assert.equal(before.numKeyedStateEntries(), 2);

    const after = new KeyedOperatorHarness<Ev, string>(operator, (e) => e.key, {
      restore: before.snapshot(),
    });
    // p's queue is left; q's state is gone
    assert.equal(after.numKeyedStateEntries(), 1);
    assert.equal(after.numEventTimeTimers(), 1);
    after.processWatermark(6);
    assert.deepEqual(
      after.records().map((r) => r.value),
      ['1-2'],
    );
    assert.equal(after.numEventTimeTimers(), 0);
  });
});
