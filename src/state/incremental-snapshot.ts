// The optional capability of a keyed state backend to snapshot only the key groups changed since the last checkpoint.
import type { KeyedStateBackend } from './keyed-state-backend.ts';

/** A key group in an incremental snapshot: its bytes, or `undefined` when unchanged since the last completed one. */
export interface IncrementalKeyGroupSnapshot {
  readonly keyGroup: number;
  readonly bytes: Uint8Array | undefined;
}

/**
 * A backend that tracks which key groups changed. The checkpoint storage then writes only changed groups and
 * references the earlier bytes of the others (Flink's incremental RocksDB checkpoints, at key-group grain).
 * `notifyCheckpointComplete` tells it which snapshot later ones may build on; a snapshot whose checkpoint never
 * completes is never used as a base.
 */
export interface IncrementalSnapshotBackend extends KeyedStateBackend {
  snapshotIncremental(checkpointId: number): IncrementalKeyGroupSnapshot[];
  notifyCheckpointComplete(checkpointId: number): void;
}

export function supportsIncrementalSnapshots(
  backend: KeyedStateBackend | undefined,
): backend is IncrementalSnapshotBackend {
  return (
    backend !== undefined &&
    typeof (backend as Partial<IncrementalSnapshotBackend>).snapshotIncremental === 'function'
  );
}
