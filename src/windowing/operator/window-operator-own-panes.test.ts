// Windows on the heap backend keep their panes in a store of the operator's (sliding: key first, tumbling: a table per
// window): the output of the backend's own table, and savepoints that either restores.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AggregateFunction } from '../../core/aggregate-function.ts';
import { AggregatingStateDescriptor, ReducingStateDescriptor } from '../../core/state-descriptor.ts';
import {
  KeyedOperatorHarness,
  type HarnessBackendFactory,
  type HarnessSnapshot,
} from '../../../test/support/keyed-operator-harness.ts';
import { LmdbKeyedStateBackend } from '../../state/lmdb/lmdb-keyed-state-backend.ts';
import { SlidingEventTimeWindows } from '../assigners/sliding-event-time-windows.ts';
import { TumblingEventTimeWindows } from '../assigners/tumbling-event-time-windows.ts';
import type { WindowAssigner } from '../window-assigner.ts';
import type { TimeWindow } from '../time-window.ts';
import { EventTimeTrigger } from '../triggers/event-time-trigger.ts';
import { SingleValueProcessWindowFunction } from './internal-window-function.ts';
import { WindowOperator, type WindowStateDescriptor } from './window-operator.ts';

type Bid = [key: string, value: number];

/** Floating-point sums whose last bits show the order the values were added in. */
const sumInOrder: AggregateFunction<Bid, { sum: number; n: number }, string> = {
  createAccumulator: () => ({ sum: 0, n: 0 }),
  add: (bid, acc) => {
    acc.sum += bid[1];
    acc.n++;
    return acc;
  },
  getResult: (acc) => `${acc.n}:${acc.sum}`,
  merge: () => {
    throw new Error('a non-merging window never merges');
  },
};

const root = mkdtempSync(join(tmpdir(), 'weir-key-first-'));
after(() => rmSync(root, { recursive: true, force: true }));
let databases = 0;
const lmdb: HarnessBackendFactory = (maxParallelism, keyGroupRange, clock) =>
  new LmdbKeyedStateBackend({ path: join(root, `db-${databases++}`), maxParallelism, keyGroupRange, clock });

function operator(
  assigner: () => WindowAssigner<Bid, TimeWindow>,
  state: () => WindowStateDescriptor<Bid, any>,
) {
  return () =>
    new WindowOperator<string, Bid, any, string, TimeWindow>({
      assigner: assigner(),
      trigger: EventTimeTrigger.create(),
      windowStateDescriptor: state(),
      windowFunction: new SingleValueProcessWindowFunction<unknown, string, string, TimeWindow>({
        process: (key, context, values, out) =>
          out.collect(`${key} [${context.window.start},${context.window.end}) ${String(values[0])}`),
      }),
      allowedLateness: 0,
      lateDataOutputTag: undefined,
    });
}

const aggregating = () => new AggregatingStateDescriptor('window-contents', sumInOrder);
const reducing = () => new ReducingStateDescriptor<Bid>('window-contents', (a, b) => [a[0], a[1] + b[1]]);

/** 400 bids of five keys over ~8 s, out of order within 300 ms, with values whose sums depend on their order. */
const bids: [Bid, number][] = [];
for (let i = 0, seed = 7; i < 400; i++) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  bids.push([[`k${seed % 5}`, (seed % 1000) / 7 + 1e-9 * i], i * 20 + (seed % 300)]);
}

/** Feeds bids [from, to) with a watermark 300 ms behind the latest timestamp every 10 bids. */
function feed(h: KeyedOperatorHarness<Bid, string>, from: number, to: number): void {
  let latest = from === 0 ? -Infinity : Math.max(...bids.slice(0, from).map((b) => b[1]));
  for (let i = from; i < to; i++) {
    const [bid, ts] = bids[i]!;
    h.processElement(bid, ts);
    latest = Math.max(latest, ts);
    if (i % 10 === 9) h.processWatermark(latest - 300);
  }
}

const shown = (h: KeyedOperatorHarness<Bid, string>) => h.records().map((r) => `${r.value} @${r.timestamp}`);

const assigners = [
  ['sliding windows keyed first', () => SlidingEventTimeWindows.of(3000, 1000)],
  ['tumbling windows in a table per window', () => TumblingEventTimeWindows.of(1000)],
] as const;

for (const [windows, assigner] of assigners)
  for (const [name, state] of [
    ['aggregate', aggregating],
    ['reduce', reducing],
  ] as const) {
    describe(`WindowOperator, ${windows} on the heap backend (${name})`, () => {
      const create = operator(assigner, state);
      const harness = (backend?: HarnessBackendFactory, restore?: HarnessSnapshot) =>
        new KeyedOperatorHarness<Bid, string>(create, (b) => b[0], {
          ...(backend === undefined ? {} : { backend }),
          ...(restore === undefined ? {} : { restore }),
        });

      /** The uninterrupted run on the LMDB backend, whose panes are namespace first as Flink's. */
      const reference = (() => {
        const h = harness(lmdb);
        feed(h, 0, bids.length);
        h.processWatermark(Number.MAX_SAFE_INTEGER);
        const out = shown(h);
        h.close();
        return out;
      })();

      it('emits what the namespace-first panes of the LMDB backend emit, in the same order', () => {
        assert.ok(reference.length > 40);
        const h = harness();
        feed(h, 0, bids.length);
        h.processWatermark(Number.MAX_SAFE_INTEGER);
        assert.deepEqual(shown(h), reference);
        assert.equal(h.numKeyedStateEntries(), 0);
        assert.equal(h.numEventTimeTimers(), 0);
        h.close();
      });

      it('holds its panes outside the backend table except while a snapshot is taken', () => {
        const h = harness();
        feed(h, 0, 200);
        assert.equal(h.backend.numStateEntries('window-contents'), 0);
        const panes = h.numKeyedStateEntries(); // prepares a snapshot: the panes are written into the table
        assert.ok(panes > 5);
        assert.equal(h.backend.numStateEntries('window-contents'), panes);
        h.operator.snapshotOperatorState();
        assert.equal(h.backend.numStateEntries('window-contents'), 0);
        h.close();
      });

      for (const [from, to] of [
        ['heap', 'lmdb'],
        ['lmdb', 'heap'],
        ['heap', 'heap'],
      ] as const) {
        it(`a snapshot taken on ${from} restores on ${to}: every window emits what it does uninterrupted`, () => {
          const backendOf = (which: string) => (which === 'lmdb' ? lmdb : undefined);
          const first = harness(backendOf(from));
          feed(first, 0, 217);
          const snapshot = first.snapshot();
          const before = shown(first);
          first.close();
          const second = harness(backendOf(to), snapshot);
          feed(second, 217, bids.length);
          second.processWatermark(Number.MAX_SAFE_INTEGER);
          // A restored timer service fires one timestamp's keys in key-group order, not registration order (as
          // Flink's): the same records, each with its exact value, in another order within a timestamp.
          assert.deepEqual([...before, ...shown(second)].sort(), [...reference].sort());
          second.close();
        });
      }
    });
  }
