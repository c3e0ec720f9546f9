// KeyFirstPaneState against the heap backend's aggregating and reducing states on random operations, fixed seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  aggregating,
  backend,
  entriesOf,
  paneOps,
  reducing,
  runAgainstHeapState,
  type PaneContentsDescriptor,
  type PaneStateRun,
} from '../../../test/support/pane-state-against-heap.ts';
import { assertProperty } from '../../../test/support/property.ts';
import type { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import type { StateTable } from '../../state/heap/state-table.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../time-window.ts';
import { KeyFirstPaneState } from './key-first-pane-state.ts';

const op = paneOps(6, 6);

/** Keys 0 to 5, the stores' blocks `panesPerBlock` panes each. */
const run = (panesPerBlock: number): PaneStateRun<KeyFirstPaneState<TimeWindow, number, unknown>> => ({
  keys: [0, 1, 2, 3, 4, 5],
  make: (keys: HeapKeyedStateBackend, descriptor: PaneContentsDescriptor) =>
    new KeyFirstPaneState<TimeWindow, number, unknown>(
      keys,
      descriptor as never,
      fixedSizeTimeWindowSerializer.hashing!,
      panesPerBlock,
    ),
});

describe('KeyFirstPaneState', () => {
  // Blocks of one and two panes chain several blocks per key (up to the seven starts), blocks of eight one.
  for (const panesPerBlock of [1, 2, 8]) {
    it(`answers as the heap backend aggregating state does, element by element, ${panesPerBlock} panes a block (property, fixed seed)`, () => {
      const show = (acc: unknown) => JSON.stringify(acc);
      assertProperty(
        fc.property(fc.array(op, { maxLength: 200 }), (ops) =>
          runAgainstHeapState(aggregating, show, ops, run(panesPerBlock)),
        ),
        { numRuns: 200 },
      );
    });

    it(`answers as the heap backend reducing state does, ${panesPerBlock} panes a block (property, fixed seed)`, () => {
      const show = (value: unknown) => String(value);
      assertProperty(
        fc.property(fc.array(op, { maxLength: 200 }), (ops) =>
          runAgainstHeapState(reducing, show, ops, run(panesPerBlock)),
        ),
        { numRuns: 200 },
      );
    });
  }

  it('reuses a cleared pane slot for the key next pane and drops a key with none left', () => {
    const keys = backend();
    const panes = new KeyFirstPaneState<TimeWindow, number, unknown>(
      keys,
      reducing() as never,
      fixedSizeTimeWindowSerializer.hashing!,
    );
    const w = (s: number) => new TimeWindow(s, s + 3000);
    keys.setCurrentKey('k');
    for (const s of [0, 1000, 2000]) {
      panes.setCurrentNamespace(w(s));
      assert.equal(panes.add(s + 1), true);
    }
    panes.setCurrentNamespace(w(0));
    panes.clear();
    panes.setCurrentNamespace(w(3000));
    assert.equal(panes.add(7), true);
    assert.equal(panes.panes, 3);
    const table = (
      backend().getOrCreateKeyedState(reducing(), fixedSizeTimeWindowSerializer) as never as {
        table: StateTable<unknown>;
      }
    ).table;
    panes.writeTo(table);
    assert.deepEqual(entriesOf(table, String), ['1000/k=1001', '2000/k=2001', '3000/k=7']);
    for (const s of [1000, 2000, 3000]) {
      panes.setCurrentNamespace(w(s));
      panes.clear();
    }
    assert.equal(panes.panes, 0);
    panes.writeTo(table);
    assert.equal(table.size(), 0);
    panes.setCurrentNamespace(w(1000));
    assert.equal(panes.get(), undefined);
    assert.equal(panes.add(5), true);
    assert.equal(panes.get(), 5);
  });

  it("chains a key's panes past its first block and gives a departed key's blocks to the next key", () => {
    const keys = backend();
    const panes = new KeyFirstPaneState<TimeWindow, number, unknown>(
      keys,
      reducing() as never,
      fixedSizeTimeWindowSerializer.hashing!,
      2,
    );
    const w = (s: number) => new TimeWindow(s, s + 3000);
    const fill = (key: string, starts: readonly number[]) => {
      keys.setCurrentKey(key);
      for (const s of starts) {
        panes.setCurrentNamespace(w(s));
        assert.equal(panes.add(s + 1), true);
      }
    };
    fill('a', [0, 1000, 2000]);
    assert.equal(panes.arenaSlots, 14); // two blocks of two triples and a next slot
    fill('b', [0]);
    assert.equal(panes.arenaSlots, 21);
    keys.setCurrentKey('a');
    for (const s of [1000, 0, 2000]) {
      panes.setCurrentNamespace(w(s));
      panes.clear();
    }
    fill('c', [5000, 6000, 7000]);
    assert.equal(panes.arenaSlots, 21); // c took a's two blocks
    fill('d', [5000]);
    assert.equal(panes.arenaSlots, 28);
    keys.setCurrentKey('a');
    panes.setCurrentNamespace(w(0));
    assert.equal(panes.get(), undefined);
    keys.setCurrentKey('b');
    assert.equal(panes.get(), 1);
    keys.setCurrentKey('c');
    for (const s of [5000, 6000, 7000]) {
      panes.setCurrentNamespace(w(s));
      assert.equal(panes.get(), s + 1);
    }
    assert.equal(panes.panes, 5);
  });

  it('refuses to merge (non-merging windows only)', () => {
    const panes = new KeyFirstPaneState<TimeWindow, number, unknown>(
      backend(),
      reducing() as never,
      fixedSizeTimeWindowSerializer.hashing!,
    );
    assert.throws(() => panes.mergeNamespaces(), /non-merging windows only/);
  });
});
