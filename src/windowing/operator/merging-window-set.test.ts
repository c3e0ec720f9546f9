// MergingWindowSet: in-flight windows, state windows and merge callbacks, as Flink's MergingWindowSetTest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deserialize } from 'node:v8';
import fc from 'fast-check';
import { assertProperty } from '../../../test/support/property.ts';
import { HeapKeyedStateBackend } from '../../state/heap/heap-keyed-state-backend.ts';
import type { InternalValueState } from '../../state/internal-state.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../../state/namespace.ts';
import { ValueStateDescriptor } from '../../core/state-descriptor.ts';
import { EventTimeSessionWindows } from '../assigners/event-time-session-windows.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import type { Trigger } from '../trigger.ts';
import { MergingWindowAssigner, type WindowAssignerContext } from '../window-assigner.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import {
  mergingWindowPairsSerializer,
  MergingWindowSet,
  type MergingWindowPairs,
} from './merging-window-set.ts';

const w = (start: number, end: number) => new TimeWindow(start, end);
const b = (x: TimeWindow | undefined) => (x === undefined ? undefined : [x.start, x.end]);

function newSet(assigner: MergingWindowAssigner<unknown, TimeWindow> = EventTimeSessionWindows.withGap(3)) {
  const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
  backend.setCurrentKey('k');
  const state = backend.getOrCreateKeyedState(
    new ValueStateDescriptor<MergingWindowPairs<TimeWindow>>('merging-window-set', {
      serializer: mergingWindowPairsSerializer(timeWindowSerializer),
    }),
    voidNamespaceSerializer,
  ) as InternalValueState<VoidNamespace, MergingWindowPairs<TimeWindow>>;
  state.setCurrentNamespace(VoidNamespace);
  return {
    backend,
    set: new MergingWindowSet(assigner, state, timeWindowSerializer).load(),
  };
}

/** Sessions that do not declare the intersecting-windows capability: every merge goes through `mergeWindows`. */
class GeneralPathSessions extends MergingWindowAssigner<unknown, TimeWindow> {
  private readonly sessions = EventTimeSessionWindows.withGap(3);
  assignWindows(element: unknown, timestamp: number, context: WindowAssignerContext): readonly TimeWindow[] {
    return this.sessions.assignWindows(element, timestamp, context);
  }
  mergeWindows(
    windows: readonly TimeWindow[],
    callback: (toBeMerged: TimeWindow[], mergeResult: TimeWindow) => void,
  ): void {
    this.sessions.mergeWindows(windows, callback);
  }
  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return this.sessions.getDefaultTrigger();
  }
  getWindowSerializer(): NamespaceSerializer<TimeWindow> {
    return timeWindowSerializer;
  }
  isEventTime(): boolean {
    return true;
  }
}

describe('MergingWindowSet', () => {
  it('adds, merges incrementally and keeps the first state window', () => {
    const { set } = newSet();
    const merges: unknown[] = [];
    const record = (
      result: TimeWindow,
      merged: readonly TimeWindow[],
      stateResult: TimeWindow,
      mergedState: readonly TimeWindow[],
    ) => merges.push([b(result), merged.map(b), b(stateResult), mergedState.map(b)]);

    assert.deepEqual(b(set.addWindow(w(0, 1), record)), [0, 1]);
    assert.deepEqual(b(set.addWindow(w(2, 3), record)), [2, 3]);
    assert.deepEqual(merges, []);
    // [1, 2] touches both: all three merge into [0, 3]; the new window is not among the merged ones.
    assert.deepEqual(b(set.addWindow(w(1, 2), record)), [0, 3]);
    assert.deepEqual(merges, [
      [
        [0, 3],
        [
          [0, 1],
          [2, 3],
        ],
        [0, 1],
        [[2, 3]],
      ],
    ]);
    assert.deepEqual(b(set.getStateWindow(w(0, 3))), [0, 1]);
    assert.equal(set.getStateWindow(w(0, 1)), undefined);

    // A window inside an existing one: no merge callback, the result is the existing window.
    merges.length = 0;
    assert.deepEqual(b(set.addWindow(w(1, 2), record)), [0, 3]);
    assert.deepEqual(merges, []);

    // Extending: the state window stays.
    assert.deepEqual(b(set.addWindow(w(3, 6), record)), [0, 6]);
    assert.deepEqual(merges, [[[0, 6], [[0, 3]], [0, 1], []]]);
    assert.deepEqual(b(set.getStateWindow(w(0, 6))), [0, 1]);
  });

  it('an equal window is not a merge and keeps its state window', () => {
    const { set } = newSet();
    const noMerge = () => assert.fail('no merge expected');
    set.addWindow(w(0, 3), noMerge);
    set.addWindow(w(0, 3), noMerge);
    assert.deepEqual(set.inFlight().map(b), [[0, 3]]);
  });

  it('retires windows, persists to keyed state (removing the entry when empty) and reloads', () => {
    const { backend, set } = newSet();
    set.addWindow(w(0, 3), () => {});
    set.addWindow(w(10, 13), () => {});
    set.persist();
    assert.equal(backend.numStateEntries(), 1);
    const restored = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
    restored.restore(backend.snapshot());
    restored.setCurrentKey('k');
    const state = restored.getOrCreateKeyedState(
      new ValueStateDescriptor<MergingWindowPairs<TimeWindow>>('merging-window-set', {
        serializer: mergingWindowPairsSerializer(timeWindowSerializer),
      }),
      voidNamespaceSerializer,
    ) as InternalValueState<VoidNamespace, MergingWindowPairs<TimeWindow>>;
    state.setCurrentNamespace(VoidNamespace);
    const reloaded = new MergingWindowSet(
      EventTimeSessionWindows.withGap(3),
      state,
      timeWindowSerializer,
    ).load();
    assert.ok(reloaded.getStateWindow(w(10, 13)) instanceof TimeWindow, 'windows come back as TimeWindow');
    reloaded.retireWindow(w(0, 3));
    reloaded.retireWindow(w(10, 13));
    assert.throws(() => reloaded.retireWindow(w(10, 13)), /not in in-flight window set/);
    reloaded.persist();
    assert.equal(restored.numStateEntries(), 0);
  });

  it('stores a window that is its own state window and alone as itself, anything else as the array of pairs', () => {
    const { backend, set } = newSet();
    const state = backend.getOrCreateKeyedState(
      new ValueStateDescriptor<MergingWindowPairs<TimeWindow>>('merging-window-set', {}),
      voidNamespaceSerializer,
    ) as InternalValueState<VoidNamespace, MergingWindowPairs<TimeWindow>>;
    state.setCurrentNamespace(VoidNamespace);
    const first = w(0, 3);
    set.addWindow(first, () => {});
    set.persist();
    assert.equal(state.value(), first, 'a new session: the window alone');
    backend.setCurrentKey('j');
    set.load().addWindow(w(10, 13), () => {});
    set.persist();
    backend.setCurrentKey('k');
    set.load().addWindow(w(20, 23), () => {}); // a second session of k, on the array the set reuses
    set.persist();
    const stored = state.value() as TimeWindow[];
    assert.deepEqual(stored.map(b), [
      [0, 3],
      [0, 3],
      [20, 23],
      [20, 23],
    ]);
    backend.setCurrentKey('j');
    assert.deepEqual(b(set.load().getStateWindow(w(10, 13))), [10, 13]);
    set.addWindow(w(12, 15), () => {}); // extends j's session: window and state window differ
    set.persist();
    assert.deepEqual((state.value() as TimeWindow[]).map(b), [
      [10, 15],
      [10, 13],
    ]);
    backend.setCurrentKey('k');
    assert.equal(state.value(), stored, "k's array is its own, untouched by j");
    set.load().retireWindow(w(20, 23));
    set.persist();
    assert.equal(state.value(), stored[0], 'back to one window that is its own state window: stored alone');
    set.load().retireWindow(w(0, 3));
    set.persist();
    assert.equal(state.value(), undefined);
    assert.equal(backend.numStateEntries(), 1, "only j's windows are left");
  });

  it('serializes a window stored alone as the one pair it stands for', () => {
    const serializer = mergingWindowPairsSerializer(timeWindowSerializer);
    const alone = serializer.serialize(w(10, 13));
    assert.deepEqual(alone, serializer.serialize([w(10, 13), w(10, 13)]));
    assert.deepEqual((serializer.deserialize(alone) as TimeWindow[]).map(b), [
      [10, 13],
      [10, 13],
    ]);
  });

  it('serializes the windows as [window, state window] pairs, the snapshot form', () => {
    const serializer = mergingWindowPairsSerializer(timeWindowSerializer);
    const bytes = serializer.serialize([w(0, 5), w(0, 3), w(10, 13), w(10, 13)]);
    const pairs = (deserialize(bytes) as [Uint8Array, Uint8Array][]).map((pair) =>
      pair.map((x) => b(timeWindowSerializer.serializer.deserialize(x))),
    );
    assert.deepEqual(pairs, [
      [
        [0, 5],
        [0, 3],
      ],
      [
        [10, 13],
        [10, 13],
      ],
    ]);
    const back = serializer.deserialize(bytes) as TimeWindow[];
    assert.ok(back.every((x) => x instanceof TimeWindow));
    assert.deepEqual(back.map(b), [
      [0, 5],
      [0, 3],
      [10, 13],
      [10, 13],
    ]);
  });

  it('merges intersecting time windows in one pass with the results of the general mergeWindows path', () => {
    // Operations on one key: add [start, start + length), or retire the i-th in-flight window (mod their count).
    // Mostly adds, over a span where a few windows already touch: most runs merge two, three or more windows.
    const operation = fc.oneof(
      {
        arbitrary: fc.record({
          add: fc.integer({ min: 0, max: 40 }),
          length: fc.integer({ min: 1, max: 8 }),
        }),
        weight: 4,
      },
      { arbitrary: fc.record({ retire: fc.nat() }), weight: 1 },
    );
    assertProperty(
      fc.property(fc.array(operation, { minLength: 5, maxLength: 40, size: 'max' }), (operations) => {
        const run = (assigner: MergingWindowAssigner<unknown, TimeWindow>) => {
          const { set } = newSet(assigner);
          const log: unknown[] = [];
          const record = (
            result: TimeWindow,
            merged: readonly TimeWindow[],
            stateResult: TimeWindow,
            mergedState: readonly TimeWindow[],
          ) => log.push(['merge', b(result), merged.map(b), b(stateResult), mergedState.map(b)]);
          for (const op of operations) {
            if ('add' in op) {
              const result = set.addWindow(w(op.add, op.add + op.length), record);
              log.push(['added', b(result), b(set.getStateWindow(result))]);
            } else {
              const inFlight = [...set.inFlight()].sort((x, y) => x.start - y.start);
              if (inFlight.length === 0) continue;
              set.retireWindow(inFlight[op.retire % inFlight.length]!);
            }
            // In-flight windows and their state windows, by value and in start order.
            const windows = set.inFlight().map((x) => [b(x), b(set.getStateWindow(x))]);
            log.push(windows.sort((x, y) => x[0]![0]! - y[0]![0]!));
          }
          return log;
        };
        assert.deepEqual(run(EventTimeSessionWindows.withGap(3)), run(new GeneralPathSessions()));
      }),
    );
  });
});

/** A window that is not a TimeWindow, identified by a name. */
class Bucket {
  constructor(readonly name: string) {}
  maxTimestamp(): number {
    return 100;
  }
}
const bucketSerializer: NamespaceSerializer<Bucket> = {
  key: (bucket) => (bucket === undefined ? '' : bucket.name),
  serializer: { serialize: () => new Uint8Array(0), deserialize: () => new Bucket('?') },
};

/** Merges nothing, ever: windows that intersect stay apart. */
class NeverMerging extends MergingWindowAssigner<unknown, Bucket> {
  assignWindows(): readonly Bucket[] {
    return [];
  }
  mergeWindows(): void {}
  getDefaultTrigger(): Trigger<unknown, Bucket> {
    throw new Error('not used');
  }
  getWindowSerializer(): NamespaceSerializer<Bucket> {
    return bucketSerializer;
  }
  isEventTime(): boolean {
    return true;
  }
}

describe('MergingWindowSet paths', () => {
  it('sessions take the single-pass path: the assigner is never asked to merge', () => {
    class CountingSessions extends EventTimeSessionWindows {
      calls = 0;
      constructor() {
        super(3);
      }
      override mergeWindows(
        windows: readonly TimeWindow[],
        callback: (toBeMerged: TimeWindow[], mergeResult: TimeWindow) => void,
      ): void {
        this.calls++;
        super.mergeWindows(windows, callback);
      }
    }
    const sessions = new CountingSessions();
    const { set } = newSet(sessions);
    set.addWindow(w(0, 3), () => {});
    set.addWindow(w(2, 5), () => {});
    assert.deepEqual(set.inFlight().map(b), [[0, 5]]);
    assert.equal(sessions.calls, 0);
  });

  it('any other assigner decides what merges, and its windows are told apart by their keys', () => {
    const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
    backend.setCurrentKey('k');
    const state = backend.getOrCreateKeyedState(
      new ValueStateDescriptor<MergingWindowPairs<Bucket>>('merging-window-set'),
      voidNamespaceSerializer,
    ) as InternalValueState<VoidNamespace, MergingWindowPairs<Bucket>>;
    state.setCurrentNamespace(VoidNamespace);
    const assigner = new NeverMerging();
    assert.equal(assigner.mergesIntersectingTimeWindows(), false, 'the default');
    const set = new MergingWindowSet(assigner, state, bucketSerializer).load();
    const noMerge = () => assert.fail('no merge expected');
    for (const name of ['a', 'b', 'a']) set.addWindow(new Bucket(name), noMerge);
    assert.deepEqual(
      set.inFlight().map((x) => x.name),
      ['a', 'b'],
    );
    assert.equal(set.getStateWindow(new Bucket('b'))?.name, 'b');
    assert.equal(set.getStateWindow(new Bucket('c')), undefined);
  });

  it('a window is in flight only with its own start and end', () => {
    const { set } = newSet();
    set.addWindow(w(10, 13), () => {});
    set.addWindow(w(0, 3), () => {});
    set.addWindow(w(2, 11), () => {});
    assert.deepEqual(set.inFlight().map(b), [[0, 13]]);
    // The merged-away windows' timers may still fire: they must not find the merged window.
    assert.equal(set.getStateWindow(w(10, 13)), undefined);
    assert.equal(set.getStateWindow(w(0, 3)), undefined);
    assert.deepEqual(b(set.getStateWindow(w(0, 13))), [0, 3]);
  });
});
