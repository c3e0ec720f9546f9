// Ported SharedBufferTest: versioned paths, reference counts and the per-key counters of the shared buffer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeapKeyedStateBackend } from '../../../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../../state/key-group-range.ts';
import { Event } from '../../../../test/support/nfa-test-harness.ts';
import type { DeweyNumber } from '../dewey-number.ts';
import { SharedBuffer, type SharedBufferEvent, type SharedBufferNode } from './shared-buffer.ts';
import { SharedBufferAccessor } from './shared-buffer-accessor.ts';

const v = (s: string): DeweyNumber => s.split('.').map(Number);

function setup() {
  const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
  backend.setCurrentKey('key');
  const buffer = new SharedBuffer<Event>(backend);
  const accessor = new SharedBufferAccessor<Event>(buffer);
  return { backend, buffer, accessor };
}

/**
 * Flink registers every event first and names entries by (event, stage), so two puts of one event into one stage
 * share an entry. Here entries are shared for the event registered last, as the NFA stores only into that one:
 * the ports register each event just before the puts that take it.
 */
function events(n: number): Event[] {
  return Array.from({ length: n }, (_, i) => new Event(i + 1, `e${i + 1}`, i));
}

describe('SharedBuffer (ported from Flink SharedBufferTest)', () => {
  it('testSharedBuffer: each version reads back its own path; a released path is gone', () => {
    const { buffer, accessor } = setup();
    const e = events(8);
    const ids: SharedBufferEvent<Event>[] = [];
    const reg = (i: number) => (ids[i] = accessor.registerEvent(e[i]!, 1));
    reg(0);
    const a10 = accessor.put('a1', ids[0]!, null, v('1'));
    reg(1);
    const aLoop0 = accessor.put('a[]', ids[1]!, a10, v('1.0'));
    reg(2);
    const a11 = accessor.put('a1', ids[2]!, null, v('2'));
    const aLoop1 = accessor.put('a[]', ids[2]!, aLoop0, v('1.0'));
    reg(3);
    const aLoop2 = accessor.put('a[]', ids[3]!, aLoop1, v('1.0'));
    const aSecondLoop0 = accessor.put('a[]', ids[3]!, a11, v('2.0'));
    reg(4);
    const aLoop3 = accessor.put('a[]', ids[4]!, aLoop2, v('1.0'));
    reg(5);
    const b0 = accessor.put('b', ids[5]!, aLoop3, v('1.0.0'));
    const aLoop4 = accessor.put('a[]', ids[5]!, aLoop3, v('1.1'));
    const b1 = accessor.put('b', ids[5]!, aSecondLoop0, v('2.0.0'));
    reg(6);
    const aLoop5 = accessor.put('a[]', ids[6]!, aLoop4, v('1.1'));
    reg(7);
    const b3 = accessor.put('b', ids[7]!, aLoop5, v('1.1.0'));
    // one entry per (event, stage): a second put of an event into a stage adds an edge to the first's entry
    assert.equal(b1, b0);
    assert.equal(aSecondLoop0, aLoop2);
    // each of the three matches holds its last entry, as the NFA's computation states do
    accessor.lockNode(b3, v('1.1.0'));
    accessor.lockNode(b0, v('1.0.0'));
    accessor.lockNode(b1, v('2.0.0'));

    const patterns3 = accessor.extractPatterns(b3, v('1.1.0'));
    assert.equal(patterns3.length, 1);
    assert.deepEqual(accessor.materializeMatch(patterns3[0]!), {
      a1: [e[0]],
      'a[]': [e[1], e[2], e[3], e[4], e[5], e[6]],
      b: [e[7]],
    });
    accessor.releaseNode(b3, v('1.1.0'));
    assert.deepEqual(accessor.extractPatterns(b3, v('1.1.0')), []);

    const patterns1 = accessor.extractPatterns(b1, v('2.0.0'));
    assert.equal(patterns1.length, 1);
    assert.deepEqual(accessor.materializeMatch(patterns1[0]!), { a1: [e[2]], 'a[]': [e[3]], b: [e[5]] });

    const patterns2 = accessor.extractPatterns(b0, v('1.0.0'));
    assert.equal(patterns2.length, 1);
    assert.deepEqual(accessor.materializeMatch(patterns2[0]!), {
      a1: [e[0]],
      'a[]': [e[1], e[2], e[3], e[4]],
      b: [e[5]],
    });
    accessor.releaseNode(b1, v('2.0.0'));
    accessor.releaseNode(b0, v('1.0.0'));
    for (const id of ids) accessor.releaseEvent(id);
    assert.equal(buffer.isEmpty(), true);
    assert.equal(buffer.numEntries(), 0);
  });

  it('testClearingSharedBufferWithMultipleEdgesBetweenEntries: an entry locked by an ignoring match stays', () => {
    const { buffer, accessor } = setup();
    const e = events(8);
    const ids: SharedBufferEvent<Event>[] = [];
    const reg = (i: number) => (ids[i] = accessor.registerEvent(e[i]!, 1));
    reg(0);
    reg(1);
    const start = accessor.put('start', ids[1]!, null, v('1'));
    reg(2);
    const b0 = accessor.put('branching', ids[2]!, start, v('1.0'));
    reg(3);
    const b1 = accessor.put('branching', ids[3]!, start, v('1.1'));
    const b00 = accessor.put('branching', ids[3]!, b0, v('1.0.0'));
    reg(4);
    accessor.put('branching', ids[4]!, b00, v('1.0.0.0'));
    const b10 = accessor.put('branching', ids[4]!, b1, v('1.1.0'));
    reg(5);
    reg(6);
    reg(7);
    // both branches end in one entry (events[4], 'branching'), each holding it as the NFA's computation states do
    accessor.lockNode(b10, v('1.0.0.0'));
    accessor.lockNode(b10, v('1.1.0'));
    // simulate IGNORE (the next event can point to events[2])
    accessor.lockNode(b0, v('1.0'));
    accessor.releaseNode(b10, v('1.1.0'));
    for (const id of ids) accessor.releaseEvent(id);
    // the 1.0.0.0 branch still holds events[1] to events[4]
    assert.equal(buffer.numEvents(), 4);
    assert.equal(buffer.numEntries(), 4);
    accessor.releaseNode(b10, v('1.0.0.0'));
    // events[1] and events[2] are still in the buffer
    assert.equal(buffer.isEmpty(), false);
    assert.equal(buffer.numEvents(), 2);
    assert.equal(buffer.numEntries(), 2);
    assert.deepEqual(accessor.materializeMatch(accessor.extractPatterns(b0, v('1.0'))[0]!), {
      start: [e[1]],
      branching: [e[2]],
    });
  });

  it('testSharedBufferExtractOrder: stages in the order of their first event', () => {
    const { accessor } = setup();
    const e = events(5);
    const stages = ['a', 'b', 'aa', 'bb', 'c'];
    let previous: SharedBufferNode<Event> | null = null;
    let version: DeweyNumber = [1];
    for (let i = 0; i < 5; i++) {
      previous = accessor.put(stages[i]!, accessor.registerEvent(e[i]!, 1), previous, version);
      version = [...version, 0];
    }
    const match = accessor.extractPatterns(previous!, [1, 0, 0, 0, 0])[0]!;
    assert.deepEqual([...match.keys()], stages);
    assert.deepEqual(Object.keys(accessor.materializeMatch(match)), stages);
    assert.deepEqual(Object.keys(accessor.materializeFirstPath(previous!, [1, 0, 0, 0, 0])), stages);
  });

  it('testSharedBufferAccessor: counts of the live events and entries', () => {
    const { buffer, accessor } = setup();
    const e = events(8);
    const ids = e.map((x) => accessor.registerEvent(x, 1));
    assert.equal(buffer.numEvents(), 8);
    assert.equal(buffer.numEntries(), 0);
    // events registered up front: only the last one shares its entries, so b1 and b00 are two entries here
    const start = accessor.put('start', ids[1]!, null, v('1'));
    const b0 = accessor.put('branching', ids[2]!, start, v('1.0'));
    accessor.put('branching', ids[3]!, start, v('1.1'));
    const b00 = accessor.put('branching', ids[3]!, b0, v('1.0.0'));
    accessor.put('branching', ids[4]!, b00, v('1.0.0.0'));
    assert.equal(buffer.numEntries(), 5);
    accessor.lockNode(b0, v('1.0'));
    for (const id of ids) accessor.releaseEvent(id);
    assert.equal(buffer.numEvents(), 4);
    assert.equal(buffer.numEntries(), 5);
  });

  it('testReleaseNodesWithLongPath: a path of 20,000 entries (deeper than recursion could go) is released', () => {
    const { buffer, accessor } = setup();
    const n = 20_000;
    const ids: SharedBufferEvent<Event>[] = [];
    let previous: SharedBufferNode<Event> | null = null;
    for (let i = 0; i < n; i++) {
      const id = accessor.registerEvent(new Event(i + 1, `e${i + 1}`, i), 1);
      ids.push(id);
      previous = accessor.put(`n${i}`, id, previous, v('1.0'));
    }
    assert.equal(buffer.numEntries(), n);
    accessor.releaseNode(previous!, v('1.0'));
    for (const id of ids) accessor.releaseEvent(id);
    assert.equal(buffer.isEmpty(), true);
    assert.equal(buffer.numEntries(), 0);
  });
});

describe('SharedBufferAccessor', () => {
  it('shares entries only among puts of the event registered last', () => {
    const { accessor } = setup();
    const [e0, e1] = events(2);
    const id0 = accessor.registerEvent(e0!, 1);
    const id1 = accessor.registerEvent(e1!, 2);
    // an earlier event gets an entry of its own, which the current event's puts never find
    const earlier = accessor.put('a', id0, null, v('2'));
    assert.equal(earlier.event, id0);
    const current = accessor.put('a', id1, null, v('1'));
    assert.equal(current.event, id1);
    // nor does a put of an earlier event find the current event's entry
    const again = accessor.put('a', id0, null, v('3'));
    assert.equal(again.event, id0);
    assert.notEqual(again, earlier);
    assert.equal(accessor.put('a', id1, null, v('4')), current);
    assert.deepEqual(
      current.edges.map((edge) => edge.version),
      [v('1'), v('4')],
    );
  });

  it('a removed entry of the current event is not reused: the next put creates a new one', () => {
    const { buffer, accessor } = setup();
    const [e0] = events(1);
    const id0 = accessor.registerEvent(e0!, 1);
    const first = accessor.put('a', id0, null, v('1'));
    accessor.releaseNode(first, v('1'));
    assert.equal(buffer.numEntries(), 0);
    const second = accessor.put('a', id0, null, v('2'));
    assert.notEqual(second, first);
    assert.deepEqual(accessor.materializeMatch(accessor.extractPatterns(second, v('2'))[0]!), { a: [e0] });
  });

  it('a removed entry reads back no path, even with an edge of another version left', () => {
    const { buffer, accessor } = setup();
    const [e0, e1] = events(2);
    const a = accessor.put('a', accessor.registerEvent(e0!, 1), null, v('1'));
    const b = accessor.put('b', accessor.registerEvent(e1!, 2), a, v('1.0'));
    accessor.lockNode(b, v('1.0'));
    accessor.lockNode(b, v('1.0'));
    // released twice by a version its edge is not compatible with: the entry goes, the edge stays
    accessor.releaseNode(b, v('2'));
    accessor.releaseNode(b, v('2'));
    assert.equal(b.edges.length, 1);
    assert.deepEqual(accessor.extractPatterns(b, v('1.0')), []);
    assert.deepEqual(accessor.materializeFirstPath(b, v('1.0')), {});
    assert.equal(buffer.numEntries(), 1);
    assert.equal(buffer.numEvents(), 2);
    // locking or releasing a removed entry again changes nothing
    accessor.lockNode(b, v('1.0'));
    assert.deepEqual(accessor.extractPatterns(b, v('1.0')), []);
    accessor.releaseNode(b, v('1.0'));
    assert.equal(b.edges.length, 1);
    assert.equal(buffer.numEntries(), 1);
    assert.equal(buffer.numEvents(), 2);
  });

  it('releasing a removed event again changes nothing', () => {
    const { buffer, accessor } = setup();
    const [e0, e1] = events(2);
    const id0 = accessor.registerEvent(e0!, 1);
    accessor.registerEvent(e1!, 2);
    accessor.releaseEvent(id0);
    assert.equal(buffer.numEvents(), 1);
    accessor.releaseEvent(id0);
    assert.equal(buffer.numEvents(), 1);
  });

  it('an entry with two compatible edges reads back two paths, the last edge first', () => {
    const { accessor } = setup();
    const [e0, e1, e2] = events(3);
    const a0 = accessor.put('a', accessor.registerEvent(e0!, 1), null, v('1'));
    const a1 = accessor.put('a', accessor.registerEvent(e1!, 2), null, v('1'));
    const id2 = accessor.registerEvent(e2!, 3);
    const c = accessor.put('c', id2, a0, v('1.0'));
    assert.equal(accessor.put('c', id2, a1, v('1.1')), c);
    const paths = accessor.extractPatterns(c, v('1.1')).map((m) => accessor.materializeMatch(m));
    assert.deepEqual(paths, [
      { a: [e1], c: [e2] },
      { a: [e0], c: [e2] },
    ]);
    assert.deepEqual(accessor.materializeFirstPath(c, v('1.1')), { a: [e1], c: [e2] });
    // no edge is compatible with version 2: no path
    assert.deepEqual(accessor.extractPatterns(c, v('2')), []);
    assert.deepEqual(accessor.materializeFirstPath(c, v('2')), {});
    // version 1.0 is compatible with the first edge only
    assert.deepEqual(
      accessor.extractPatterns(c, v('1.0')).map((m) => accessor.materializeMatch(m)),
      [{ a: [e0], c: [e2] }],
    );
  });

  it('refuses to store an event that was already removed', () => {
    const { accessor } = setup();
    const [e0] = events(1);
    const id0 = accessor.registerEvent(e0!, 1000);
    accessor.releaseEvent(id0);
    assert.throws(() => accessor.put('a', id0, null, v('1')), {
      message: 'Referring to non existent event with id 1000#0',
    });
  });
});

/**
 * A keyed value state that keeps copies, as a serializing backend does (the heap backend keeps the object itself,
 * so a counter changed in place would be seen without a write), and logs every read and write.
 */
function copyingBackend() {
  const log: string[] = [];
  const values = new Map<string, unknown>();
  let key = 'key';
  const state = {
    setCurrentNamespace() {},
    value() {
      log.push('read');
      const v = values.get(key);
      return v === undefined ? undefined : structuredClone(v);
    },
    update(v: unknown) {
      log.push('write');
      values.set(key, structuredClone(v));
    },
    clear() {
      log.push('clear');
      values.delete(key);
    },
  };
  const backend = { getOrCreateKeyedState: () => state } as unknown as ConstructorParameters<
    typeof SharedBuffer
  >[0];
  return { backend, log, setKey: (k: string) => (key = k) };
}

describe('SharedBuffer counters', () => {
  it('unpinned, every change reads and writes the counters; counts read the state', () => {
    const { backend, log } = copyingBackend();
    const buffer = new SharedBuffer<string>(backend);
    assert.equal(buffer.registerEvent('x', 1).id, 0);
    buffer.adjust(0, 2);
    assert.deepEqual(log, ['read', 'write', 'read', 'write']);
    assert.equal(buffer.numEvents(), 1);
    assert.equal(buffer.numEntries(), 2);
    assert.deepEqual(log.slice(4), ['read', 'read']);
  });

  it('pinned, the counters are read once and written once, at unpin; counts come from the counters in hand', () => {
    const { backend, log, setKey } = copyingBackend();
    const buffer = new SharedBuffer<string>(backend);
    buffer.registerEvent('x', 1);
    log.length = 0;
    buffer.pin();
    // nothing read yet: the stored counters
    assert.equal(buffer.numEvents(), 1);
    assert.equal(buffer.registerEvent('y', 2).id, 1);
    buffer.adjust(0, 1);
    buffer.adjust(0, 1);
    assert.equal(buffer.numEvents(), 2);
    assert.equal(buffer.numEntries(), 2);
    assert.deepEqual(log, ['read', 'read']);
    buffer.unpin();
    assert.deepEqual(log, ['read', 'read', 'write']);
    // unpinned again: the next change is written at once
    buffer.registerEvent('z', 3);
    assert.deepEqual(log.slice(3), ['read', 'write']);
    assert.equal(buffer.numEvents(), 3);
    assert.equal(buffer.numEntries(), 2);
    // another key's counters are its own
    setKey('other');
    assert.equal(buffer.numEvents(), 0);
    assert.equal(buffer.isEmpty(), true);
  });

  it("the accessor pins and unpins its buffer (the NFA's one read and one write per call)", () => {
    const { backend, log } = copyingBackend();
    const accessor = new SharedBufferAccessor<string>(new SharedBuffer<string>(backend));
    accessor.pin();
    const id = accessor.registerEvent('x', 1);
    accessor.put('a', id, null, v('1'));
    assert.deepEqual(log, ['read']);
    accessor.unpin();
    assert.deepEqual(log, ['read', 'write']);
  });

  it('pinned without a change: no read, no write', () => {
    const { backend, log } = copyingBackend();
    const buffer = new SharedBuffer<string>(backend);
    buffer.pin();
    buffer.unpin();
    assert.deepEqual(log, []);
  });

  it('counters that drop to no events and no entries are cleared, pinned or not; entries alone are kept', () => {
    const { backend, log } = copyingBackend();
    const buffer = new SharedBuffer<string>(backend);
    buffer.registerEvent('x', 1);
    buffer.adjust(-1, 0);
    assert.deepEqual(log, ['read', 'write', 'read', 'clear']);
    buffer.pin();
    buffer.registerEvent('y', 1);
    buffer.adjust(-1, 0);
    buffer.unpin();
    assert.deepEqual(log.slice(4), ['read', 'clear']);
    buffer.registerEvent('z', 1);
    buffer.adjust(0, 1);
    buffer.adjust(-1, 0);
    assert.equal(buffer.numEvents(), 0);
    assert.equal(buffer.numEntries(), 1);
    assert.equal(buffer.isEmpty(), true);
  });

  it('clear forgets the key: no events, and ids start again at 0', () => {
    const { buffer, accessor } = setup();
    const [e0, e1] = events(2);
    accessor.registerEvent(e0!, 1);
    assert.equal(accessor.registerEvent(e1!, 1).id, 1);
    buffer.clear();
    assert.equal(buffer.numEvents(), 0);
    assert.equal(buffer.isEmpty(), true);
    assert.equal(accessor.registerEvent(e0!, 1).id, 0);
  });

  it('a buffer that empties drops its counters, so ids start again at 0', () => {
    const { buffer, accessor } = setup();
    const [e0, e1] = events(2);
    accessor.releaseEvent(accessor.registerEvent(e0!, 1));
    assert.equal(buffer.isEmpty(), true);
    assert.equal(accessor.registerEvent(e1!, 1).id, 0);
  });

  it('counters that would go negative are an error', () => {
    const { buffer } = setup();
    assert.throws(() => buffer.adjust(-1, 0), {
      message: 'Shared buffer counters of the current key went negative',
    });
    assert.throws(() => buffer.adjust(0, -1), {
      message: 'Shared buffer counters of the current key went negative',
    });
  });
});
