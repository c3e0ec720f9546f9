// The key-group → partition mapping of a repartition topic: contiguous key-group ranges, as subtasks own them.
import { ConfigurationError } from '../../core/errors.ts';
import { KeyGroupRange, subtaskForKeyGroup } from '../../state/key-group-range.ts';
import { keyGroupFor, normalizeKey } from '../../state/key-hash.ts';

/**
 * Partition `p` of a topic of `partitions` partitions holds exactly the key groups subtask `p` of an operator of
 * parallelism `partitions` would own (`floor(keyGroup * partitions / maxParallelism)`, Flink's
 * `KeyGroupRangeAssignment`). So a task that reads one partition owns one contiguous key-group range, its keyed
 * state is the state of those key groups, and a savepoint taken in one process restores into tasks and back
 * (key groups keep their meaning whatever the number of partitions). The number of partitions is at most the
 * max parallelism, or some partition would hold no key group.
 */
export function partitionForKeyGroup(keyGroup: number, maxParallelism: number, partitions: number): number {
  return subtaskForKeyGroup(keyGroup, maxParallelism, partitions);
}

/** The key groups held by `partition`, `start` to `end` inclusive: the inverse of {@link partitionForKeyGroup}. */
export function keyGroupsOfPartition(
  partition: number,
  maxParallelism: number,
  partitions: number,
): { readonly start: number; readonly end: number } {
  const { start, end } = KeyGroupRange.forSubtask(maxParallelism, partitions, partition);
  return { start, end };
}

/** The partition a key goes to: its key group (Weir's stable key hash), then that key group's partition. */
export function partitionForKey(key: unknown, maxParallelism: number, partitions: number): number {
  return partitionForKeyGroup(keyGroupFor(normalizeKey(key), maxParallelism), maxParallelism, partitions);
}

/** Rejects a partition count that cannot carry `maxParallelism` key groups, naming the topic. */
export function checkRepartitionTopic(topic: string, partitions: number, maxParallelism: number): void {
  if (!Number.isInteger(maxParallelism) || maxParallelism < 1 || maxParallelism > 32768)
    throw new ConfigurationError(
      `Repartition topic '${topic}': max parallelism must be an integer in 1..32768, got ${maxParallelism}`,
    );
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > maxParallelism)
    throw new ConfigurationError(
      `Repartition topic '${topic}' has ${partitions} partitions; it needs 1 to ${maxParallelism} (the max parallelism), ` +
        'one contiguous range of key groups per partition',
    );
}
