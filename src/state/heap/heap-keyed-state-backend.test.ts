// The heap backend's snapshot layout: what goes raw into a key group's one v8.serialize, what goes as serializer bytes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { StateTtlConfig } from '../../core/state-ttl-config.ts';
import { structuredCloneSerializer, type TypeSerializer } from '../../core/type-serializer.ts';
import { decodeKeyGroup, encodeKeyGroup, StateColumnsBuilder } from '../key-group-format.ts';
import { KeyGroupRange } from '../key-group-range.ts';
import { keyGroupFor } from '../key-hash.ts';
import { voidNamespaceSerializer, type NamespaceSerializer } from '../namespace.ts';
import { HeapKeyedStateBackend } from './heap-keyed-state-backend.ts';

/** One byte per number, so the packed columns can be read in the test. */
const byteSerializer: TypeSerializer<number> = {
  serialize: (n) => Uint8Array.of(n),
  deserialize: (b) => b[0]!,
};
const byteNamespace: NamespaceSerializer<number> = { key: (n) => n, serializer: byteSerializer };
const plainNamespace: NamespaceSerializer<number> = { key: (n) => n, serializer: structuredCloneSerializer };

describe('HeapKeyedStateBackend snapshot layout', () => {
  it('keeps default-serialized namespaces and values raw, and packs serializer bytes with end offsets', () => {
    const now = 7;
    const b = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => now);
    const raw = b.getOrCreateKeyedState(new ValueStateDescriptor<string>('raw'), plainNamespace);
    const packed = b.getOrCreateKeyedState(
      new ValueStateDescriptor<number>('packed', {
        serializer: byteSerializer,
        ttl: StateTtlConfig.newBuilder(100).build(),
      }),
      byteNamespace,
    );
    b.setCurrentKey('k');
    for (const ns of [3, 4]) {
      raw.setCurrentNamespace(ns);
      raw.update(`v${ns}`);
      packed.setCurrentNamespace(ns);
      packed.update(ns * 10);
    }
    const groups = b.snapshot();
    assert.deepEqual(
      groups.map((g) => g.keyGroup),
      [keyGroupFor('k', 128)],
    );
    const columns = decodeKeyGroup(groups[0]!.keyGroup, groups[0]!.bytes).map((c) => ({
      ...c,
      nsOf: [...c.nsOf],
      ...(c.nsBytes !== undefined ? { nsBytes: [...c.nsBytes], nsEnds: [...c.nsEnds!] } : {}),
      ...(c.valueBytes !== undefined ? { valueBytes: [...c.valueBytes], valueEnds: [...c.valueEnds!] } : {}),
      ...(c.lastAccess !== undefined ? { lastAccess: [...c.lastAccess] } : {}),
    }));
    assert.deepEqual(columns, [
      {
        name: 'raw',
        kind: 'value',
        format: 2,
        nsKeys: [3, 4],
        nsOf: [0, 1],
        keys: ['k', 'k'],
        namespaces: [3, 4],
        values: ['v3', 'v4'],
      },
      {
        name: 'packed',
        kind: 'value',
        format: 2,
        nsKeys: [3, 4],
        nsOf: [0, 1],
        keys: ['k', 'k'],
        nsBytes: [3, 4],
        nsEnds: [1, 2],
        valueBytes: [30, 40],
        valueEnds: [1, 2],
        lastAccess: [7, 7],
      },
    ]);
    b.dispose();
  });

  it('does not take a value holding a lastAccess field for a TTL stamp', () => {
    let now = 0;
    const b = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => now);
    const s = b.getOrCreateKeyedState(
      new ValueStateDescriptor<{ lastAccess: number }>('s'),
      voidNamespaceSerializer,
    );
    b.setCurrentKey('k');
    s.update({ lastAccess: 0 });
    now = 10;
    const c = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => now);
    c.restore(b.snapshot());
    const s2 = c.getOrCreateKeyedState(
      new ValueStateDescriptor<{ lastAccess: number }>('s'),
      voidNamespaceSerializer,
    );
    c.setCurrentKey('k');
    assert.deepEqual(s2.value(), { lastAccess: 0 });
    b.dispose();
    c.dispose();
  });

  it('restores an entry without a stamp into a TTL state as written at the restore; one stamped at 0 keeps its stamp', () => {
    // A column where only some entries carry a last access time (-1 marks the others).
    const builder = new StateColumnsBuilder('v', 'value', true, true);
    const ns = {};
    builder.add(ns, 0, 0, 'unstamped', 1, -1);
    builder.add(ns, 0, 0, 'stamped', 2, 0);
    let now = 50;
    const b = new HeapKeyedStateBackend(1, new KeyGroupRange(0, 0), () => now);
    b.restore([{ keyGroup: 0, bytes: encodeKeyGroup([builder.build()]) }]);
    const v = b.getOrCreateKeyedState(
      new ValueStateDescriptor<number>('v', { ttl: StateTtlConfig.newBuilder(100).build() }),
      voidNamespaceSerializer,
    );
    const read = () =>
      ['unstamped', 'stamped'].map((key) => {
        b.setCurrentKey(key);
        return v.value();
      });
    now = 99;
    assert.deepEqual(read(), [1, 2]);
    now = 100;
    assert.deepEqual(read(), [1, undefined]);
    now = 150;
    assert.deepEqual(read(), [undefined, undefined]);
    b.dispose();
  });

  it('dispose drops every entry, also for handles still held', () => {
    const b = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
    const v = b.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    b.setCurrentKey('k');
    v.update(1);
    b.restore(b.snapshot().map((g) => g));
    const pending = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
    pending.restore(b.snapshot());
    b.dispose();
    pending.dispose();
    assert.deepEqual([v.value(), b.numStateEntries(), pending.numStateEntries()], [undefined, 0, 0]);
  });
});
