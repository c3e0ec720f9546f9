// WindowFirstPaneState against the heap backend's aggregating and reducing states on random operations, fixed seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  backend,
  reducing,
  aggregating,
  paneOps,
  runAgainstHeapState,
  type PaneContentsDescriptor,
  type PaneStateRun,
} from '../../../test/support/pane-state-against-heap.ts';
import { assertProperty } from '../../../test/support/property.ts';
import { ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import type { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../time-window.ts';
import { WindowFirstPaneState } from './window-first-pane-state.ts';

/**
 * Keys: integers of the int32 range, ten over the 16 home pairs of a new table, so runs of probes form and removals
 * shift pairs back; and keys that are not int32 (fractions, strings, integers past 2^31), which take the Map.
 */
const KEYS: readonly (number | string)[] = [
  0,
  1,
  2,
  3,
  5,
  8,
  13,
  21,
  -1,
  -(2 ** 31),
  2 ** 31 - 1,
  2 ** 31,
  0.5,
  'a',
  'b',
];

const op = paneOps(KEYS.length, 8);

const run: PaneStateRun<WindowFirstPaneState<TimeWindow, number, unknown>> = {
  keys: KEYS,
  make: (keys: HeapKeyedStateBackend, descriptor: PaneContentsDescriptor) =>
    new WindowFirstPaneState<TimeWindow, number, unknown>(
      keys,
      descriptor as never,
      fixedSizeTimeWindowSerializer.hashing!,
    ),
  check: (panes, reference) => assert.equal(panes.windows, [...reference.namespaces()].length),
};

describe('WindowFirstPaneState', () => {
  it('answers as the heap backend aggregating state does, element by element (property, fixed seed)', () => {
    const show = (acc: unknown) => JSON.stringify(acc);
    assertProperty(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) =>
        runAgainstHeapState(aggregating, show, ops, run),
      ),
      { numRuns: 300 },
    );
  });

  it('answers as the heap backend reducing state does (property, fixed seed)', () => {
    const show = (value: unknown) => String(value);
    assertProperty(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => runAgainstHeapState(reducing, show, ops, run)),
      { numRuns: 300 },
    );
  });

  it('grows a window past its first pairs, removes keys from the middle of probe runs, and drops the emptied window', () => {
    const keys = backend();
    const panes = new WindowFirstPaneState<TimeWindow, number, unknown>(
      keys,
      reducing() as never,
      fixedSizeTimeWindowSerializer.hashing!,
    );
    const window = new TimeWindow(0, 1000);
    panes.setCurrentNamespace(window);
    // 1,000 keys, four of every five integers (runs of neighbours in the table) and some that share a home pair.
    const held: number[] = [];
    for (let k = 0; held.length < 1000; k++) if (k % 5 !== 4) held.push(k * (k % 7 === 0 ? 2 ** 20 : 1));
    for (const k of held) {
      keys.setCurrentKey(k);
      assert.equal(panes.add(k + 1), true);
      assert.equal(panes.add(1), false);
    }
    assert.equal(panes.panes, 1000);
    // Every other key leaves; the rest still read their values.
    for (let i = 0; i < held.length; i += 2) {
      keys.setCurrentKey(held[i]!);
      assert.equal(panes.getAndClear(), held[i]! + 2);
      assert.equal(panes.get(), undefined);
    }
    for (let i = 1; i < held.length; i += 2) {
      keys.setCurrentKey(held[i]!);
      assert.equal(panes.get(), held[i]! + 2);
    }
    for (let i = 1; i < held.length; i += 2) {
      keys.setCurrentKey(held[i]!);
      panes.clear();
    }
    assert.equal(panes.panes, 0);
    assert.equal(panes.windows, 0);
    // The next window starts on the emptied window's pairs: every one free.
    const next = new TimeWindow(1000, 2000);
    panes.setCurrentNamespace(next);
    for (const k of held) {
      keys.setCurrentKey(k);
      assert.equal(panes.get(), undefined);
      assert.equal(panes.add(k), true);
    }
    for (const k of held) {
      keys.setCurrentKey(k);
      assert.equal(panes.get(), k);
    }
  });

  it('takes an undefined value as no pane, as the heap backend reads it', () => {
    const keys = backend();
    const panes = new WindowFirstPaneState<TimeWindow, number | undefined, unknown>(
      keys,
      new ReducingStateDescriptor<number | undefined>('window-contents', (a, b) =>
        b === undefined ? undefined : (a ?? 0) + b,
      ) as never,
      fixedSizeTimeWindowSerializer.hashing!,
    );
    panes.setCurrentNamespace(new TimeWindow(0, 1000));
    keys.setCurrentKey(7);
    assert.equal(panes.add(undefined), true);
    assert.equal(panes.panes, 0);
    assert.equal(panes.add(2), true);
    assert.equal(panes.add(undefined), false);
    assert.equal(panes.get(), undefined);
    assert.equal(panes.panes, 0);
    assert.equal(panes.windows, 0);
  });

  it('refuses to merge (non-merging windows only)', () => {
    const panes = new WindowFirstPaneState<TimeWindow, number, unknown>(
      backend(),
      reducing() as never,
      fixedSizeTimeWindowSerializer.hashing!,
    );
    assert.throws(() => panes.mergeNamespaces(), /non-merging windows only/);
  });
});
