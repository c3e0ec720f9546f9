// Key group ranges as Flink's KeyGroupRangeAssignment: contiguous ranges per subtask, and the checks on parallelism.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkParallelism,
  DEFAULT_MAX_PARALLELISM,
  KeyGroupRange,
  subtaskForKeyGroup,
} from './key-group-range.ts';

const bounds = (maxP: number, p: number) =>
  Array.from({ length: p }, (_, i) => {
    const r = KeyGroupRange.forSubtask(maxP, p, i);
    return [r.start, r.end, r.size];
  });

describe('KeyGroupRange', () => {
  it('splits key groups as computeKeyGroupRangeForOperatorIndex', () => {
    assert.deepEqual(bounds(128, 1), [[0, 127, 128]]);
    assert.deepEqual(bounds(128, 3), [
      [0, 42, 43],
      [43, 85, 43],
      [86, 127, 42],
    ]);
    assert.deepEqual(bounds(10, 4), [
      [0, 2, 3],
      [3, 4, 2],
      [5, 7, 3],
      [8, 9, 2],
    ]);
    assert.deepEqual(bounds(5, 5), [
      [0, 0, 1],
      [1, 1, 1],
      [2, 2, 1],
      [3, 3, 1],
      [4, 4, 1],
    ]);
    assert.equal(DEFAULT_MAX_PARALLELISM, 128);
  });

  it('contains its bounds and nothing outside them', () => {
    const r = new KeyGroupRange(3, 5);
    assert.deepEqual(
      [2, 3, 4, 5, 6].map((kg) => r.contains(kg)),
      [false, true, true, true, false],
    );
  });

  it('assigns a key group to the subtask whose range holds it', () => {
    assert.deepEqual(
      [0, 42, 43, 85, 86, 127].map((kg) => subtaskForKeyGroup(kg, 128, 3)),
      [0, 0, 1, 1, 2, 2],
    );
  });

  it('rejects parallelism and max parallelism that cannot work, naming the operator and the value', () => {
    const fails = (p: number, maxP: number) => {
      try {
        checkParallelism('sum', p, maxP);
        return 'ok';
      } catch (e) {
        return String(e);
      }
    };
    assert.deepEqual(
      [fails(1, 1), fails(3, 128), fails(32768, 32768), fails(128, 128)],
      ['ok', 'ok', 'ok', 'ok'],
    );
    for (const p of [0, -1, 1.5, Number.NaN]) {
      assert.equal(
        fails(p, 128),
        `ConfigurationError: Operator 'sum': parallelism must be a positive integer, got ${p}`,
      );
    }
    for (const maxP of [0, 32769, 2.5]) {
      assert.equal(
        fails(1, maxP),
        `ConfigurationError: Operator 'sum': max parallelism must be an integer in 1..32768, got ${maxP}`,
      );
    }
    assert.equal(fails(5, 4), "ConfigurationError: Operator 'sum': parallelism 5 exceeds max parallelism 4");
  });
});
