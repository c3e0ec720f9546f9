// Runs the keyed state contract on every backend, plus what only the LMDB backend promises (eviction, incremental).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import { keyGroupFor } from '../../src/state/key-hash.ts';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import { LmdbKeyedStateBackend } from '../../src/state/lmdb/lmdb-keyed-state-backend.ts';
import { voidNamespaceSerializer, type NamespaceSerializer } from '../../src/state/namespace.ts';
import {
  ListStateDescriptor,
  MapStateDescriptor,
  ValueStateDescriptor,
} from '../../src/core/state-descriptor.ts';
import { StateTtlConfig } from '../../src/core/state-ttl-config.ts';
import { structuredCloneSerializer, type TypeSerializer } from '../../src/core/type-serializer.ts';
import { keyedStateBackendContract } from './keyed-state-backend-contract.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-lmdb-contract-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const lmdb = (range: KeyGroupRange, maxParallelism: number, clock: () => number, cacheEntries?: number) =>
  new LmdbKeyedStateBackend({
    path: join(root, `db-${n++}`),
    maxParallelism,
    keyGroupRange: range,
    clock,
    ...(cacheEntries ? { cacheEntries } : {}),
  });

keyedStateBackendContract('heap', (range, maxP, clock) => new HeapKeyedStateBackend(maxP, range, clock));
keyedStateBackendContract('lmdb', (range, maxP, clock) => lmdb(range, maxP, clock));
keyedStateBackendContract('lmdb with a tiny cache', (range, maxP, clock) => lmdb(range, maxP, clock, 3));

describe('LmdbKeyedStateBackend', () => {
  const FULL = new KeyGroupRange(0, 127);

  it('keeps in-place changes (list appends) across cache evictions', () => {
    const b = lmdb(FULL, 128, () => 0, 10);
    const l = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), voidNamespaceSerializer);
    for (let i = 0; i < 5_000; i++) {
      b.setCurrentKey(i % 97);
      l.add(i);
    }
    b.setCurrentKey(5);
    assert.deepEqual([...l.get()].slice(0, 3), [5, 102, 199]);
    assert.equal(l.get().length, Math.ceil((5_000 - 5) / 97));
    b.dispose();
  });

  it('snapshots incrementally: only key groups changed since the last completed checkpoint carry bytes', () => {
    const b = lmdb(FULL, 128, () => 0);
    const v = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    for (let i = 0; i < 1_000; i++) {
      b.setCurrentKey(i);
      v.update(i);
    }
    const first = b.snapshotIncremental(1);
    assert.ok(first.length > 100 && first.every((g) => g.bytes !== undefined));
    // Checkpoint bytes use the binary key-group encoding; they restore like the heap-format ones.
    const copy = lmdb(FULL, 128, () => 0);
    copy.restore(first.map((g) => ({ keyGroup: g.keyGroup, bytes: g.bytes! })));
    const cv = copy.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    copy.setCurrentKey(999);
    assert.equal(cv.value(), 999);
    assert.equal(copy.numStateEntries(), 1_000);
    copy.dispose();
    b.notifyCheckpointComplete(1);
    b.setCurrentKey(7);
    v.update(70);
    const changedGroup = b.getCurrentKeyGroup();
    const second = b.snapshotIncremental(2);
    assert.equal(second.length, first.length);
    assert.deepEqual(
      second.filter((g) => g.bytes !== undefined).map((g) => g.keyGroup),
      [changedGroup],
    );
    // Checkpoint 2 never completes: checkpoint 3 must still carry the group changed before 2.
    b.setCurrentKey(8);
    v.update(80);
    const third = b
      .snapshotIncremental(3)
      .filter((g) => g.bytes !== undefined)
      .map((g) => g.keyGroup);
    assert.ok(third.includes(changedGroup) && third.includes(b.getCurrentKeyGroup()));
    b.dispose();
  });

  it('reads heap snapshots and writes snapshots the heap backend reads', () => {
    const heap = new HeapKeyedStateBackend(128, FULL, () => 0);
    const hv = heap.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    heap.setCurrentKey('a');
    hv.update('from heap');
    const l = lmdb(FULL, 128, () => 0);
    l.restore(heap.snapshot());
    const lv = l.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    l.setCurrentKey('a');
    assert.equal(lv.value(), 'from heap');
    lv.update('from lmdb');
    const heap2 = new HeapKeyedStateBackend(128, FULL, () => 0);
    heap2.restore(l.snapshot());
    const hv2 = heap2.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    heap2.setCurrentKey('a');
    assert.equal(hv2.value(), 'from lmdb');
    l.dispose();
  });
});

/** A class value, restored as a class only through its own serializer. */
class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}
const pointSerializer: TypeSerializer<Point> = {
  serialize: (p) => new Uint8Array(new Float64Array([p.x, p.y]).buffer),
  deserialize: (b) => {
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return new Point(view.getFloat64(0, true), view.getFloat64(8, true));
  },
};
/** Windows as namespaces with their own serializer (like TimeWindow). */
class Win {
  constructor(
    readonly start: number,
    readonly end: number,
  ) {}
}
const winNs: NamespaceSerializer<Win> = {
  key: (w) => (w === undefined ? '' : `${w.start}:${w.end}`),
  serializer: {
    serialize: (w) => structuredCloneSerializer.serialize([w.start, w.end]),
    deserialize: (b) => {
      const [start, end] = structuredCloneSerializer.deserialize(b) as [number, number];
      return new Win(start, end);
    },
  },
};
const objNs: NamespaceSerializer<{ id: number }> = {
  key: (n) => (n === undefined ? -1 : n.id),
  serializer: structuredCloneSerializer,
};
const TTL = StateTtlConfig.newBuilder(1_000).build();

describe('key-group snapshots across backends', () => {
  const FULL = new KeyGroupRange(0, 127);
  const backends: Record<string, (range: KeyGroupRange, clock: () => number) => KeyedStateBackend> = {
    heap: (range, clock) => new HeapKeyedStateBackend(128, range, clock),
    lmdb: (range, clock) => lmdb(range, 128, clock),
  };
  const register = (b: KeyedStateBackend) => ({
    plain: b.getOrCreateKeyedState(new ValueStateDescriptor<unknown>('plain'), voidNamespaceSerializer),
    point: b.getOrCreateKeyedState(
      new ValueStateDescriptor<Point>('point', { serializer: pointSerializer }),
      voidNamespaceSerializer,
    ),
    list: b.getOrCreateKeyedState(new ListStateDescriptor<string>('list'), winNs),
    map: b.getOrCreateKeyedState(new MapStateDescriptor<string, number>('map', { ttl: TTL }), objNs),
  });
  const KEYS = 300;
  const fill = (b: KeyedStateBackend, now: { t: number }) => {
    const s = register(b);
    for (let i = 0; i < KEYS; i++) {
      b.setCurrentKey(i % 2 === 0 ? i : `k${i}`);
      s.plain.update(
        i % 3 === 0 ? `s${i}` : i % 3 === 1 ? i * 1.5 : { n: i, tags: new Set([i]), at: new Date(i) },
      );
      s.point.update(new Point(i, -i));
      s.list.setCurrentNamespace(new Win(i % 4, 10));
      s.list.add(`a${i}`);
      s.list.add(`b${i}`);
      now.t = i < KEYS / 2 ? 0 : 500; // the first half expires at 1000
      s.map.setCurrentNamespace({ id: i % 5 });
      s.map.put('m', i);
    }
  };
  const check = (b: KeyedStateBackend, keys: Iterable<number>, withExpired: boolean) => {
    const s = register(b);
    let n = 0;
    for (const i of keys) {
      b.setCurrentKey(i % 2 === 0 ? i : `k${i}`);
      if (!b.keyGroupRange.contains(b.getCurrentKeyGroup())) continue;
      n++;
      const plain = s.plain.value() as any;
      if (i % 3 === 2) {
        assert.equal(plain.n, i);
        assert.ok(plain.tags instanceof Set && plain.tags.has(i));
        assert.ok(plain.at instanceof Date && plain.at.getTime() === i);
      } else assert.equal(plain, i % 3 === 0 ? `s${i}` : i * 1.5);
      const p = s.point.value()!;
      assert.ok(p instanceof Point && p.x === i && p.y === -i);
      s.list.setCurrentNamespace(new Win(i % 4, 10));
      assert.deepEqual([...s.list.get()], [`a${i}`, `b${i}`]);
      s.map.setCurrentNamespace({ id: i % 5 });
      assert.equal(s.map.get('m'), withExpired || i >= KEYS / 2 ? i : undefined);
    }
    return n;
  };
  const all = Array.from({ length: KEYS }, (_, i) => i);

  for (const from of Object.keys(backends)) {
    for (const to of Object.keys(backends)) {
      it(`${from} → ${to}: custom serializers, namespaces, TTL, rescaling and late registration`, () => {
        const now = { t: 0 };
        const clock = () => now.t;
        const src = backends[from]!(FULL, clock);
        fill(src, now);
        now.t = 900;
        const snap = src.snapshot();
        // Split over two subtasks that register their state only after restoring, then snapshot before registering.
        const halves = [0, 1].map((i) => {
          const b = backends[to]!(KeyGroupRange.forSubtask(128, 2, i), clock);
          b.restore(snap);
          return b;
        });
        const resnap = halves.flatMap((b) => b.snapshot());
        assert.equal(resnap.length, snap.length);
        let seen = 0;
        for (const b of halves) seen += check(b, all, true);
        assert.equal(seen, KEYS);
        // Restored TTL entries keep their last access time: at 1200 the first half has expired.
        now.t = 1_200;
        const back = backends[from]!(FULL, clock);
        back.restore(resnap);
        assert.equal(check(back, all, false), KEYS);
        for (const b of [src, ...halves, back]) b.dispose();
      });
    }
  }

  for (const to of Object.keys(backends)) {
    it(`${to} refuses a key group of another snapshot format, naming the group and the state`, () => {
      // Format 1 (per-value bytes) was never released; restoring it must fail loudly, not load wrong state.
      const kg = keyGroupFor(7, 128);
      const entries = [[serialize(0), 7, serialize('v7'), -1]];
      const bytes = new Uint8Array(serialize([{ name: 'v', kind: 'value', entries }]));
      const b = backends[to]!(FULL, () => 0);
      assert.throws(
        () => b.restore([{ keyGroup: kg, bytes }]),
        new RegExp(
          `^IllegalStateError: Key group ${kg}: state 'v' is in snapshot format undefined; this version reads format 2$`,
        ),
      );
      assert.equal(b.numStateEntries(), 0);
      b.dispose();
    });
  }
});
