// Ported DeweyNumberTest: version generation and compatibility, plus increase by more than one and equality.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addStage, deweyEquals, increase, isCompatibleWith, START_VERSION } from './dewey-number.ts';

describe('DeweyNumber (ported from Flink DeweyNumberTest)', () => {
  it('testDeweyNumberGeneration', () => {
    const start = START_VERSION;
    const increased = increase(start);
    const increaseAddStage = addStage(increased);
    const startAddStage = addStage(start);
    const startAddStageIncreased = increase(startAddStage);
    const startAddStageIncreasedAddStage = addStage(startAddStageIncreased);

    assert.deepEqual(start, [1]);
    assert.deepEqual(increased, [2]);
    assert.deepEqual(increaseAddStage, [2, 0]);
    assert.deepEqual(startAddStage, [1, 0]);
    assert.deepEqual(startAddStageIncreased, [1, 1]);
    assert.deepEqual(startAddStageIncreasedAddStage, [1, 1, 0]);

    assert.equal(isCompatibleWith(startAddStage, start), true);
    assert.equal(isCompatibleWith(startAddStageIncreased, startAddStage), true);
    assert.equal(isCompatibleWith(startAddStageIncreasedAddStage, startAddStageIncreased), true);
    assert.equal(isCompatibleWith(startAddStageIncreasedAddStage, startAddStage), false);
    assert.equal(isCompatibleWith(increaseAddStage, startAddStage), false);
    assert.equal(isCompatibleWith(startAddStage, increaseAddStage), false);
    assert.equal(isCompatibleWith(startAddStageIncreased, startAddStageIncreasedAddStage), false);
  });

  it('same length: compatible when the leading digits are equal and the last is at least the other', () => {
    assert.equal(isCompatibleWith([1, 2], [1, 2]), true);
    assert.equal(isCompatibleWith([1, 3], [1, 2]), true);
    assert.equal(isCompatibleWith([1, 1], [1, 2]), false);
    assert.equal(isCompatibleWith([2, 2], [1, 2]), false);
  });

  it('increase by n, by 0 (the same version), and never in place', () => {
    const v = [1, 0];
    assert.deepEqual(increase(v, 3), [1, 3]);
    assert.equal(increase(v, 0), v);
    assert.deepEqual(v, [1, 0]);
    assert.deepEqual(addStage(v), [1, 0, 0]);
    assert.equal(addStage(v).length, 3);
  });

  it('equality by digits', () => {
    assert.equal(deweyEquals([1, 0], [1, 0]), true);
    assert.equal(deweyEquals([1, 0], [1, 1]), false);
    assert.equal(deweyEquals([1, 0], [1, 0, 0]), false);
    assert.equal(deweyEquals([1], [2]), false);
    const v = [1, 2];
    assert.equal(deweyEquals(v, v), true);
  });
});
