// The key-group → partition mapping: contiguous ranges, the inverse, and the bounds on the partition count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../../core/errors.ts';
import {
  checkRepartitionTopic,
  keyGroupsOfPartition,
  partitionForKey,
  partitionForKeyGroup,
} from './repartition-partitioner.ts';

describe('repartition partitioner', () => {
  it('gives each partition one contiguous range of key groups, as subtasks own them', () => {
    const owners = Array.from({ length: 10 }, (_, kg) => partitionForKeyGroup(kg, 10, 3));
    assert.deepEqual(owners, [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
    assert.deepEqual(
      [0, 1, 2].map((p) => keyGroupsOfPartition(p, 10, 3)).map((r) => [r.start, r.end]),
      [
        [0, 3],
        [4, 6],
        [7, 9],
      ],
    );
    for (let kg = 0; kg < 128; kg++) {
      const { start, end } = keyGroupsOfPartition(partitionForKeyGroup(kg, 128, 5), 128, 5);
      assert.ok(start <= kg && kg <= end, `key group ${kg}`);
    }
  });

  it('sends a key to the partition of its key group (max parallelism 128, 4 partitions)', () => {
    // Key groups: 'b' 3, 'c' 61, 'f' 91, 'a' 117.
    assert.deepEqual(
      ['b', 'c', 'f', 'a'].map((k) => partitionForKey(k, 128, 4)),
      [0, 1, 2, 3],
    );
  });

  it('refuses more partitions than key groups', () => {
    checkRepartitionTopic('t', 128, 128);
    assert.throws(() => checkRepartitionTopic('t', 129, 128), ConfigurationError);
    assert.throws(() => checkRepartitionTopic('t', 0, 128), /needs 1 to 128/);
  });
});
