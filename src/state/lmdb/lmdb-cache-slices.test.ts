// The LMDB backend's cache written back and dropped by slices of key groups: the fullest slice goes, the rest stays,
// and every value read is the one last written, whatever the slices and the cache's bound.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ListStateDescriptor,
  MapStateDescriptor,
  ValueStateDescriptor,
} from '../../core/state-descriptor.ts';
import { SeededRandom } from '../../connectors/seeded-random.ts';
import { KeyGroupRange } from '../key-group-range.ts';
import { keyGroupFor } from '../key-hash.ts';
import { voidNamespaceSerializer, type NamespaceSerializer } from '../namespace.ts';
import { structuredCloneSerializer } from '../../core/type-serializer.ts';
import { LmdbKeyedStateBackend } from './lmdb-keyed-state-backend.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-lmdb-slices-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const backend = (cacheEntries: number, cacheSlices?: number, range = new KeyGroupRange(0, 127)) =>
  new LmdbKeyedStateBackend({
    path: join(root, `db-${n++}`),
    maxParallelism: 128,
    keyGroupRange: range,
    clock: () => 0,
    cacheEntries,
    ...(cacheSlices !== undefined ? { cacheSlices } : {}),
  });

/** Windows as numbers: a namespace per window start. */
const windows: NamespaceSerializer<number> = { key: (w) => w, serializer: structuredCloneSerializer };

/** `count` string keys whose key groups fall in [from, to]. */
function keysIn(from: number, to: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const kg = keyGroupFor(`k${i}`, 128);
    if (kg >= from && kg <= to) out.push(`k${i}`);
  }
  return out;
}

describe('LmdbKeyedStateBackend cache slices', () => {
  it('over its bound, writes back and drops only the slice holding the most entries; the others stay cached', () => {
    // Two slices: key groups 0-63 and 64-127.
    const b = backend(4, 2);
    assert.equal(b.cacheSlices, 2);
    const l = b.getOrCreateKeyedState(new ListStateDescriptor<number>('l'), voidNamespaceSerializer);
    const low = keysIn(0, 63, 3);
    const high = keysIn(64, 127, 2);
    const live = new Map<string, number[]>();
    for (const [i, key] of [...low, high[0]!].entries()) {
      b.setCurrentKey(key);
      l.add(i);
      live.set(key, l.get() as number[]);
    }
    // Four entries, the bound: a fifth (in the upper slice) puts the cache over it at the next key.
    b.setCurrentKey(high[1]!);
    l.add(4);
    live.set(high[1]!, l.get() as number[]);
    b.setCurrentKey(high[0]!);
    // The lower slice held three entries, the upper two: the lower one was written back and dropped.
    assert.equal(l.get(), live.get(high[0]!));
    b.setCurrentKey(high[1]!);
    assert.equal(l.get(), live.get(high[1]!));
    for (const [i, key] of low.entries()) {
      b.setCurrentKey(key);
      const read = l.get() as number[];
      assert.notEqual(read, live.get(key));
      assert.deepEqual(read, [i]);
    }
    b.dispose();
  });

  it('slices by default only a cache of at least 4,096 entries per slice, at most 16 slices and one per key group', () => {
    const slices = (cacheEntries: number, range?: KeyGroupRange, cacheSlices?: number) => {
      const b = backend(cacheEntries, cacheSlices, range);
      const s = b.cacheSlices;
      b.dispose();
      return s;
    };
    assert.deepEqual(
      [slices(3), slices(8_191), slices(8_192), slices(40_000), slices(100_000), slices(1_000_000)],
      [1, 1, 2, 9, 16, 16],
    );
    assert.equal(slices(100_000, new KeyGroupRange(10, 14)), 5);
    assert.equal(slices(10, new KeyGroupRange(10, 14), 99), 5);
    assert.equal(slices(10, undefined, 0), 1);
  });

  it('maps a range that does not start at key group 0 onto its slices evenly and in order', () => {
    const b = backend(100_000, 4, new KeyGroupRange(40, 49));
    const of = Array.from({ length: 10 }, (_, i) => b.cacheSlice(40 + i));
    assert.deepEqual(of, [0, 0, 0, 1, 1, 2, 2, 2, 3, 3]);
    b.dispose();
  });

  it('reads back what was last written, against a Map, for any bound and slice count (fixed seeds)', () => {
    for (const [seed, cacheEntries, cacheSlices] of [
      [1, 1, 1],
      [2, 5, 2],
      [3, 17, 4],
      [4, 40, 16],
      [5, 64, 128],
      [6, 200, 7],
    ] as const) {
      const random = new SeededRandom(seed);
      const b = backend(cacheEntries, cacheSlices);
      const value = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
      const list = b.getOrCreateKeyedState(new ListStateDescriptor<string>('l'), windows);
      const map = b.getOrCreateKeyedState(
        new MapStateDescriptor<string, number>('m'),
        voidNamespaceSerializer,
      );
      const values = new Map<number, number>();
      const lists = new Map<string, string[]>();
      const maps = new Map<number, Map<string, number>>();
      for (let op = 0; op < 3_000; op++) {
        const key = random.nextInt(150);
        b.setCurrentKey(key);
        const window = random.nextInt(3) * 10;
        list.setCurrentNamespace(window);
        const at = `${key}/${window}`;
        const m = maps.get(key) ?? new Map<string, number>();
        switch (random.nextInt(7)) {
          case 0:
            assert.equal(value.value(), values.get(key), `value of ${key} at op ${op}, seed ${seed}`);
            break;
          case 1: {
            const next = (values.get(key) ?? 0) + 1;
            value.update(next);
            values.set(key, next);
            break;
          }
          case 2:
            value.clear();
            values.delete(key);
            break;
          case 3:
            list.add(`${op}`);
            lists.set(at, [...(lists.get(at) ?? []), `${op}`]);
            break;
          case 4:
            assert.deepEqual(
              [...(list.get() ?? [])],
              lists.get(at) ?? [],
              `list of ${at} at op ${op}, seed ${seed}`,
            );
            break;
          case 5:
            map.put(`${op % 5}`, op);
            m.set(`${op % 5}`, op);
            maps.set(key, m);
            break;
          default:
            assert.deepEqual(new Map(map.entries()), m, `map of ${key} at op ${op}, seed ${seed}`);
        }
        // Now and then a snapshot: it writes every dirty entry back and keeps the cache.
        if (op % 701 === 700) b.snapshotIncremental(op);
      }
      // Everything written is in LMDB: a second backend restored from a snapshot reads the same values.
      const restored = backend(cacheEntries, cacheSlices);
      restored.restore(b.snapshot());
      const value2 = restored.getOrCreateKeyedState(
        new ValueStateDescriptor<number>('v'),
        voidNamespaceSerializer,
      );
      for (let key = 0; key < 150; key++) {
        restored.setCurrentKey(key);
        assert.equal(value2.value(), values.get(key), `restored value of ${key}, seed ${seed}`);
      }
      b.dispose();
      restored.dispose();
    }
  });
});
