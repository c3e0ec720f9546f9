// CheckpointedJobSnapshot: a JobSnapshot as a checkpoint or savepoint restores it, with the checkpoint's id.
import type { JobSnapshot, OperatorSnapshot } from './job-snapshot.ts';

/** An operator's snapshot plus which of its subtasks had finished (they are not run again on restore). */
export interface CheckpointedOperatorSnapshot extends OperatorSnapshot {
  readonly finished: boolean[];
}

/**
 * What `loadCheckpoint` / `loadSavepoint` return: a plain {@link JobSnapshot} (so `restoreFrom` takes it) that also
 * names the checkpoint, which two-phase-commit sinks need to know what to commit and what to discard.
 *
 * @example
 * const snapshot = await loadSavepoint('/savepoints/savepoint-7-1a2b');
 * await env.execute('job', { restoreFrom: snapshot });
 */
export interface CheckpointedJobSnapshot extends JobSnapshot {
  readonly checkpointId: number;
  readonly kind: 'checkpoint' | 'savepoint';
  readonly operators: Record<string, CheckpointedOperatorSnapshot>;
}
