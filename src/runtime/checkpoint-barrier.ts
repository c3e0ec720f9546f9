// CheckpointBarrier: the marker sources inject into their output; everything before it belongs to the checkpoint.
/**
 * Flows with the records on every channel. A subtask snapshots its state once it has seen the barrier on every
 * input channel (aligned), then forwards it, so the snapshots of all subtasks together describe one consistent
 * cut through the stream (Chandy–Lamport, as in Flink's asynchronous barrier snapshotting).
 */
export interface CheckpointBarrier {
  readonly id: number;
  /** Wall-clock time the checkpoint was triggered. */
  readonly timestamp: number;
  /** Savepoints snapshot in full (self-contained); checkpoints may be incremental. */
  readonly kind: 'checkpoint' | 'savepoint';
}
