// CepOperator through the real runtime: event-time ordering, late data, timeouts, keys, parallelism, restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../../api/data-stream.ts';
import { OutputTag } from '../../core/output-tag.ts';
import { TestHarness } from '../../testing/test-harness.ts';
import { CEP } from '../../api/cep.ts';
import { Event, SubEvent } from '../../../test/support/nfa-test-harness.ts';
import { Pattern } from '../pattern/pattern.ts';

const named = (n: string) => (e: Event) => e.name === n;
const lateTag = new OutputTag<Event>('late');
const timeoutTag = new OutputTag<string>('timeouts');

// A type guard rather than the SubEvent class: snapshots structured-clone buffered events, so class instances come
// back as plain objects after a restore and an instanceof test would no longer hold.
const isSubEvent = (e: Event): e is SubEvent => 'volume' in e;

function pattern() {
  return Pattern.begin<Event, 'start'>('start')
    .where(named('start'))
    .followedBy('middle')
    .subtype(isSubEvent)
    .where((e) => e.volume > 5)
    .followedBy('end')
    .where(named('end'))
    .within(10);
}

const describeMatch = (m: { start: Event[]; middle: SubEvent[]; end: Event[] }) =>
  `${m.start[0]!.id}:${[...m.start, ...m.middle, ...m.end].map((e) => e.name).join(',')}`;

function build(input: DataStream<Event>) {
  return CEP.pattern(
    input.keyBy((e) => e.id),
    pattern(),
  )
    .sideOutputLateData(lateTag)
    .select(
      timeoutTag,
      (m, ts) => `timeout ${m.start![0]!.id} [${Object.keys(m).join(',')}] @${ts}`,
      describeMatch,
    );
}

describe('CepOperator', () => {
  it('processes buffered elements in timestamp order when the watermark passes them', async () => {
    const h = await TestHarness.create(build);
    h.processElement(new Event(42, 'start', 1.0), 1);
    h.processElement(new Event(42, 'end', 1.0), 5); // arrives before the middle event it follows
    h.processElement(new SubEvent(42, 'middle', 1.0, 10.0), 3);
    h.processWatermark(2);
    assert.deepEqual(h.records(), []);
    h.processWatermark(5);
    assert.deepEqual(
      h.output().filter((e) => 'value' in e),
      [{ value: '42:start,middle,end', timestamp: 5 }],
    );
    // at or before the watermark: late
    h.processElement(new Event(42, 'end', 1.0), 5);
    h.processElement(new Event(42, 'end', 1.0), 6);
    assert.deepEqual(
      h.sideOutput(lateTag).map((r) => r.timestamp),
      [5],
    );
    await h.close();
  });

  it('reports timed-out partial matches with first event + window, once the watermark passes it', async () => {
    const h = await TestHarness.create(build);
    h.processElement(new Event(7, 'start', 1.0), 10);
    h.processElement(new SubEvent(7, 'middle', 1.0, 9.0), 12);
    h.processWatermark(19);
    assert.deepEqual(h.sideOutput(timeoutTag), []);
    h.processWatermark(20);
    assert.deepEqual(h.sideOutput(timeoutTag), [{ value: 'timeout 7 [start,middle] @20', timestamp: 20 }]);
    // no partial match left: the key keeps no state (and no timer) at all
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
    await h.close();
  });

  for (const parallelism of [1, 2, 4]) {
    it(`matches every key on its own at parallelism ${parallelism}`, async () => {
      const h = await TestHarness.create(build, { parallelism });
      for (let key = 0; key < 20; key++) {
        h.processElement(new Event(key, 'start', 1), 100 + key);
        if (key % 2 === 0) h.processElement(new SubEvent(key, 'middle', 1, 6), 101 + key);
        h.processElement(new Event(key, 'end', 1), 102 + key);
      }
      h.processWatermark(1_000);
      const expected = [];
      for (let key = 0; key < 20; key += 2) expected.push(`${key}:start,middle,end`);
      assert.deepEqual(h.records().sort(), expected.sort());
      const timeouts = h
        .sideOutput(timeoutTag)
        .map((r) => r.value)
        .sort();
      assert.equal(timeouts.length, 10);
      // every partial match completed or timed out: no key keeps state
      assert.equal(h.numKeyedStateEntries(), 0);
      await h.close();
    });
  }

  it('restores mid-match from a snapshot, at another parallelism', async () => {
    const h = await TestHarness.create(build, { parallelism: 1 });
    h.processElement(new Event(1, 'start', 1.0), 1);
    h.processElement(new Event(2, 'start', 1.0), 1);
    h.processElement(new SubEvent(1, 'middle', 1.0, 10.0), 2);
    h.processWatermark(2);
    h.processElement(new SubEvent(2, 'middle', 1.0, 10.0), 3); // still buffered in the element queue
    const snapshot = h.snapshot();
    await h.close();

    const restored = await TestHarness.restore(build, snapshot, { parallelism: 3 });
    restored.processElement(new Event(1, 'end', 1.0), 4);
    restored.processElement(new Event(2, 'end', 1.0), 5);
    restored.processWatermark(6);
    assert.deepEqual(restored.records().sort(), ['1:start,middle,end', '2:start,middle,end']);
    await restored.close();
  });

  it('processing time: elements are matched as they arrive; timeouts fire on the clock', async () => {
    const h = await TestHarness.create((input: DataStream<Event>) =>
      CEP.pattern(
        input.keyBy((e) => e.id),
        pattern(),
      )
        .inProcessingTime()
        .select(timeoutTag, (m, ts) => `timeout ${m.start![0]!.id} @${ts}`, describeMatch),
    );
    h.setProcessingTime(100);
    h.processElement(new Event(1, 'start', 1));
    h.setProcessingTime(103);
    h.processElement(new SubEvent(1, 'middle', 1, 6));
    h.processElement(new Event(1, 'end', 1));
    assert.deepEqual(
      h.output().filter((e) => 'value' in e),
      [{ value: '1:start,middle,end', timestamp: undefined }],
    );
    h.processElement(new Event(2, 'start', 1));
    h.setProcessingTime(200);
    assert.deepEqual(
      h.sideOutput(timeoutTag).map((r) => r.value),
      ['timeout 2 @113'],
    );
    await h.close();
  });

  it('a non-keyed stream is matched as one sequence by one subtask', async () => {
    const h = await TestHarness.create(
      (input: DataStream<Event>) =>
        CEP.pattern(
          input,
          Pattern.begin<Event, 'a'>('a').where(named('a')).next('b').where(named('b')),
        ).select((m) => `${m.a[0]!.id}-${m.b[0]!.id}`),
      { parallelism: 4 },
    );
    h.processElement(new Event(1, 'a', 0), 1);
    h.processElement(new Event(2, 'b', 0), 2);
    h.processElement(new Event(3, 'a', 0), 3);
    h.processElement(new Event(4, 'c', 0), 4);
    h.processElement(new Event(5, 'b', 0), 5);
    h.processWatermark(10);
    assert.deepEqual(h.records(), ['1-2']);
    await h.close();
  });

  it('event time keeps arrival order among equal timestamps, also for an element inserted before a later one', async () => {
    const h = await TestHarness.create((input: DataStream<Event>) =>
      CEP.pattern(
        input.keyBy(() => 'k'),
        Pattern.begin<Event, 'a'>('a').where(named('a')).next('b').where(named('b')),
      ).select((m) => `{${m.a[0]!.name}@${m.a[0]!.id}, ${m.b[0]!.name}@${m.b[0]!.id}}`),
    );
    h.processElement(new Event(1, 'a', 0), 5);
    h.processElement(new Event(2, 'x', 0), 10);
    h.processElement(new Event(3, 'b', 0), 5); // queued after a@5 (arrived first) and before x@10
    h.processWatermark(20);
    assert.deepEqual(h.output(), [{ value: '{a@1, b@3}', timestamp: 5 }, { watermark: 20 }]);
    await h.close();
  });

  it('orders equal timestamps with the comparator, then by arrival', async () => {
    const h = await TestHarness.create((input: DataStream<Event>) =>
      CEP.pattern(
        input.keyBy(() => 'k'),
        Pattern.begin<Event, 'first'>('first').next('second'),
        (a, b) => a.price - b.price,
      ).select((m) => `${m.first[0]!.id}-${m.second[0]!.id}`),
    );
    h.processElement(new Event(1, 'x', 3), 1);
    h.processElement(new Event(2, 'x', 1), 1);
    h.processElement(new Event(3, 'x', 2), 1);
    h.processWatermark(1);
    assert.deepEqual(h.records(), ['2-3', '3-1']);
    await h.close();
  });

  it('rejects a malformed pattern when the job is built', async () => {
    await assert.rejects(
      TestHarness.create((input: DataStream<Event>) =>
        CEP.pattern(
          input.keyBy((e) => e.id),
          Pattern.begin<Event>('a').notFollowedBy('b'),
        ).select(() => 1),
      ),
      /NotFollowedBy is not supported without windowTime as a last part of a Pattern!/,
    );
  });
});
