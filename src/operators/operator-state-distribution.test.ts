// Operator state on restore: each distribution mode's share per new subtask, and when a restore is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canRedistribute, operatorStateShare } from './operator-state-distribution.ts';

/** The shares of subtasks 0..parallelism-1. */
function shares(
  mode: Parameters<typeof operatorStateShare>[0],
  states: readonly unknown[],
  parallelism: number,
): unknown[] {
  return Array.from({ length: parallelism }, (_, i) => operatorStateShare(mode, states, i, parallelism));
}

describe('operatorStateShare', () => {
  it("'per-subtask': subtask i gets old subtask i's state, or nothing", () => {
    assert.deepEqual(shares('per-subtask', ['a', undefined, 'c'], 3), ['a', undefined, 'c']);
  });

  it("'broadcast': subtask i gets old subtask i % old parallelism's copy; nothing from an empty snapshot", () => {
    assert.deepEqual(shares('broadcast', ['a', 'b'], 5), ['a', 'b', 'a', 'b', 'a']);
    assert.deepEqual(shares('broadcast', ['a', 'b', 'c'], 2), ['a', 'b']);
    assert.deepEqual(shares('broadcast', [], 2), [undefined, undefined]);
  });

  it("'union': every subtask gets all old states, unless none had any", () => {
    const states = [undefined, 'b', undefined];
    assert.deepEqual(shares('union', states, 2), [states, states]);
    assert.equal(operatorStateShare('union', states, 0, 2), states);
    assert.deepEqual(shares('union', [undefined, undefined], 2), [undefined, undefined]);
    assert.deepEqual(shares('union', [], 1), [undefined]);
  });

  it("'redistribute': subtask i gets the old states j with j % parallelism === i, skipping empty ones", () => {
    // 5 old subtasks onto 2: 0 gets 0, 2, 4; 1 gets 1, 3.
    assert.deepEqual(shares('redistribute', ['s0', 's1', 's2', 's3', 's4'], 2), [
      ['s0', 's2', 's4'],
      ['s1', 's3'],
    ]);
    // 2 old subtasks onto 3: the third gets nothing; an old subtask without state gives nothing.
    assert.deepEqual(shares('redistribute', ['s0', 's1'], 3), [['s0'], ['s1'], undefined]);
    assert.deepEqual(shares('redistribute', ['s0', undefined, 's2', undefined], 2), [
      ['s0', 's2'],
      undefined,
    ]);
    // The same parallelism: each its own.
    assert.deepEqual(shares('redistribute', ['s0', 's1'], 2), [['s0'], ['s1']]);
  });
});

describe('canRedistribute', () => {
  it('refuses per-subtask state at another parallelism unless no old subtask had any', () => {
    assert.equal(canRedistribute('per-subtask', ['a', 'b'], 2), true);
    assert.equal(canRedistribute('per-subtask', ['a', 'b'], 3), false);
    assert.equal(canRedistribute('per-subtask', ['a', 'b'], 1), false);
    assert.equal(canRedistribute('per-subtask', [undefined, 'b'], 3), false);
    assert.equal(canRedistribute('per-subtask', [undefined, undefined], 3), true);
  });

  it('accepts every other mode at any parallelism', () => {
    for (const mode of ['redistribute', 'union', 'broadcast'] as const) {
      assert.equal(canRedistribute(mode, ['a', 'b'], 3), true, mode);
      assert.equal(canRedistribute(mode, ['a', 'b'], 1), true, mode);
    }
  });
});
