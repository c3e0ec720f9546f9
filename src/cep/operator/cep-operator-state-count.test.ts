// CepOperator.countKeyedStateEntries (the numStateEntries gauge) against the entries a snapshot would hold, counted
// after writing them, on fixed seeds: with changed records not yet written, stored queues, and after a restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import { SeededRandom } from '../../connectors/seeded-random.ts';
import { compilePattern } from '../nfa/compiler/nfa-compiler.ts';
import { abcWithin, type NamedEvent } from '../../../test/support/abc-pattern.ts';
import { CepOperator } from './cep-operator.ts';

type Ev = NamedEvent<number>;

/** Within 60: partial matches live for a while, and many keys hold one at once. */
const pattern = () => abcWithin<Ev>(60);

function harness(restore?: ReturnType<KeyedOperatorHarness<Ev, number>['snapshot']>) {
  const fn = { processMatch: () => {}, processTimedOutMatch: () => {} };
  return new KeyedOperatorHarness<Ev, number>(
    () =>
      new CepOperator<Ev, number, never>(compilePattern(pattern()), fn as never, false, undefined, undefined),
    (e) => e.key,
    restore === undefined ? {} : { restore },
  );
}

const counted = (h: KeyedOperatorHarness<Ev, number>) =>
  (h.operator as CepOperator<Ev, number, never>).countKeyedStateEntries(h.backend);

describe('CepOperator.countKeyedStateEntries', () => {
  it('equals the entries written for a snapshot, without writing them, on fixed seeds', () => {
    for (const seed of [5, 91, 2_024]) {
      const draws = new SeededRandom(seed);
      // `counting` is only ever counted (and written now and then, as a checkpoint would); `writing` writes before
      // every count, as the gauge did: both see the same input
      let counting = harness();
      let writing = harness();
      let clock = 1_000;
      let checks = 0;
      let differed = 0;
      for (let id = 0; id < 4_000; id++) {
        clock += draws.nextInt(3);
        const e = { id, name: 'abcx'[draws.nextInt(4)]!, key: draws.nextInt(200) };
        const ts = clock - draws.nextInt(8);
        counting.processElement(e, ts);
        writing.processElement(e, ts);
        if (draws.nextBoolean(0.04)) {
          counting.processWatermark(clock - 10);
          writing.processWatermark(clock - 10);
        }
        if (draws.nextBoolean(0.05)) {
          const expected = writing.numKeyedStateEntries();
          const before = counting.backend.numStateEntries();
          assert.equal(counted(counting), expected, `seed ${seed}, event ${id}`);
          // counting wrote nothing
          assert.equal(counting.backend.numStateEntries(), before, `seed ${seed}, event ${id}`);
          checks++;
          if (before !== expected) differed++;
        }
        // a snapshot now and then: queues and NFA states stored, which the next counts must not count twice
        if (draws.nextBoolean(0.01)) counting.numKeyedStateEntries();
        if (id === 2_000) {
          counting = harness(counting.snapshot());
          writing = harness(writing.snapshot());
          assert.equal(counted(counting), writing.numKeyedStateEntries(), `seed ${seed}, restored`);
        }
      }
      counting.processWatermark(Number.MAX_SAFE_INTEGER);
      writing.processWatermark(Number.MAX_SAFE_INTEGER);
      assert.equal(counted(counting), 0, `seed ${seed}, at the end`);
      assert.equal(writing.numKeyedStateEntries(), 0, `seed ${seed}, at the end`);
      // the counts were taken while the backend alone said otherwise: what is on the heap was counted
      assert.ok(checks > 150, `seed ${seed}: ${checks} checks`);
      assert.ok(
        differed > checks / 2,
        `seed ${seed}: ${differed} of ${checks} counts needed the heap's part`,
      );
    }
  });
});
