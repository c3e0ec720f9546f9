// Key groups: the unit in which keyed state is partitioned, snapshotted and redistributed on rescale.
import { ConfigurationError } from '../core/errors.ts';

/** The default number of key groups, as Flink's default max parallelism for small jobs. */
export const DEFAULT_MAX_PARALLELISM = 128;

/** An inclusive range of key groups owned by one subtask. */
export class KeyGroupRange {
  constructor(
    readonly start: number,
    readonly end: number,
  ) {}

  contains(keyGroup: number): boolean {
    return keyGroup >= this.start && keyGroup <= this.end;
  }

  get size(): number {
    return this.end - this.start + 1;
  }

  /**
   * The key groups of subtask `index` of `parallelism`, as Flink's
   * `KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex`: contiguous, and consistent with
   * {@link subtaskForKeyGroup}.
   */
  static forSubtask(maxParallelism: number, parallelism: number, index: number): KeyGroupRange {
    const start = Math.floor((index * maxParallelism + parallelism - 1) / parallelism);
    const end = Math.floor(((index + 1) * maxParallelism - 1) / parallelism);
    return new KeyGroupRange(start, end);
  }
}

/** The subtask that owns a key group: `floor(keyGroup * parallelism / maxParallelism)`. */
export function subtaskForKeyGroup(keyGroup: number, maxParallelism: number, parallelism: number): number {
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}

/** Rejects a parallelism / max parallelism pair that cannot work, naming the operator. */
export function checkParallelism(operator: string, parallelism: number, maxParallelism: number): void {
  if (!Number.isInteger(parallelism) || parallelism < 1) {
    throw new ConfigurationError(
      `Operator '${operator}': parallelism must be a positive integer, got ${parallelism}`,
    );
  }
  if (!Number.isInteger(maxParallelism) || maxParallelism < 1 || maxParallelism > 32768) {
    throw new ConfigurationError(
      `Operator '${operator}': max parallelism must be an integer in 1..32768, got ${maxParallelism}`,
    );
  }
  if (parallelism > maxParallelism) {
    throw new ConfigurationError(
      `Operator '${operator}': parallelism ${parallelism} exceeds max parallelism ${maxParallelism}`,
    );
  }
}
