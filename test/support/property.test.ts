// The property-test conventions: a fixed default seed, a seed on demand, and failures that replay from what they print.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  assertAsyncProperty,
  assertProperty,
  DEFAULT_PROPERTY_SEED,
  PROPERTY_SEED,
  PropertyFailedError,
  propertySeed,
} from './property.ts';

/** Fails for any array holding a number above 1000: fast-check shrinks it to [1001]. */
const noneAbove1000 = () =>
  fc.property(fc.array(fc.integer({ min: 0, max: 5_000 })), (xs) => {
    assert.ok(
      xs.every((x) => x <= 1_000),
      `found ${xs.find((x) => x > 1_000)}`,
    );
  });

describe('property-test conventions', () => {
  it('reads the seed from WEIR_PROPERTY_SEED: fixed by default, an integer, or random', () => {
    assert.equal(propertySeed(undefined), DEFAULT_PROPERTY_SEED);
    assert.equal(propertySeed(''), DEFAULT_PROPERTY_SEED);
    assert.equal(propertySeed('42'), 42);
    assert.equal(propertySeed('-7'), -7);
    assert.ok(Number.isInteger(propertySeed('random')));
    assert.throws(
      () => propertySeed('soon'),
      /WEIR_PROPERTY_SEED must be an integer or 'random', got 'soon'/,
    );
  });

  it('reports the seed and path of a failure, and the same seed and path replay the same counterexample', () => {
    let failure: PropertyFailedError | undefined;
    try {
      assertProperty(noneAbove1000(), { numRuns: 100 });
    } catch (error) {
      assert.ok(error instanceof PropertyFailedError);
      failure = error;
    }
    assert.ok(failure !== undefined, 'the property cannot hold for 100 runs');
    assert.equal(failure.seed, PROPERTY_SEED);
    assert.match(
      failure.message,
      new RegExp(`^property failed with seed ${failure.seed}, path "${failure.path}"`),
    );
    assert.match(failure.message, /Counterexample: \[\[1001\]\]/);
    assert.match(String((failure.cause as Error).message), /found 1001/);
    const replay = fc.check(noneAbove1000(), { seed: failure.seed, path: failure.path });
    assert.deepEqual(replay.counterexample, [[1_001]]);
    assert.equal(replay.numRuns, 1, 'the path goes straight to the counterexample');
  });

  it('runs asynchronous properties under the same seed', async () => {
    const seen: number[][] = [];
    for (let i = 0; i < 2; i++) {
      const values: number[] = [];
      await assertAsyncProperty(
        fc.asyncProperty(fc.integer(), async (x) => {
          values.push(x);
        }),
        { numRuns: 5 },
      );
      seen.push(values);
    }
    assert.deepEqual(seen[0], seen[1]);
  });
});
