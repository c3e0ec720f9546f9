// Runs the keyed state contract on every backend, plus what only the LMDB backend promises (eviction, incremental).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import { keyGroupFor } from '../../src/state/key-hash.ts';
import { decodeKeyGroup, encodeKeyGroup, type StateColumns } from '../../src/state/key-group-format.ts';
import { decodeRawKeyGroup, isRawKeyGroup } from '../../src/state/lmdb/lmdb-key-group-format.ts';
import {
  decodeEntryKey,
  decodeEntryValue,
  VALUE_NUMBER,
  VALUE_SERIALIZED,
  VALUE_STRING,
} from '../../src/state/lmdb/lmdb-key-codec.ts';
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

  it('values read back from LMDB own their bytes: typed arrays stay intact across later reads', () => {
    const b = lmdb(FULL, 128, () => 0, 1);
    const v = b.getOrCreateKeyedState(new ValueStateDescriptor<Uint8Array>('bytes'), voidNamespaceSerializer);
    for (const [key, fill] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const) {
      b.setCurrentKey(key);
      v.update(new Uint8Array(8).fill(fill));
    }
    // A cache of one entry: every key below is read from LMDB, and each read reuses LMDB's read buffer.
    b.setCurrentKey('a');
    const a = v.value()!;
    b.setCurrentKey('b');
    const bytes = v.value()!;
    b.setCurrentKey('c');
    v.value();
    assert.deepEqual([...a], [1, 1, 1, 1, 1, 1, 1, 1]);
    assert.deepEqual([...bytes], [2, 2, 2, 2, 2, 2, 2, 2]);
    b.dispose();
  });

  it('re-reads values from LMDB once more than cacheEntries are cached; counts, key listings and snapshots keep the cache', () => {
    for (const viaNormalized of [false, true]) {
      const b = lmdb(FULL, 128, () => 0, 3);
      const l = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), voidNamespaceSerializer);
      const key = (k: string) => (viaNormalized ? b.setCurrentNormalizedKey(k, k) : b.setCurrentKey(k));
      key('a');
      l.add(1);
      const live = l.get();
      for (const k of ['b', 'c']) {
        key(k);
        l.add(2);
      }
      assert.equal(b.numStateEntries(), 3);
      assert.deepEqual([...b.getKeys('l')].sort(), ['a', 'b', 'c']);
      b.snapshot();
      b.snapshotIncremental(1);
      key('a');
      // Three entries cached, the bound: the live array is still the one handed out.
      assert.equal(l.get(), live);
      key('d');
      l.add(3);
      key('a');
      // Four: flushed and dropped, so the value is read back from LMDB.
      assert.notEqual(l.get(), live);
      assert.deepEqual([...l.get()], [1]);
      b.dispose();
    }
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

  it('checkpoints restore into a backend that numbers its states otherwise', () => {
    const b = lmdb(FULL, 128, () => 0);
    const first = b.getOrCreateKeyedState(new ValueStateDescriptor<string>('first'), voidNamespaceSerializer);
    const second = b.getOrCreateKeyedState(
      new ValueStateDescriptor<number>('second'),
      voidNamespaceSerializer,
    );
    b.setCurrentKey('k');
    first.update('one');
    second.update(2);
    const checkpoint = b.snapshotIncremental(1).map((g) => ({ keyGroup: g.keyGroup, bytes: g.bytes! }));
    const c = lmdb(FULL, 128, () => 0);
    const second2 = c.getOrCreateKeyedState(
      new ValueStateDescriptor<number>('second'),
      voidNamespaceSerializer,
    );
    c.restore(checkpoint);
    const first2 = c.getOrCreateKeyedState(
      new ValueStateDescriptor<string>('first'),
      voidNamespaceSerializer,
    );
    c.setCurrentKey('k');
    assert.deepEqual([first2.value(), second2.value()], ['one', 2]);
    b.dispose();
    c.dispose();
    c.dispose();
  });

  it('incremental snapshots: completed checkpoints are bases, earlier ones are dropped, emptied groups left out', () => {
    const b = lmdb(FULL, 128, () => 0);
    const v = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    const groupOf = (key: number) => keyGroupFor(key, 128);
    const keys = [1, 2, 3, 4, 5].filter((k, i, all) => all.findIndex((o) => groupOf(o) === groupOf(k)) === i);
    for (const key of keys) {
      b.setCurrentKey(key);
      v.update(key);
    }
    const changed = (id: number) =>
      b
        .snapshotIncremental(id)
        .filter((g) => g.bytes !== undefined)
        .map((g) => g.keyGroup);
    const all = keys.map(groupOf).sort((x, y) => x - y);
    assert.deepEqual(changed(1), all);
    // Not completed yet: the next one carries everything again.
    assert.deepEqual(changed(2), all);
    b.notifyCheckpointComplete(2);
    b.notifyCheckpointComplete(99); // unknown: ignored
    assert.deepEqual(changed(3), []);
    b.setCurrentKey(keys[0]!);
    v.update(10);
    assert.deepEqual(changed(4), [groupOf(keys[0]!)]);
    b.setCurrentKey(keys[1]!);
    v.update(20);
    assert.deepEqual(
      changed(5),
      [groupOf(keys[0]!), groupOf(keys[1]!)].sort((x, y) => x - y),
    );
    // Completing 5 completes 4 too: neither is carried again.
    b.notifyCheckpointComplete(5);
    assert.deepEqual(changed(6), []);
    b.notifyCheckpointComplete(6);
    b.setCurrentKey(keys[0]!);
    v.clear();
    const seventh = b.snapshotIncremental(7);
    assert.deepEqual(
      seventh.map((g) => g.keyGroup),
      all.filter((g) => g !== groupOf(keys[0]!)),
    );
    assert.ok(seventh.every((g) => g.bytes === undefined));
    // Completing a checkpoint keeps later ones in flight: what changed before them is carried until they complete.
    b.notifyCheckpointComplete(7);
    assert.ok(keys.length >= 4);
    b.setCurrentKey(keys[2]!);
    v.update(30);
    assert.deepEqual(changed(8), [groupOf(keys[2]!)]);
    b.setCurrentKey(keys[3]!);
    v.update(40);
    assert.deepEqual(
      changed(9),
      [groupOf(keys[2]!), groupOf(keys[3]!)].sort((x, y) => x - y),
    );
    b.notifyCheckpointComplete(8);
    assert.deepEqual(changed(10), [groupOf(keys[3]!)]);
    b.dispose();
  });

  it('incremental snapshots of a range that does not start at key group 0', () => {
    const range = KeyGroupRange.forSubtask(128, 2, 1);
    const b = lmdb(range, 128, () => 0);
    const v = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    const keys = Array.from({ length: 40 }, (_, i) => i).filter((k) => range.contains(keyGroupFor(k, 128)));
    for (const key of keys) {
      b.setCurrentKey(key);
      v.update(key);
    }
    b.snapshotIncremental(1);
    b.notifyCheckpointComplete(1);
    b.setCurrentKey(keys[0]!);
    v.update(-1);
    assert.deepEqual(
      b
        .snapshotIncremental(2)
        .filter((g) => g.bytes !== undefined)
        .map((g) => g.keyGroup),
      [keyGroupFor(keys[0]!, 128)],
    );
    b.dispose();
  });

  it('checkpoints copy expired TTL entries, which expire on first touch after a restore; savepoints skip them', () => {
    let now = 0;
    const ttl = StateTtlConfig.newBuilder(100).build();
    const b = lmdb(FULL, 128, () => now);
    const v = b.getOrCreateKeyedState(
      new ValueStateDescriptor<number>('v', { ttl }),
      voidNamespaceSerializer,
    );
    b.setCurrentKey('k');
    v.update(1);
    now = 100;
    assert.deepEqual(b.snapshot(), []);
    const checkpoint = b.snapshotIncremental(1);
    assert.deepEqual(
      checkpoint.map((g) => g.keyGroup),
      [keyGroupFor('k', 128)],
    );
    const c = lmdb(FULL, 128, () => now);
    c.restore(checkpoint.map((g) => ({ keyGroup: g.keyGroup, bytes: g.bytes! })));
    const v2 = c.getOrCreateKeyedState(
      new ValueStateDescriptor<number>('v', { ttl }),
      voidNamespaceSerializer,
    );
    assert.equal(c.numStateEntries(), 1);
    c.setCurrentKey('k');
    assert.equal(v2.value(), undefined);
    assert.equal(c.numStateEntries(), 0);
    b.dispose();
    c.dispose();
  });

  it('while restored entries wait for their state, checkpoints fall back to the savepoint format', () => {
    const heap = new HeapKeyedStateBackend(128, FULL, () => 0);
    const hv = heap.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    const keys = ['a', 'b'];
    for (const key of keys) {
      heap.setCurrentKey(key);
      hv.update(`${key}!`);
    }
    const hl = heap.getOrCreateKeyedState(new ListStateDescriptor<string>('l'), objNs);
    heap.setCurrentKey('a');
    hl.setCurrentNamespace({ id: 4 });
    hl.add('in 4');
    const groups = keys.map((k) => keyGroupFor(k, 128));
    assert.notEqual(groups[0], groups[1]);
    const b = lmdb(FULL, 128, () => 0);
    // A registered state with an entry in a key group above the waiting ones: checkpoints still list groups in order.
    let high = 0;
    while (keyGroupFor(`h${high}`, 128) <= Math.max(...groups)) high++;
    const w = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('w'), voidNamespaceSerializer);
    b.setCurrentKey(`h${high}`);
    w.update(1);
    // A state of the snapshot's without namespace lookup keys cannot be keyed in LMDB before it is registered.
    const columns = heap.snapshot().map((g) => {
      const states = decodeKeyGroup(g.keyGroup, g.bytes).map(
        ({ nsKeys: _, ...rest }) => rest as StateColumns,
      );
      return { keyGroup: g.keyGroup, bytes: encodeKeyGroup(states) };
    });
    b.restore(columns);
    assert.deepEqual([...b.getKeys('v')], []);
    assert.deepEqual([b.numStateEntries(), b.numStateEntries('v'), b.numStateEntries('x')], [4, 2, 0]);
    const checkpoint = b.snapshotIncremental(1);
    assert.deepEqual(
      checkpoint.map((g) => [g.keyGroup, isRawKeyGroup(g.bytes!)]),
      [...[...groups].sort((x, y) => x - y), keyGroupFor(`h${high}`, 128)].map((g) => [g, false]),
    );
    // A backend owning only the first key's group restores only that key.
    const c = lmdb(new KeyGroupRange(groups[0]!, groups[0]!), 128, () => 0);
    c.restore(checkpoint.map((g) => ({ keyGroup: g.keyGroup, bytes: g.bytes! })));
    const cv = c.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    c.setCurrentKey('a');
    assert.equal(cv.value(), 'a!');
    assert.deepEqual([...c.getKeys('v')], ['a']);
    assert.equal(c.numStateEntries(), 2); // 'a' in 'v' and in 'l'
    // Registered late, the state takes the waiting entries.
    b.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
    const bl = b.getOrCreateKeyedState(new ListStateDescriptor<string>('l'), objNs);
    assert.deepEqual([...b.getKeys('v')].sort(), ['a', 'b']);
    assert.equal(b.numStateEntries(), 4);
    b.setCurrentKey('a');
    bl.setCurrentNamespace({ id: 4 });
    assert.deepEqual([...bl.get()], ['in 4']);
    for (const x of [heap, b, c]) x.dispose();
  });

  it('works in its own directory: emptied when opened, removed when disposed', () => {
    const path = join(root, 'own');
    mkdirSync(join(path, 'leftover'), { recursive: true });
    writeFileSync(join(path, 'leftover', 'x'), 'stale');
    const b = new LmdbKeyedStateBackend({ path, maxParallelism: 128, keyGroupRange: FULL, clock: () => 0 });
    const v = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    b.setCurrentKey('k');
    v.update(1);
    assert.equal(b.numStateEntries(), 1);
    assert.equal(existsSync(join(path, 'leftover')), false);
    assert.ok(readdirSync(path).length > 0);
    b.dispose();
    assert.equal(existsSync(path), false);
  });

  it('restored entries are keyed at once and take the direct formats: strings and numbers skip the serializer', () => {
    const heap = new HeapKeyedStateBackend(128, FULL, () => 0);
    const plain = heap.getOrCreateKeyedState(
      new ValueStateDescriptor<unknown>('plain'),
      voidNamespaceSerializer,
    );
    const custom = heap.getOrCreateKeyedState(
      new ValueStateDescriptor<Point>('custom', { serializer: pointSerializer }),
      voidNamespaceSerializer,
    );
    heap.setCurrentKey('k');
    custom.update(new Point(1, 2));
    const values: unknown[] = ['text', 2.5, { o: 1 }];
    const keys = values.map((_, i) => `k${i}`);
    keys.forEach((key, i) => {
      heap.setCurrentKey(key);
      plain.update(values[i]);
    });
    const b = lmdb(FULL, 128, () => 0);
    // The custom state is registered, the plain one not: snapshots carry namespace lookup keys, so both are keyed.
    b.getOrCreateKeyedState(
      new ValueStateDescriptor<Point>('custom', { serializer: pointSerializer }),
      voidNamespaceSerializer,
    );
    b.restore(heap.snapshot());
    const formats = new Map<string, number>();
    for (const group of b.snapshotIncremental(1)) {
      assert.equal(isRawKeyGroup(group.bytes!), true);
      for (const { key, value } of decodeRawKeyGroup(group.bytes!).entries)
        formats.set(String(decodeEntryKey(key).key), decodeEntryValue(value).format);
    }
    assert.deepEqual(
      [...keys, 'k'].map((k) => formats.get(k)),
      [VALUE_STRING, VALUE_NUMBER, VALUE_SERIALIZED, VALUE_SERIALIZED],
    );
    // A backend owning half the key groups restores only its own keys from those raw groups.
    const half = lmdb(new KeyGroupRange(0, 63), 128, () => 0);
    half.restore(b.snapshotIncremental(2).map((g) => ({ keyGroup: g.keyGroup, bytes: g.bytes! })));
    assert.equal(half.numStateEntries(), [...keys, 'k'].filter((k) => keyGroupFor(k, 128) < 64).length);
    for (const x of [heap, b, half]) x.dispose();
  });

  it('holds at most 65,536 states in one operator', () => {
    const b = lmdb(FULL, 128, () => 0);
    for (let i = 0; i < 65_536; i++)
      b.getOrCreateKeyedState(new ValueStateDescriptor<number>(`s${i}`), voidNamespaceSerializer);
    assert.throws(
      () => b.getOrCreateKeyedState(new ValueStateDescriptor<number>('one more'), voidNamespaceSerializer),
      /^IllegalStateError: More than 65,536 states in one operator$/,
    );
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
/** Hashed by the parity of the start (see NamespaceHashing), so windows 0 and 2, 1 and 3 share a hash. */
const winNs: NamespaceSerializer<Win> = {
  key: (w) => (w === undefined ? '' : `${w.start}:${w.end}`),
  hashing: { hash: (w) => (w === undefined ? 0 : w.start % 2), equals: (a, b) => a.start === b.start },
  serializer: {
    serialize: (w) => structuredCloneSerializer.serialize([w.start, w.end]),
    deserialize: (b) => {
      const [start, end] = structuredCloneSerializer.deserialize(b) as [number, number];
      return new Win(start, end);
    },
  },
};
/** The same windows indexed key first by the heap backend (as session windows are): the snapshot form is the same. */
const winPerKeyNs: NamespaceSerializer<Win> = {
  ...winNs,
  hashing: {
    hash: (w) => (w === undefined ? 0 : w.start % 2),
    equals: (a, b) => a !== undefined && b !== undefined && a.start === b.start,
    fewPerKey: true,
  },
};
/** A key's session windows: one to three, from its own set of starts (ends follow from the start). */
const sessionsOf = (i: number): Win[] =>
  Array.from({ length: 1 + (i % 3) }, (_, j) => new Win((i % 4) + 4 * j, (i % 4) + 4 * j + 10));
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
    sessions: b.getOrCreateKeyedState(new ListStateDescriptor<string>('sessions'), winPerKeyNs),
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
      for (const window of sessionsOf(i)) {
        s.sessions.setCurrentNamespace(window);
        s.sessions.add(`s${i}@${window.start}`);
      }
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
      for (const window of [...sessionsOf(i), new Win((i % 4) + 12, (i % 4) + 22)]) {
        s.sessions.setCurrentNamespace(new Win(window.start, window.end));
        assert.deepEqual([...s.sessions.get()], window.start < 12 ? [`s${i}@${window.start}`] : []);
      }
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

  it('heap: a snapshot of windows indexed namespace first restores indexed key first, and back', () => {
    const layouts = [winNs, winPerKeyNs, winNs];
    let snap: ReturnType<KeyedStateBackend['snapshot']> = [];
    for (const [n, layout] of layouts.entries()) {
      const b = new HeapKeyedStateBackend(128, FULL, () => 0);
      const panes = b.getOrCreateKeyedState(new ListStateDescriptor<string>('panes'), layout);
      if (n === 0) {
        for (let i = 0; i < KEYS; i++) {
          b.setCurrentKey(i);
          for (const window of sessionsOf(i)) {
            panes.setCurrentNamespace(window);
            panes.add(`p${i}@${window.start}`);
          }
        }
      } else b.restore(snap);
      assert.equal(b.numStateEntries('panes'), 2 * KEYS, `layout ${n}`);
      for (let i = 0; i < KEYS; i++) {
        b.setCurrentKey(i);
        for (const window of sessionsOf(i)) {
          panes.setCurrentNamespace(new Win(window.start, window.end));
          assert.deepEqual([...panes.get()], [`p${i}@${window.start}`], `layout ${n}, key ${i}`);
        }
      }
      assert.deepEqual(new Set(b.getKeys('panes')), new Set(all), `layout ${n}`);
      snap = b.snapshot();
      b.dispose();
    }
  });

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
