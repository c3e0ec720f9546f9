// WindowFirstPaneState against the heap backend's aggregating and reducing states on random operations, fixed seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertProperty } from '../../../test/support/property.ts';
import type { AggregateFunction } from '../../core/aggregate-function.ts';
import { AggregatingStateDescriptor, ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import type { AbstractHeapState } from '../../state/heap/abstract-heap-state.ts';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import type { StateTable } from '../../state/heap/state-table.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../time-window.ts';
import { WindowFirstPaneState } from './window-first-pane-state.ts';

/** A mutable accumulator whose sum shows the order of floating-point additions. */
const sumInOrder: AggregateFunction<number, { sum: number; n: number }, string> = {
  createAccumulator: () => ({ sum: 0, n: 0 }),
  add: (value, acc) => {
    acc.sum += value;
    acc.n++;
    return acc;
  },
  getResult: (acc) => `${acc.n}:${acc.sum}`,
  merge: () => {
    throw new Error('merge is never called');
  },
};

const aggregating = () => new AggregatingStateDescriptor('window-contents', sumInOrder);
const reducing = () => new ReducingStateDescriptor<number>('window-contents', (a, b) => a + b);

const backend = () => new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);

/** Starts 2^30 ms apart share a hash: the store must tell them apart. */
const STARTS = [0, 1000, 2000, 3000, 2 ** 30, 2 ** 30 + 1000, -1000];

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

type Op =
  | { kind: 'add'; key: number; start: number; fresh: boolean; value: number }
  | { kind: 'get'; key: number; start: number }
  | { kind: 'clear'; key: number; start: number }
  | { kind: 'getAndClear'; key: number; start: number };

const keyIndex = fc.integer({ min: 0, max: KEYS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      key: keyIndex,
      start: fc.constantFrom(...STARTS),
      fresh: fc.boolean(),
      value: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('get' as const),
      key: keyIndex,
      start: fc.constantFrom(...STARTS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('clear' as const),
      key: keyIndex,
      start: fc.constantFrom(...STARTS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('getAndClear' as const),
      key: keyIndex,
      start: fc.constantFrom(...STARTS),
    }),
  },
);

/** The (window start, key, value) entries of a heap table, sorted, values shown by `show`. */
function entriesOf(table: StateTable<unknown>, show: (value: unknown) => string): string[] {
  const out: string[] = [];
  for (const inner of table.namespaces())
    for (const [key, value] of inner)
      out.push(`${(inner.namespace as TimeWindow).start}/${String(key)}=${show(value)}`);
  return out.sort();
}

function runAgainstHeapState(
  descriptor: () => AggregatingStateDescriptor<number, any, string> | ReducingStateDescriptor<number>,
  show: (value: unknown) => string,
  ops: readonly Op[],
): void {
  const reference = backend();
  const referenceState = reference.getOrCreateKeyedState(
    descriptor(),
    fixedSizeTimeWindowSerializer,
  ) as unknown as AbstractHeapState<TimeWindow, unknown> & {
    add(v: number): boolean;
    get(): unknown;
    clear(): void;
    getAccumulator?(): unknown;
  };
  const keys = backend();
  const panes = new WindowFirstPaneState<TimeWindow, number, unknown>(
    keys,
    descriptor() as never,
    fixedSizeTimeWindowSerializer.hashing!,
  );
  // One object per start, as the assigners hand out; `fresh` passes an equal window of another object.
  const windows = new Map(STARTS.map((s) => [s, new TimeWindow(s, s + 5000)]));
  for (const o of ops) {
    const key = KEYS[o.key]!;
    reference.setCurrentKey(key);
    keys.setCurrentKey(key);
    const window =
      o.kind === 'add' && o.fresh ? new TimeWindow(o.start, o.start + 5000) : windows.get(o.start)!;
    referenceState.setCurrentNamespace(window);
    panes.setCurrentNamespace(window);
    if (o.kind === 'add') assert.equal(panes.add(o.value), referenceState.add(o.value));
    else if (o.kind === 'clear') {
      referenceState.clear();
      panes.clear();
    } else if (o.kind === 'getAndClear') {
      // What a window's end does on the heap backend: read the contents, then clear them.
      const contents = referenceState.get();
      referenceState.clear();
      assert.deepEqual(panes.getAndClear(), contents);
    }
    assert.deepEqual(panes.get(), referenceState.get());
  }
  assert.equal(panes.panes, reference.numStateEntries());
  assert.equal(panes.windows, [...referenceState.table.namespaces()].length);
  // A snapshot's form: the backend's table written from the panes holds what the reference's holds.
  const written = backend().getOrCreateKeyedState(descriptor(), fixedSizeTimeWindowSerializer) as unknown as {
    table: StateTable<unknown>;
  };
  panes.writeTo(written.table);
  assert.deepEqual(entriesOf(written.table, show), entriesOf(referenceState.table, show));
  // Restored from that table, every pane reads back the same, and the table is left empty.
  const restored = new WindowFirstPaneState<TimeWindow, number, unknown>(
    keys,
    descriptor() as never,
    fixedSizeTimeWindowSerializer.hashing!,
  );
  restored.takeFrom(written.table);
  assert.equal(written.table.size(), 0);
  assert.equal(restored.panes, panes.panes);
  for (const key of KEYS) {
    keys.setCurrentKey(key);
    for (const start of STARTS) {
      restored.setCurrentNamespace(new TimeWindow(start, start + 5000));
      panes.setCurrentNamespace(windows.get(start)!);
      assert.deepEqual(restored.get(), panes.get());
      assert.deepEqual(restored.getAccumulator(), panes.getAccumulator());
    }
  }
}

describe('WindowFirstPaneState', () => {
  it('answers as the heap backend aggregating state does, element by element (property, fixed seed)', () => {
    const show = (acc: unknown) => JSON.stringify(acc);
    assertProperty(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => runAgainstHeapState(aggregating, show, ops)),
      { numRuns: 300 },
    );
  });

  it('answers as the heap backend reducing state does (property, fixed seed)', () => {
    const show = (value: unknown) => String(value);
    assertProperty(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => runAgainstHeapState(reducing, show, ops)),
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
