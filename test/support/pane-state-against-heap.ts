// A window operator's own pane store checked against the heap backend's aggregating and reducing states on random
// operations: the property shared by the key-first (sliding) and window-first (tumbling) stores.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AggregateFunction } from '../../src/core/aggregate-function.ts';
import { AggregatingStateDescriptor, ReducingStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { AbstractHeapState } from '../../src/state/heap/abstract-heap-state.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import type { StateTable } from '../../src/state/heap/state-table.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow } from '../../src/windowing/time-window.ts';

/** A mutable accumulator whose sum shows the order of floating-point additions. */
export const sumInOrder: AggregateFunction<number, { sum: number; n: number }, string> = {
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

export type PaneContentsDescriptor =
  AggregatingStateDescriptor<number, any, string> | ReducingStateDescriptor<number>;

export const aggregating = (): PaneContentsDescriptor =>
  new AggregatingStateDescriptor('window-contents', sumInOrder);
export const reducing = (): ReducingStateDescriptor<number> =>
  new ReducingStateDescriptor<number>('window-contents', (a, b) => a + b);

/** A heap backend owning every key group of 128, as a parallelism-1 window operator's. */
export const backend = () => new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);

/** Starts 2^30 ms apart share a hash: the store must tell them apart. */
export const STARTS = [0, 1000, 2000, 3000, 2 ** 30, 2 ** 30 + 1000, -1000];

/** One operation on the current key's pane of a window; `key` indexes the keys the run is given. */
export type PaneOp =
  | { kind: 'add'; key: number; start: number; fresh: boolean; value: number }
  | { kind: 'get'; key: number; start: number }
  | { kind: 'clear'; key: number; start: number }
  | { kind: 'getAndClear'; key: number; start: number };

/** Operations over `keyCount` keys and the {@link STARTS}; an add weighs `addWeight` against 2 for each other kind. */
export function paneOps(keyCount: number, addWeight: number): fc.Arbitrary<PaneOp> {
  const key = fc.integer({ min: 0, max: keyCount - 1 });
  const start = fc.constantFrom(...STARTS);
  return fc.oneof(
    {
      weight: addWeight,
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        key,
        start,
        fresh: fc.boolean(),
        value: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('get' as const), key, start }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('clear' as const), key, start }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('getAndClear' as const), key, start }) },
  );
}

/** The (window start, key, value) entries of a heap table, sorted, values shown by `show`. */
export function entriesOf(table: StateTable<unknown>, show: (value: unknown) => string): string[] {
  const out: string[] = [];
  for (const inner of table.namespaces())
    for (const [key, value] of inner)
      out.push(`${(inner.namespace as TimeWindow).start}/${String(key)}=${show(value)}`);
  return out.sort();
}

/** What the property needs of a pane store. */
export interface PaneStateUnderTest {
  readonly panes: number;
  setCurrentNamespace(window: TimeWindow): void;
  add(value: number): boolean;
  get(): unknown;
  getAccumulator(): unknown;
  clear(): void;
  getAndClear(): unknown;
  writeTo(table: StateTable<unknown>): void;
  takeFrom(table: StateTable<unknown>): void;
}

/** How a run makes its store and what it checks beyond the shared assertions. */
export interface PaneStateRun<S extends PaneStateUnderTest> {
  /** The keys the operations' indexes stand for. */
  keys: readonly (number | string)[];
  /** A new store over the key context `keys`, for the contents `descriptor` describes. */
  make(keys: HeapKeyedStateBackend, descriptor: PaneContentsDescriptor): S;
  /** Checks after the operations, against the reference state's table. */
  check?(panes: S, reference: StateTable<unknown>): void;
}

/**
 * Applies `ops` to a new store and to the heap backend's state for `descriptor`, answer by answer; then compares the
 * entry counts, the table the store writes for a snapshot, and a store restored from that table.
 */
export function runAgainstHeapState<S extends PaneStateUnderTest>(
  descriptor: () => PaneContentsDescriptor,
  show: (value: unknown) => string,
  ops: readonly PaneOp[],
  run: PaneStateRun<S>,
): void {
  const reference = backend();
  const referenceState = reference.getOrCreateKeyedState(
    descriptor(),
    fixedSizeTimeWindowSerializer,
  ) as unknown as AbstractHeapState<TimeWindow, unknown> & {
    add(v: number): boolean;
    get(): unknown;
    clear(): void;
  };
  const keys = backend();
  const panes = run.make(keys, descriptor());
  // One object per start, as the assigners hand out; `fresh` passes an equal window of another object.
  const windows = new Map(STARTS.map((s) => [s, new TimeWindow(s, s + 5000)]));
  for (const o of ops) {
    const key = run.keys[o.key]!;
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
  run.check?.(panes, referenceState.table);
  // A snapshot's form: the backend's table written from the panes holds what the reference's holds.
  const written = backend().getOrCreateKeyedState(descriptor(), fixedSizeTimeWindowSerializer) as unknown as {
    table: StateTable<unknown>;
  };
  panes.writeTo(written.table);
  assert.deepEqual(entriesOf(written.table, show), entriesOf(referenceState.table, show));
  // Restored from that table, every pane reads back the same, and the table is left empty.
  const restored = run.make(keys, descriptor());
  restored.takeFrom(written.table);
  assert.equal(written.table.size(), 0);
  assert.equal(restored.panes, panes.panes);
  for (const key of run.keys) {
    keys.setCurrentKey(key);
    for (const start of STARTS) {
      restored.setCurrentNamespace(new TimeWindow(start, start + 5000));
      panes.setCurrentNamespace(windows.get(start)!);
      assert.deepEqual(restored.get(), panes.get());
      assert.deepEqual(restored.getAccumulator(), panes.getAccumulator());
    }
  }
}
