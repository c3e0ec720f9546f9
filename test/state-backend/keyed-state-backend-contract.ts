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

    it('same name with another kind is an error naming the state', () => {
      const b = open();
      b.getOrCreateKeyedState(new ValueStateDescriptor<number>('x'), voidNamespaceSerializer);
      assert.throws(
        () => b.getOrCreateKeyedState(new ListStateDescriptor<number>('x'), voidNamespaceSerializer),
        /'x'/,
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
      const untyped = b.getOrCreateKeyedState(
        new ValueStateDescriptor<Ride>('untyped'),
        voidNamespaceSerializer,
      );
      untyped.update(new Ride(1, 2));
      assert.throws(
        () => b.snapshot(),
        /State 'untyped' of operator '.*' holds instances of class Ride, which a snapshot would restore as plain objects/,
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
