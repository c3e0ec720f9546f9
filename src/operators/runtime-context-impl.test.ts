// RuntimeContextImpl: a user function's keyed state on the heap backend lives in the key's row, same values and snapshots.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MapStateDescriptor, ValueStateDescriptor } from '../core/state-descriptor.ts';
import { DISCARDING_METRIC_SINK, MetricGroupImpl } from '../metrics/metric-group.ts';
import { HeapKeyedStateBackend } from '../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../state/key-group-range.ts';
import { voidNamespaceSerializer } from '../state/namespace.ts';
import { RuntimeContextImpl } from './runtime-context-impl.ts';

const backendOf = (): HeapKeyedStateBackend =>
  new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0, 'counter');
const contextOf = (backend: HeapKeyedStateBackend): RuntimeContextImpl =>
  new RuntimeContextImpl(
    'counter',
    0,
    1,
    128,
    backend,
    new MetricGroupImpl(DISCARDING_METRIC_SINK, 'operator', {}, ['counter', '0']),
  );

describe('RuntimeContextImpl keyed state on the heap backend', () => {
  it("keeps a key's states in one row, one column each, and frees the row with the key's last entry", () => {
    const backend = backendOf();
    const context = contextOf(backend);
    const count = context.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
    const seen = context.getMapState(new MapStateDescriptor<string, number>('seen'));
    for (const key of ['a', 'b', 'a']) {
      backend.setCurrentKey(key);
      count.update(count.value() + 1);
      seen.put(key, count.value());
    }
    assert.deepEqual(
      [backend.keyRows.size, backend.numStateEntries(), backend.numStateEntries('count')],
      [2, 4, 2],
      'two keys, two rows, each holding both states',
    );
    backend.setCurrentKey('a');
    assert.deepEqual([count.value(), seen.get('a')], [2, 2]);
    count.clear();
    assert.deepEqual([backend.keyRows.size, count.value(), seen.get('a')], [2, 0, 2]);
    seen.clear();
    backend.setCurrentKey('b');
    count.clear();
    seen.clear();
    assert.deepEqual(
      [backend.keyRows.size, backend.numStateEntries()],
      [0, 0],
      'no row outlives its entries',
    );
  });

  it('snapshots the bytes of the namespace-first table, and restores either way', () => {
    const rows = backendOf();
    const plain = backendOf();
    const count = contextOf(rows).getState(new ValueStateDescriptor<number>('count'));
    const reference = plain.getOrCreateKeyedState(
      new ValueStateDescriptor<number>('count'),
      voidNamespaceSerializer,
    );
    reference.setCurrentNamespace(0);
    for (let key = 0; key < 300; key++) {
      rows.setCurrentKey(key);
      plain.setCurrentKey(key);
      count.update(key * 7);
      reference.update(key * 7);
    }
    for (let key = 0; key < 300; key += 3) {
      rows.setCurrentKey(key);
      plain.setCurrentKey(key);
      count.clear();
      reference.clear();
    }
    const snapshot = rows.snapshot();
    assert.deepEqual(snapshot, plain.snapshot());
    const restored = backendOf();
    restored.restore(plain.snapshot());
    const again = contextOf(restored).getState(new ValueStateDescriptor<number>('count'));
    for (let key = 0; key < 300; key++) {
      restored.setCurrentKey(key);
      assert.equal(again.value(), key % 3 === 0 ? undefined : key * 7, `key ${key}`);
    }
    assert.equal(restored.keyRows.size, 200);
  });
});
