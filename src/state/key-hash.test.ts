// Key hashing must never change between releases: snapshots and key-group routing depend on it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { denormalizeKey, hashKey, keyGroupFor, normalizeKey } from './key-hash.ts';
import { KeyGroupRange, subtaskForKeyGroup } from './key-group-range.ts';

describe('key hashing', () => {
  it('is stable: fixed vectors', () => {
    // Changing these values breaks every existing snapshot; they must only ever be extended.
    assert.deepEqual(
      ['user-1', 'a', '', 0, 7, -3, 2.5, 10n].map((k) => keyGroupFor(normalizeKey(k), 128)),
      [11, 117, 40, 102, 40, 11, 34, 44],
    );
    assert.equal(hashKey('user-1'), 416356107);
    assert.equal(hashKey(7), hashKey(7.0));
    assert.equal(normalizeKey(-0), 0);
  });

  it('spreads keys over key groups', () => {
    const counts = new Array(128).fill(0);
    for (let i = 0; i < 128_000; i++) counts[keyGroupFor(normalizeKey(`k${i}`), 128)]++;
    assert.ok(
      Math.min(...counts) > 800 && Math.max(...counts) < 1200,
      `${Math.min(...counts)}..${Math.max(...counts)}`,
    );
  });

  it('normalises composite keys canonically and inverts them', () => {
    const a = normalizeKey({ b: [1, 'x', 2n], a: { z: true, y: 'q' } });
    const b = normalizeKey({ a: { y: 'q', z: true }, b: [1, 'x', 2n] });
    assert.equal(a, b);
    assert.deepEqual(denormalizeKey(a), { a: { y: 'q', z: true }, b: [1, 'x', 2n] });
    assert.throws(() => normalizeKey(new Date()), /plain objects/);
    assert.throws(() => normalizeKey(Number.NaN), /NaN/);
    assert.throws(() => normalizeKey(undefined), /Unsupported key/);
  });

  it('assigns key groups to subtasks consistently with the subtask ranges', () => {
    for (const [maxP, p] of [
      [128, 1],
      [128, 3],
      [128, 7],
      [10, 4],
      [5, 5],
    ] as const) {
      for (let i = 0; i < p; i++) {
        const range = KeyGroupRange.forSubtask(maxP, p, i);
        for (let kg = range.start; kg <= range.end; kg++) assert.equal(subtaskForKeyGroup(kg, maxP, p), i);
      }
    }
  });
});
