// CepOperator snapshots in event time on the heap and LMDB backends: queued elements and partial matches, kept on the
// heap between snapshots, are all in the snapshot, and a key that ended after one snapshot is not in the next.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  KeyedOperatorHarness,
  type HarnessBackendFactory,
  type HarnessSnapshot,
} from '../../../test/support/keyed-operator-harness.ts';
import { LmdbKeyedStateBackend } from '../../state/lmdb/lmdb-keyed-state-backend.ts';
import { compilePattern } from '../nfa/compiler/nfa-compiler.ts';
import { abcWithin, type NamedEvent } from '../../../test/support/abc-pattern.ts';
import { CepOperator } from './cep-operator.ts';

type Ev = NamedEvent<string>;
const ev = (id: number, name: string, key: string): Ev => ({ id, name, key });

const root = mkdtempSync(join(tmpdir(), 'weir-cep-snapshot-'));
after(() => rmSync(root, { recursive: true, force: true }));
let databases = 0;

const backends: [string, HarnessBackendFactory | undefined][] = [
  ['heap', undefined],
  [
    'lmdb',
    (maxParallelism, keyGroupRange, clock) =>
      new LmdbKeyedStateBackend({
        path: join(root, `db-${databases++}`),
        maxParallelism,
        keyGroupRange,
        clock,
      }),
  ],
];

/** a → followedBy b → followedBy c within 100, event time, each match as `key:a-b-c` (event ids). */
const operator = () =>
  new CepOperator<Ev, string, string>(
    compilePattern(abcWithin<Ev>(100)),
    {
      processMatch: (m: any, _ctx: unknown, out: { collect(v: string): void }) =>
        out.collect(`${m.a[0].key}:${m.a[0].id}-${m.b[0].id}-${m.c[0].id}`),
    },
    false,
    undefined,
    undefined,
  );

const records = (h: KeyedOperatorHarness<Ev, string>) => h.records().map((r) => `${r.value}@${r.timestamp}`);

for (const [name, backend] of backends) {
  describe(`CepOperator snapshot and restore in event time (${name} backend)`, () => {
    const harness = (restore?: HarnessSnapshot) =>
      new KeyedOperatorHarness<Ev, string>(operator, (e) => e.key, {
        ...(restore === undefined ? {} : { restore }),
        ...(backend === undefined ? {} : { backend }),
      });

    it('a restored operator holds every partial match and queued element, and an ended key stays ended', () => {
      const h = harness();
      h.processElement(ev(1, 'a', 'p'), 1);
      h.processElement(ev(2, 'a', 'q'), 2);
      h.processElement(ev(3, 'a', 'r'), 3);
      h.processElement(ev(4, 'b', 'p'), 3);
      // beyond the watermark: still queued at the snapshot
      h.processElement(ev(5, 'b', 'q'), 5);
      h.processElement(ev(6, 'c', 'p'), 9);
      h.processWatermark(4);
      assert.deepEqual(records(h), []);
      // p: [a1 b4] with c6 queued; q: [a2] with b5 queued; r: [a3]
      const first = h.snapshot();

      const fromFirst = harness(first);
      for (const x of [h, fromFirst]) {
        x.processElement(ev(7, 'c', 'q'), 7);
        x.processWatermark(20);
        assert.deepEqual(records(x), ['q:2-5-7@7', 'p:1-4-6@9']);
      }
      fromFirst.close();

      // p and q ended after the first snapshot (whose entries for them must go); r is unchanged since
      const second = h.snapshot();
      h.close();
      const fromSecond = harness(second);
      assert.equal(fromSecond.numKeyedStateEntries(), 2); // r's NFA state and its shared-buffer counters
      fromSecond.processElement(ev(8, 'c', 'p'), 30);
      fromSecond.processElement(ev(9, 'c', 'q'), 31);
      fromSecond.processElement(ev(10, 'b', 'r'), 40);
      fromSecond.processElement(ev(11, 'c', 'r'), 41);
      fromSecond.processWatermark(50);
      assert.deepEqual(records(fromSecond), ['r:3-10-11@41']);
      assert.equal(fromSecond.numKeyedStateEntries(), 0);
      fromSecond.close();
    });

    it('a snapshot taken while elements wait holds them in order, with the keys due at the same times', () => {
      const h = harness();
      h.processElement(ev(1, 'a', 'p'), 10);
      h.processElement(ev(2, 'b', 'p'), 12);
      h.processElement(ev(3, 'a', 'q'), 11);
      h.processElement(ev(4, 'c', 'p'), 11);
      h.processElement(ev(5, 'c', 'p'), 13);
      h.processElement(ev(6, 'b', 'q'), 13);
      h.processElement(ev(7, 'c', 'q'), 14);
      const restored = harness(h.snapshot());
      h.close();
      restored.processWatermark(12);
      assert.deepEqual(records(restored), []);
      restored.processWatermark(14);
      assert.deepEqual(records(restored), ['p:1-2-5@13', 'q:3-6-7@14']);
      restored.close();
    });
  });
}
