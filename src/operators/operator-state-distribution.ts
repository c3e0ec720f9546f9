// How an operator's state reaches the subtasks of a restored job, at the snapshot's parallelism or another one.

/**
 * The one restore contract of operator state (Flink's operator-state modes). A snapshot holds one state per old
 * subtask; on restore each new subtask gets a share, computed from plain data alone, so it can be computed in any
 * thread or process that holds the snapshot:
 *
 * - `'per-subtask'`: subtask i gets old subtask i's state. At another parallelism such state cannot be placed
 *   exactly, so a restore that would need to is refused (naming the operator and both parallelisms).
 * - `'redistribute'` (Flink's `getListState`): every old state is restored exactly once somewhere; subtask i gets
 *   the list of the old states j with `j % parallelism === i` (at the same parallelism, its own).
 * - `'union'` (Flink's `getUnionListState`): every subtask gets the states of all old subtasks, indexed by old
 *   subtask, and keeps its part. Sources use it: their states are split lists, reassigned by the source's
 *   enumerator.
 * - `'broadcast'` (Flink's broadcast state): every subtask holds a full copy; subtask i gets old subtask
 *   `i % oldParallelism`'s copy, so no subtask starts empty.
 */
export type OperatorStateDistribution = 'per-subtask' | 'redistribute' | 'union' | 'broadcast';

/**
 * Subtask `subtaskIndex`'s share of `states` (one per old subtask; undefined where an old subtask had none), or
 * undefined when it gets nothing. `'redistribute'` shares are arrays of old states, `'union'` shares the whole
 * `states` array; the other modes share one old state.
 */
export function operatorStateShare(
  distribution: OperatorStateDistribution,
  states: readonly unknown[],
  subtaskIndex: number,
  parallelism: number,
): unknown {
  switch (distribution) {
    case 'per-subtask':
      return states[subtaskIndex];
    case 'broadcast':
      return states.length === 0 ? undefined : states[subtaskIndex % states.length];
    case 'union':
      return states.some((s) => s !== undefined) ? states : undefined;
    case 'redistribute': {
      const share: unknown[] = [];
      for (let j = subtaskIndex; j < states.length; j += parallelism) {
        if (states[j] !== undefined) share.push(states[j]);
      }
      return share.length === 0 ? undefined : share;
    }
  }
}

/**
 * Whether a restore from `states`, taken at `states.length` subtasks, can give every state a place at
 * `parallelism`: always, except for per-subtask state at another parallelism.
 */
export function canRedistribute(
  distribution: OperatorStateDistribution,
  states: readonly unknown[],
  parallelism: number,
): boolean {
  return (
    distribution !== 'per-subtask' || states.length === parallelism || states.every((s) => s === undefined)
  );
}
