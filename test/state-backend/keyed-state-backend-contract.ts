// The contract every KeyedStateBackend passes: one suite, run once per implementation (heap, LMDB).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import { voidNamespaceSerializer, type NamespaceSerializer } from '../../src/state/namespace.ts';
import {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  ValueStateDescriptor,
} from '../../src/core/state-descriptor.ts';
import { StateTtlConfig } from '../../src/core/state-ttl-config.ts';
import { structuredCloneSerializer } from '../../src/core/type-serializer.ts';

/** Creates a backend over `range` of `maxParallelism` key groups, reading processing time from `clock`. */
export type BackendFactory = (
  range: KeyGroupRange,
  maxParallelism: number,
  clock: () => number,
) => KeyedStateBackend;

const MAXP = 128;
const FULL = new KeyGroupRange(0, MAXP - 1);

/** Windows as namespaces: `{start, end}`, looked up by `start:end`. */
const windowNs: NamespaceSerializer<{ start: number; end: number }> = {
  key: (w) => (w === undefined ? '' : `${w.start}:${w.end}`),
  serializer: structuredCloneSerializer,
};

/**
 * The same windows, hashed by the parity of their start as a heap backend may index them (see NamespaceHashing):
 * windows of one parity share a hash, so only equality tells them apart.
 */
const hashedWindowNs: NamespaceSerializer<{ start: number; end: number }> = {
  ...windowNs,
  hashing: {
    hash: (w) => (w === undefined ? 0 : w.start % 2),
    equals: (a, b) => a.start === b.start && a.end === b.end,
  },
};

const avg = {
  createAccumulator: () => ({ sum: 0, count: 0 }),
  add: (v: number, acc: { sum: number; count: number }) => ({ sum: acc.sum + v, count: acc.count + 1 }),
  getResult: (acc: { sum: number; count: number }) => acc.sum / acc.count,
  merge: (a: { sum: number; count: number }, b: { sum: number; count: number }) => ({
    sum: a.sum + b.sum,
    count: a.count + b.count,
  }),
};

/** Runs the state contract against one backend implementation. */
export function keyedStateBackendContract(name: string, create: BackendFactory): void {
  describe(`KeyedStateBackend contract: ${name}`, () => {
    const open = (range = FULL, clock: () => number = () => 0) => create(range, MAXP, clock);

    it('value state: default, update, clear, isolated per key', () => {
      const b = open();
      const s = b.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('v', { defaultValue: 7 }),
        voidNamespaceSerializer,
      );
      b.setCurrentKey('a');
      assert.equal(s.value(), 7);
      s.update(1);
      b.setCurrentKey('b');
      assert.equal(s.value(), 7);
      s.update(2);
      b.setCurrentKey('a');
      assert.equal(s.value(), 1);
      s.clear();
      assert.equal(s.value(), 7);
      b.setCurrentKey('b');
      assert.equal(s.value(), 2);
      s.update(undefined);
      assert.equal(b.numStateEntries(), 0);
      b.dispose();
    });

    it('every state kind fails without a current key, also while it holds nothing (Flink: "No key set")', () => {
      const b = open();
      const noKey = /no key set/;
      const value = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
      const list = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), voidNamespaceSerializer);
      const map = b.getOrCreateKeyedState(
        new MapStateDescriptor<string, number>('m'),
        voidNamespaceSerializer,
      );
      const reducing = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('r', (x, y) => x + y),
        voidNamespaceSerializer,
      );
      const aggregating = b.getOrCreateKeyedState(
        new AggregatingStateDescriptor('a', avg),
        voidNamespaceSerializer,
      );
      const reads = [
        () => value.value(),
        () => [...list.get()],
        () => map.get('x'),
        () => map.contains('x'),
        () => reducing.get(),
        () => aggregating.get(),
      ];
      for (const read of reads) assert.throws(read, noKey);
      // Once other keys hold entries, a read without a key still fails rather than reading any of them.
      b.setCurrentKey('a');
      value.update(1);
      list.add(1);
      map.put('x', 1);
      reducing.add(1);
      aggregating.add(1);
      b.clearCurrentKey();
      for (const read of reads) assert.throws(read, noKey);
      assert.throws(() => value.update(2), noKey);
      b.dispose();
    });

    it('list state: add, addAll, update, empty', () => {
      const b = open();
      const s = b.getOrCreateKeyedState(new ListStateDescriptor<string>('l'), voidNamespaceSerializer);
      b.setCurrentKey(1);
      assert.deepEqual([...s.get()], []);
      s.add('x');
      s.addAll(['y', 'z']);
      b.setCurrentKey(2);
      s.add('q');
      b.setCurrentKey(1);
      assert.deepEqual([...s.get()], ['x', 'y', 'z']);
      s.update(['n']);
      assert.deepEqual([...s.get()], ['n']);
      s.update([]);
      assert.deepEqual([...s.get()], []);
      assert.equal(b.numStateEntries(), 1);
      b.dispose();
    });

    it('map state: put, get, remove, contains, iteration, size', () => {
      const b = open();
      const s = b.getOrCreateKeyedState(new MapStateDescriptor<string, number>('m'), voidNamespaceSerializer);
      b.setCurrentKey('k');
      assert.equal(s.isEmpty(), true);
      s.put('a', 1);
      s.putAll([
        ['b', 2],
        ['c', 3],
      ]);
      assert.equal(s.get('b'), 2);
      assert.equal(s.contains('c'), true);
      s.remove('c');
      assert.equal(s.contains('c'), false);
      assert.deepEqual(
        [...s.entries()],
        [
          ['a', 1],
          ['b', 2],
        ],
      );
      assert.deepEqual([...s.keys()], ['a', 'b']);
      assert.deepEqual([...s.values()], [1, 2]);
      assert.equal(s.size(), 2);
      b.setCurrentKey('other');
      assert.equal(s.get('a'), undefined);
      b.dispose();
    });

    it('map state: reading, removing and iterating an absent map create nothing; removing the last key removes the map', () => {
      let now = 1_000;
      const b = open(FULL, () => now);
      const m = b.getOrCreateKeyedState(new MapStateDescriptor<string, number>('m'), voidNamespaceSerializer);
      const ttl = StateTtlConfig.newBuilder(100).build();
      const t = b.getOrCreateKeyedState(
        new MapStateDescriptor<string, number>('t', { ttl }),
        voidNamespaceSerializer,
      );
      const l = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), voidNamespaceSerializer);
      b.setCurrentKey('k');
      assert.deepEqual(
        [m.get('a'), m.contains('a'), [...m.entries()], m.isEmpty()],
        [undefined, false, [], true],
      );
      m.remove('a');
      l.addAll([]);
      assert.equal(b.numStateEntries(), 0);
      m.put('a', 1);
      assert.deepEqual([m.isEmpty(), m.size()], [false, 1]);
      m.remove('a');
      assert.equal(b.numStateEntries(), 0);
      // With a TTL: an absent user key of a live map reads as absent.
      t.put('a', 1);
      t.put('b', 2);
      assert.equal(t.get('c'), undefined);
      now = 1_050;
      t.put('b', 3);
      t.remove('b');
      // 'a' expires at 1100 while the map's own stamp (1050) is live: the map goes with its last entry.
      now = 1_100;
      assert.equal(t.get('a'), undefined);
      assert.equal(b.numStateEntries(), 0);
      b.dispose();
    });

    it('reducing and aggregating state', () => {
      const b = open();
      const r = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('max', Math.max),
        voidNamespaceSerializer,
      );
      const a = b.getOrCreateKeyedState(new AggregatingStateDescriptor('avg', avg), voidNamespaceSerializer);
      b.setCurrentKey({ user: 'u', id: 1 });
      assert.equal(r.get(), undefined);
      r.add(3);
      r.add(9);
      r.add(4);
      a.add(2);
      a.add(4);
      assert.equal(r.get(), 9);
      assert.equal(a.get(), 3);
      assert.deepEqual(a.getAccumulator(), { sum: 6, count: 2 });
      b.dispose();
    });

    it('a descriptor of an unknown kind is an error naming the kind', () => {
      const b = open();
      const bogus = Object.assign(new ValueStateDescriptor<number>('x'), { kind: 'bogus' });
      assert.throws(
        () => b.getOrCreateKeyedState(bogus as never, voidNamespaceSerializer),
        /^IllegalStateError: Unknown state kind bogus$/,
      );
      b.dispose();
    });

    it('same name with another kind is an error naming the state', () => {
      const b = open();
      b.getOrCreateKeyedState(new ValueStateDescriptor<number>('x'), voidNamespaceSerializer);
      assert.throws(
        () => b.getOrCreateKeyedState(new ListStateDescriptor<number>('x'), voidNamespaceSerializer),
        /^IllegalStateError: Operator 'operator': state 'x' was registered as value state and is now asked for as list state$/,
      );
      b.dispose();
    });

    it('namespaces partition a key, and merge into a target', () => {
      const b = open();
      const list = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), windowNs);
      const sum = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('s', (x, y) => x + y),
        windowNs,
      );
      const agg = b.getOrCreateKeyedState(new AggregatingStateDescriptor('a', avg), windowNs);
      const w1 = { start: 0, end: 10 };
      const w2 = { start: 5, end: 15 };
      const w3 = { start: 0, end: 15 };
      b.setCurrentKey('k');
      for (const [w, v] of [
        [w1, 1],
        [w2, 2],
        [w2, 3],
      ] as const) {
        for (const s of [list, sum, agg]) s.setCurrentNamespace(w);
        list.add(v);
        sum.add(v);
        agg.add(v);
      }
      list.setCurrentNamespace(w1);
      assert.deepEqual([...list.get()], [1]);
      list.mergeNamespaces(w3, [w1, w2]);
      sum.mergeNamespaces(w3, [w1, w2]);
      agg.mergeNamespaces(w3, [w1, w2]);
      for (const s of [list, sum, agg]) s.setCurrentNamespace(w3);
      assert.deepEqual([...list.get()].sort(), [1, 2, 3]);
      assert.equal(sum.get(), 6);
      assert.equal(agg.get(), 2);
      for (const s of [list, sum, agg]) s.setCurrentNamespace(w1);
      assert.deepEqual([...list.get()], []);
      assert.equal(sum.get(), undefined);
      assert.equal(b.numStateEntries(), 3);
      b.dispose();
    });

    it('namespaces that share a hash stay apart: writes, reads, merges, clears and snapshots', () => {
      const b = open();
      const sum = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('s', (x, y) => x + y),
        hashedWindowNs,
      );
      const windows = [
        { start: 0, end: 10 },
        { start: 2, end: 10 },
        { start: 0, end: 12 },
        { start: 4, end: 10 },
      ];
      const read = (key: string) => {
        b.setCurrentKey(key);
        return windows.map((w) => {
          sum.setCurrentNamespace({ ...w }); // an equal window, not the object written
          return sum.get();
        });
      };
      for (const key of ['k', 'j']) {
        b.setCurrentKey(key);
        windows.forEach((w, i) => {
          sum.setCurrentNamespace(w);
          sum.add(key === 'k' ? 1 << i : 100 * (i + 1));
        });
      }
      assert.deepEqual(read('k'), [1, 2, 4, 8]);
      sum.mergeNamespaces({ start: 0, end: 20 }, [
        { start: 0, end: 10 },
        { start: 4, end: 10 },
      ]);
      sum.setCurrentNamespace({ start: 0, end: 20 });
      assert.equal(sum.get(), 9);
      assert.deepEqual(read('k'), [undefined, 2, 4, undefined]);
      sum.setCurrentNamespace({ start: 0, end: 12 });
      sum.clear();
      assert.deepEqual(read('k'), [undefined, 2, undefined, undefined]);
      assert.deepEqual(read('j'), [100, 200, 300, 400], 'another key untouched');
      const restored = open();
      restored.restore(b.snapshot());
      const back = restored.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('s', (x, y) => x + y),
        windowNs,
      );
      restored.setCurrentKey('j');
      assert.deepEqual(
        windows.map((w) => {
          back.setCurrentNamespace(w);
          return back.get();
        }),
        [100, 200, 300, 400],
        'a snapshot holds the keys of the namespaces, whatever their hash',
      );
      assert.equal(b.numStateEntries(), 6);
      b.dispose();
      restored.dispose();
    });

    it('TTL: entries expire after their time-to-live; OnReadAndWrite refreshes on read', () => {
      let now = 1_000;
      const b = open(FULL, () => now);
      const ttl = StateTtlConfig.newBuilder(100).build();
      const refresh = StateTtlConfig.newBuilder(100).updateTtlOnReadAndWrite().build();
      const v = b.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('v', { ttl }),
        voidNamespaceSerializer,
      );
      const r = b.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('r', { ttl: refresh }),
        voidNamespaceSerializer,
      );
      const m = b.getOrCreateKeyedState(
        new MapStateDescriptor<string, number>('m', { ttl }),
        voidNamespaceSerializer,
      );
      b.setCurrentKey('k');
      v.update(1);
      r.update(2);
      m.put('a', 1);
      now = 1_060;
      assert.equal(r.value(), 2);
      now = 1_120;
      assert.equal(v.value(), undefined);
      assert.equal(r.value(), 2);
      assert.equal(m.get('a'), undefined);
      now = 1_300;
      const snap = b.snapshot();
      const c = open(FULL, () => now);
      c.restore(snap);
      c.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('r', { ttl: refresh }),
        voidNamespaceSerializer,
      );
      assert.equal(c.numStateEntries(), 0);
      b.dispose();
      c.dispose();
    });

    it('class instances keep their class with a descriptor type; without one the snapshot fails naming the class', () => {
      class Ride {
        constructor(
          readonly start: number,
          readonly end: number,
        ) {}
        duration(): number {
          return this.end - this.start;
        }
      }
      const b = open();
      const typed = b.getOrCreateKeyedState(
        new ValueStateDescriptor<Ride>('typed', { type: Ride }),
        voidNamespaceSerializer,
      );
      const list = b.getOrCreateKeyedState(
        new ListStateDescriptor<Ride>('list', { type: Ride }),
        voidNamespaceSerializer,
      );
      b.setCurrentKey('a');
      typed.update(new Ride(10, 25));
      list.add(new Ride(0, 3));
      list.add(new Ride(5, 9));
      const c = open();
      c.restore(b.snapshot());
      const typedBack = c.getOrCreateKeyedState(
        new ValueStateDescriptor<Ride>('typed', { type: Ride }),
        voidNamespaceSerializer,
      );
      const listBack = c.getOrCreateKeyedState(
        new ListStateDescriptor<Ride>('list', { type: Ride }),
        voidNamespaceSerializer,
      );
      c.setCurrentKey('a');
      assert.equal(typedBack.value()!.duration(), 15);
      assert.deepEqual(
        [...listBack.get()].map((r) => r.duration()),
        [3, 4],
      );
      // The declared class is kept, but an instance of another class in one of its fields is refused.
      const withField = b.getOrCreateKeyedState(
        new ValueStateDescriptor<Ride>('withField', { type: Ride }),
        voidNamespaceSerializer,
      );
      withField.update(Object.assign(new Ride(0, 1), { extra: new (class Fare {})() }));
      assert.throws(
        () => b.snapshot(),
        /^IllegalStateError: State 'withField' of operator 'operator' holds instances of class Fare at .extra, which a snapshot would restore as plain objects; give the descriptor a serializer that restores it$/,
      );
      withField.clear();
      const untyped = b.getOrCreateKeyedState(
        new ValueStateDescriptor<Ride>('untyped'),
        voidNamespaceSerializer,
      );
      untyped.update(new Ride(1, 2));
      assert.throws(
        () => b.snapshot(),
        /State 'untyped' of operator '.*' holds instances of class Ride, which a snapshot would restore as plain objects/,
      );
      // An empty first value shows nothing of the state's type: the next value is checked.
      untyped.clear();
      const mixed = b.getOrCreateKeyedState(
        new ValueStateDescriptor<unknown>('mixed'),
        voidNamespaceSerializer,
      );
      mixed.update([]);
      b.setCurrentKey('b');
      mixed.update([new Ride(1, 2)]);
      assert.throws(
        () => b.snapshot(),
        /^IllegalStateError: State 'mixed' of operator 'operator' holds instances of class Ride, which a snapshot would restore as plain objects/,
      );
      b.dispose();
      c.dispose();
    });

    it('TTL boundary: an entry written at 1000 with a 100 ms TTL is live at 1099 and expired at exactly 1100', () => {
      let now = 1_000;
      const ttl = StateTtlConfig.newBuilder(100).build();
      const register = (backend: KeyedStateBackend) => ({
        value: backend.getOrCreateKeyedState(
          new ValueStateDescriptor<number>('v', { ttl }),
          voidNamespaceSerializer,
        ),
        list: backend.getOrCreateKeyedState(
          new ListStateDescriptor<number>('l', { ttl }),
          voidNamespaceSerializer,
        ),
        map: backend.getOrCreateKeyedState(
          new MapStateDescriptor<string, number>('m', { ttl }),
          voidNamespaceSerializer,
        ),
        sum: backend.getOrCreateKeyedState(
          new ReducingStateDescriptor<number>('s', (x, y) => x + y, { ttl }),
          voidNamespaceSerializer,
        ),
      });
      const b = open(FULL, () => now);
      const s = register(b);
      b.setCurrentKey('k');
      s.value.update(1);
      s.list.add(2);
      s.map.put('a', 3);
      s.sum.add(4);
      // A later entry refreshes the map's own stamp; 'a' still expires on its own 100 ms after it was written.
      now = 1_050;
      s.map.put('b', 5);
      const read = (states: ReturnType<typeof register>) => [
        states.value.value(),
        [...states.list.get()],
        states.map.get('a'),
        states.map.get('b'),
        states.sum.get(),
      ];
      // A snapshot keeps exactly the entries a read would still return (Flink: expired when lastAccess + ttl <= now).
      const restoredAt = (at: number) => {
        now = at;
        const c = open(FULL, () => now);
        c.restore(b.snapshot());
        const restored = register(c);
        c.setCurrentKey('k');
        const result = { entries: c.numStateEntries(), values: read(restored) };
        c.dispose();
        return result;
      };
      assert.deepEqual(restoredAt(1_099), { entries: 4, values: [1, [2], 3, 5, 4] });
      assert.deepEqual(restoredAt(1_100), { entries: 1, values: [undefined, [], undefined, 5, undefined] });
      now = 1_099;
      assert.deepEqual(read(s), [1, [2], 3, 5, 4]);
      now = 1_100;
      assert.deepEqual(read(s), [undefined, [], undefined, 5, undefined]);
      b.dispose();
    });

    it('TTL OnCreateAndWrite: every write restarts the time-to-live of an entry, a read does not', () => {
      let now = 1_000;
      const ttl = StateTtlConfig.newBuilder(100).build();
      const b = open(FULL, () => now);
      // An accumulator changed in place: the write that refreshes its stamp is the only write there is.
      const counter = {
        createAccumulator: () => ({ n: 0 }),
        add: (v: number, acc: { n: number }) => {
          acc.n += v;
          return acc;
        },
        getResult: (acc: { n: number }) => acc.n,
        merge: (a: { n: number }, c: { n: number }) => ({ n: a.n + c.n }),
      };
      const value = b.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('v', { ttl }),
        voidNamespaceSerializer,
      );
      const added = b.getOrCreateKeyedState(
        new ListStateDescriptor<number>('add', { ttl }),
        voidNamespaceSerializer,
      );
      const addedAll = b.getOrCreateKeyedState(
        new ListStateDescriptor<number>('addAll', { ttl }),
        voidNamespaceSerializer,
      );
      const map = b.getOrCreateKeyedState(
        new MapStateDescriptor<string, number>('m', { ttl }),
        voidNamespaceSerializer,
      );
      const sum = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('s', (x, y) => x + y, { ttl }),
        voidNamespaceSerializer,
      );
      const count = b.getOrCreateKeyedState(
        new AggregatingStateDescriptor('c', counter, { ttl }),
        voidNamespaceSerializer,
      );
      b.setCurrentKey('k');
      const write = (v: number) => {
        value.update(v);
        added.add(v);
        addedAll.addAll([v, v]);
        map.put('a', v);
        sum.add(v);
        count.add(v);
      };
      const read = () => [
        value.value(),
        [...added.get()],
        [...addedAll.get()],
        map.get('a'),
        sum.get(),
        count.get(),
      ];
      write(1);
      now = 1_080;
      write(2);
      now = 1_179;
      assert.deepEqual(read(), [2, [1, 2], [1, 1, 2, 2], 2, 3, 3]);
      assert.equal(b.numStateEntries(), 6);
      now = 1_180;
      assert.deepEqual(read(), [undefined, [], [], undefined, undefined, undefined]);
      // A read of an expired entry removes it (Flink's cleanup on access).
      assert.equal(b.numStateEntries(), 0);
      b.dispose();
    });

    it('TTL OnReadAndWrite: a read of a map entry restarts the time-to-live of the entry and of its map', () => {
      let now = 1_000;
      const ttl = StateTtlConfig.newBuilder(100).updateTtlOnReadAndWrite().build();
      const b = open(FULL, () => now);
      const map = b.getOrCreateKeyedState(
        new MapStateDescriptor<string, number>('m', { ttl }),
        voidNamespaceSerializer,
      );
      const list = b.getOrCreateKeyedState(
        new ListStateDescriptor<number>('l', { ttl }),
        voidNamespaceSerializer,
      );
      b.setCurrentKey('k');
      map.put('a', 1);
      map.put('b', 2);
      list.add(7);
      now = 1_080;
      assert.equal(map.get('a'), 1);
      assert.deepEqual([...list.get()], [7]);
      now = 1_150;
      // 'b' was last touched at 1000; 'a' and the map itself at 1080.
      assert.deepEqual([...map.entries()], [['a', 1]]);
      assert.deepEqual([...list.get()], [7]);
      now = 1_249;
      assert.equal(map.get('a'), 1);
      now = 1_349;
      assert.equal(map.size(), 0);
      assert.equal(map.isEmpty(), true);
      assert.deepEqual([...list.get()], []);
      assert.equal(b.numStateEntries(), 0);
      b.dispose();
    });

    it('TTL and restore: a stamp restored keeps counting; an entry without one starts at the restore time', () => {
      let now = 0;
      const ttl = StateTtlConfig.newBuilder(100).build();
      const b = open(FULL, () => now);
      const stamped = b.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('stamped', { ttl }),
        voidNamespaceSerializer,
      );
      const plain = b.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('plain'),
        voidNamespaceSerializer,
      );
      b.setCurrentKey('k');
      stamped.update(1); // written at 0: expires at 100
      plain.update(2);
      now = 50;
      const snap = b.snapshot();
      const c = open(FULL, () => now);
      // One state registered before the restore, one after (operators register theirs in open).
      const stamped2 = c.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('stamped', { ttl }),
        voidNamespaceSerializer,
      );
      c.restore(snap);
      // The same state restored with a TTL it did not have: its entries start their time-to-live now.
      const plain2 = c.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('plain', { ttl }),
        voidNamespaceSerializer,
      );
      c.setCurrentKey('k');
      now = 99;
      assert.deepEqual([stamped2.value(), plain2.value()], [1, 2]);
      now = 100;
      assert.deepEqual([stamped2.value(), plain2.value()], [undefined, 2]);
      now = 149;
      assert.equal(plain2.value(), 2);
      now = 150;
      assert.equal(plain2.value(), undefined);
      b.dispose();
      c.dispose();
    });

    it('TTL and merging: an expired namespace adds nothing to the merge; the target keeps what it held', () => {
      let now = 1_000;
      const ttl = StateTtlConfig.newBuilder(100).build();
      const b = open(FULL, () => now);
      const list = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l', { ttl }), windowNs);
      const sum = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('s', (x, y) => x + y, { ttl }),
        windowNs,
      );
      const agg = b.getOrCreateKeyedState(new AggregatingStateDescriptor('a', avg, { ttl }), windowNs);
      const w1 = { start: 0, end: 10 };
      const w2 = { start: 5, end: 15 };
      const target = { start: 0, end: 15 };
      b.setCurrentKey('k');
      const addIn = (w: { start: number; end: number }, v: number) => {
        for (const s of [list, sum, agg]) s.setCurrentNamespace(w);
        list.add(v);
        sum.add(v);
        agg.add(v);
      };
      addIn(w1, 1);
      now = 1_060;
      addIn(w2, 2);
      addIn(target, 10);
      now = 1_100; // w1 expired
      for (const s of [list, sum, agg]) s.mergeNamespaces(target, [w2, w1]);
      for (const s of [list, sum, agg]) s.setCurrentNamespace(target);
      assert.deepEqual([[...list.get()], sum.get(), agg.get()], [[10, 2], 12, 6]);
      for (const s of [list, sum, agg]) s.setCurrentNamespace(w1);
      assert.deepEqual([[...list.get()], sum.get(), agg.get()], [[], undefined, undefined]);
      assert.equal(b.numStateEntries(), 3);
      b.dispose();
    });

    it('merging namespaces that hold nothing writes nothing', () => {
      const b = open();
      const list = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), windowNs);
      const sum = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('s', (x, y) => x + y),
        windowNs,
      );
      const agg = b.getOrCreateKeyedState(new AggregatingStateDescriptor('a', avg), windowNs);
      b.setCurrentKey('k');
      const current = { start: 20, end: 30 };
      for (const s of [list, sum, agg]) {
        s.setCurrentNamespace(current);
        s.add(5);
      }
      for (const s of [list, sum, agg]) s.mergeNamespaces({ start: 0, end: 15 }, [{ start: 0, end: 10 }]);
      assert.equal(b.numStateEntries(), 3);
      // The handles still read the namespace set before the merge.
      assert.deepEqual([[...list.get()], sum.get(), agg.get()], [[5], 5, 5]);
      b.dispose();
    });

    it('appending states say whether add created the entry', () => {
      let now = 0;
      const ttl = StateTtlConfig.newBuilder(100).build();
      const b = open(FULL, () => now);
      const list = b.getOrCreateKeyedState(
        new ListStateDescriptor<number>('l', { ttl }),
        voidNamespaceSerializer,
      );
      const sum = b.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('s', (x, y) => x + y, { ttl }),
        voidNamespaceSerializer,
      );
      const agg = b.getOrCreateKeyedState(
        new AggregatingStateDescriptor('a', avg, { ttl }),
        voidNamespaceSerializer,
      );
      b.setCurrentKey('k');
      const addAll = (v: number) => [list.add(v), sum.add(v), agg.add(v)];
      assert.deepEqual(addAll(1), [true, true, true]);
      assert.deepEqual(addAll(2), [false, false, false]);
      now = 100; // expired: the next add creates the entry again
      assert.deepEqual(addAll(3), [true, true, true]);
      assert.deepEqual([[...list.get()], sum.get(), agg.get()], [[3], 3, 3]);
      b.dispose();
    });

    it('counts the entries of one state, restored ones waiting for registration included', () => {
      const b = open();
      const v = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
      const l = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), windowNs);
      for (const key of ['a', 'b', 'c']) {
        b.setCurrentKey(key);
        v.update(1);
        l.setCurrentNamespace({ start: 0, end: 10 });
        l.add(1);
        l.setCurrentNamespace({ start: 10, end: 20 });
        l.add(2);
      }
      b.setCurrentKey('d');
      v.update(1);
      assert.deepEqual([b.numStateEntries(), b.numStateEntries('v'), b.numStateEntries('l')], [10, 4, 6]);
      assert.equal(b.numStateEntries('none'), 0);
      // Keys with entries in several namespaces are listed once.
      assert.deepEqual([...b.getKeys('l')].sort(), ['a', 'b', 'c']);
      assert.deepEqual([...b.getKeys('none')], []);
      const c = open();
      c.restore(b.snapshot());
      assert.deepEqual([c.numStateEntries(), c.numStateEntries('v'), c.numStateEntries('l')], [10, 4, 6]);
      // Keys are listed only for registered states.
      assert.deepEqual([...c.getKeys('v')], []);
      const v2 = c.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
      assert.deepEqual([c.numStateEntries(), c.numStateEntries('v'), c.numStateEntries('l')], [10, 4, 6]);
      assert.deepEqual([...c.getKeys('v')].sort(), ['a', 'b', 'c', 'd']);
      // Asked for again, a state is the same handle.
      assert.equal(
        c.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer),
        v2,
      );
      b.dispose();
      c.dispose();
    });

    it('snapshot and restore by key group, keeping only groups in range', () => {
      const b = open();
      const v = b.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
      const l = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), windowNs);
      for (let i = 0; i < 500; i++) {
        b.setCurrentKey(`key-${i}`);
        v.update(`value-${i}`);
        l.setCurrentNamespace({ start: i % 3, end: 10 });
        l.add(i);
      }
      const snap = b.snapshot();
      assert.ok(snap.length > 1 && snap.every((g, i) => i === 0 || g.keyGroup > snap[i - 1]!.keyGroup));
      const c = open();
      c.restore(snap);
      const v2 = c.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
      const l2 = c.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), windowNs);
      for (let i = 0; i < 500; i++) {
        c.setCurrentKey(`key-${i}`);
        assert.equal(v2.value(), `value-${i}`);
        l2.setCurrentNamespace({ start: i % 3, end: 10 });
        assert.deepEqual([...l2.get()], [i]);
      }
      assert.equal(c.numStateEntries(), 1_000);
      assert.deepEqual(new Set(c.getKeys('v')), new Set(Array.from({ length: 500 }, (_, i) => `key-${i}`)));
      const half = open(new KeyGroupRange(0, 63));
      half.restore(snap);
      half.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
      half.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), windowNs);
      const expected = snap.filter((g) => g.keyGroup < 64).length;
      assert.equal(half.snapshot().length, expected);
      for (const x of [b, c, half]) x.dispose();
    });

    it('restores state registered after restore (operators register in open)', () => {
      const b = open();
      const m = b.getOrCreateKeyedState(new MapStateDescriptor<string, number>('m'), voidNamespaceSerializer);
      b.setCurrentKey(42);
      m.put('x', 1);
      const c = open();
      c.restore(b.snapshot());
      assert.equal(c.numStateEntries(), 1);
      const m2 = c.getOrCreateKeyedState(
        new MapStateDescriptor<string, number>('m'),
        voidNamespaceSerializer,
      );
      c.setCurrentKey(42);
      assert.equal(m2.get('x'), 1);
      b.dispose();
      c.dispose();
    });

    it('rescales: a snapshot of one backend splits over three, and merges back', () => {
      const one = open();
      const s = one.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('sum', (a, b) => a + b),
        voidNamespaceSerializer,
      );
      for (let i = 0; i < 2_000; i++) {
        one.setCurrentKey(i % 300);
        s.add(i);
      }
      const snap = one.snapshot();
      const three = [0, 1, 2].map((i) => open(KeyGroupRange.forSubtask(MAXP, 3, i)));
      let total = 0;
      for (const b of three) {
        b.restore(snap);
        const st = b.getOrCreateKeyedState(
          new ReducingStateDescriptor<number>('sum', (a, c) => a + c),
          voidNamespaceSerializer,
        );
        total += b.numStateEntries();
        for (const key of b.getKeys('sum')) {
          b.setCurrentKey(key);
          let expected = 0;
          for (let i = key as number; i < 2_000; i += 300) expected += i;
          assert.equal(st.get(), expected);
          assert.ok(b.keyGroupRange.contains(b.getCurrentKeyGroup()));
        }
      }
      assert.equal(total, 300);
      const back = open();
      for (const b of three) back.restore(b.snapshot());
      back.getOrCreateKeyedState(
        new ReducingStateDescriptor<number>('sum', (a, c) => a + c),
        voidNamespaceSerializer,
      );
      assert.equal(back.numStateEntries(), 300);
      for (const b of [one, ...three, back]) b.dispose();
    });
  });
}
