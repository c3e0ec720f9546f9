// JobSnapshot: the state of a whole job (keyed state, timers, operator state) by operator uid and key group.
import type { KeyGroupSnapshot } from '../state/keyed-state-backend.ts';

/** One operator's share of a snapshot. Keyed parts are by key group, so they can be restored at any parallelism. */
export interface OperatorSnapshot {
  readonly parallelism: number;
  readonly keyedState: KeyGroupSnapshot[];
  readonly timers: KeyGroupSnapshot[];
  /** Non-keyed operator state by subtask index (e.g. source positions). */
  readonly operatorState: unknown[];
}

/**
 * A snapshot of a job, serializable with `v8.serialize` / structured clone. Restoring matches operators by uid
 * (set it with `.uid()` to keep snapshots valid across changes of the job's shape).
 */
export interface JobSnapshot {
  readonly version: 1;
  readonly operators: Record<string, OperatorSnapshot>;
}
