// SubtaskStateSnapshot: what one subtask contributes to a checkpoint, taken synchronously when its barrier aligns.
import type { Subtask } from './subtask.ts';
import type { KeyGroupSnapshot } from '../state/keyed-state-backend.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import {
  supportsIncrementalSnapshots,
  type IncrementalKeyGroupSnapshot,
} from '../state/incremental-snapshot.ts';

/** One subtask's share of a checkpoint. Keyed parts are by key group; unchanged groups carry no bytes. */
export interface SubtaskStateSnapshot {
  readonly keyedState: IncrementalKeyGroupSnapshot[];
  readonly timers: KeyGroupSnapshot[];
  /** Operator state (a source's position, a sink's pending commits), structured-cloned at the barrier. */
  readonly operatorState: unknown;
  /** The subtask had finished (all input ended) when the checkpoint saw it. */
  readonly finished: boolean;
}

/**
 * Snapshots a subtask. Everything is copied into bytes or clones before returning, so the subtask may continue
 * processing at once: the rest of the checkpoint (assembling, writing) happens off the record path.
 */
export function takeSubtaskSnapshot(subtask: Subtask, barrier: CheckpointBarrier): SubtaskStateSnapshot {
  const backend = subtask.backend;
  if (backend !== undefined) subtask.operator.prepareKeyedStateSnapshot();
  const keyedState =
    backend === undefined
      ? []
      : barrier.kind === 'checkpoint' && supportsIncrementalSnapshots(backend)
        ? backend.snapshotIncremental(barrier.id)
        : backend.snapshot();
  const operatorState = subtask.operator.snapshotOperatorState({
    checkpointId: barrier.id,
    kind: barrier.kind,
  });
  return {
    keyedState,
    timers: subtask.timers?.snapshot(subtask.node.maxParallelism) ?? [],
    operatorState: structuredClone(operatorState),
    finished: subtask.isFinished,
  };
}
