// KeyFirstPaneState against the heap backend's aggregating and reducing states on random operations, fixed seed.
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
import { KeyFirstPaneState } from './key-first-pane-state.ts';

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

type Op =
  | { kind: 'add'; key: number; start: number; fresh: boolean; value: number }
  | { kind: 'get'; key: number; start: number }
  | { kind: 'clear'; key: number; start: number }
  | { kind: 'getAndClear'; key: number; start: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      key: fc.integer({ min: 0, max: 5 }),
      start: fc.constantFrom(...STARTS),
      fresh: fc.boolean(),
      value: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('get' as const),
      key: fc.integer({ min: 0, max: 5 }),
      start: fc.constantFrom(...STARTS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('clear' as const),
      key: fc.integer({ min: 0, max: 5 }),
      start: fc.constantFrom(...STARTS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('getAndClear' as const),
      key: fc.integer({ min: 0, max: 5 }),
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
  panesPerBlock: number,
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
  const panes = new KeyFirstPaneState<TimeWindow, number, unknown>(
    keys,
    descriptor() as never,
    fixedSizeTimeWindowSerializer.hashing!,
    panesPerBlock,
  );
  // One object per start, as the assigners hand out; `fresh` passes an equal window of another object.
  const windows = new Map(STARTS.map((s) => [s, new TimeWindow(s, s + 5000)]));
  for (const o of ops) {
    reference.setCurrentKey(o.key);
    keys.setCurrentKey(o.key);
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
  // A snapshot's form: the backend's table written from the panes holds what the reference's holds.
  const written = backend().getOrCreateKeyedState(descriptor(), fixedSizeTimeWindowSerializer) as unknown as {
    table: StateTable<unknown>;
  };
  panes.writeTo(written.table);
  assert.deepEqual(entriesOf(written.table, show), entriesOf(referenceState.table, show));
  // Restored from that table, every pane reads back the same, and the table is left empty.
  const restored = new KeyFirstPaneState<TimeWindow, number, unknown>(
    keys,
    descriptor() as never,
    fixedSizeTimeWindowSerializer.hashing!,
    panesPerBlock,
  );
  restored.takeFrom(written.table);
  assert.equal(written.table.size(), 0);
  assert.equal(restored.panes, panes.panes);
  for (let key = 0; key <= 5; key++) {
    keys.setCurrentKey(key);
    for (const start of STARTS) {
      restored.setCurrentNamespace(new TimeWindow(start, start + 5000));
      panes.setCurrentNamespace(windows.get(start)!);
      assert.deepEqual(restored.get(), panes.get());
      assert.deepEqual(restored.getAccumulator(), panes.getAccumulator());
    }
  }
}

describe('KeyFirstPaneState', () => {
  // Blocks of one and two panes chain several blocks per key (up to the seven starts), blocks of eight one.
  for (const panesPerBlock of [1, 2, 8]) {
    it(`answers as the heap backend aggregating state does, element by element, ${panesPerBlock} panes a block (property, fixed seed)`, () => {
      const show = (acc: unknown) => JSON.stringify(acc);
      assertProperty(
        fc.property(fc.array(op, { maxLength: 200 }), (ops) =>
          runAgainstHeapState(aggregating, show, ops, panesPerBlock),
        ),
        { numRuns: 200 },
      );
    });

    it(`answers as the heap backend reducing state does, ${panesPerBlock} panes a block (property, fixed seed)`, () => {
      const show = (value: unknown) => String(value);
      assertProperty(
        fc.property(fc.array(op, { maxLength: 200 }), (ops) =>
          runAgainstHeapState(reducing, show, ops, panesPerBlock),
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
