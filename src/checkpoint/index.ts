// Fault tolerance: checkpoints, savepoints, restart strategies, state backends and exactly-once sinks.

// ── Configuration ────────────────────────────────────────────────────────────
export type { CheckpointingOptions, CheckpointConfig, CheckpointEvent } from './checkpoint-config.ts';
export { RestartStrategies } from './restart-strategies.ts';
export type { RestartStrategy, ExponentialDelayOptions } from './restart-strategies.ts';

// ── State backends ───────────────────────────────────────────────────────────
export { StateBackends, HeapStateBackend } from './state-backend.ts';
export type { StateBackend, KeyedBackendContext } from './state-backend.ts';
export { LmdbStateBackend } from '../state/lmdb/lmdb-state-backend.ts';
export type { LmdbStateBackendOptions } from '../state/lmdb/lmdb-state-backend.ts';

// ── Running jobs, savepoints ─────────────────────────────────────────────────
export { JobClient } from './job-client.ts';
export { JobCancelledError } from './job-cancelled-error.ts';
export { CheckpointFailureError } from './checkpoint-coordinator.ts';
export { loadSavepoint, loadLatestCheckpoint, loadSnapshotDirectory } from './checkpoint-storage.ts';
export type { LoadedCheckpoint } from './checkpoint-storage.ts';
export { CorruptCheckpointError } from './checkpoint-metadata.ts';
export type { CheckpointMetadata } from './checkpoint-metadata.ts';
export type { CheckpointedJobSnapshot } from './checkpointed-job-snapshot.ts';

// ── Exactly-once sinks ───────────────────────────────────────────────────────
export { TwoPhaseCommitFileSink } from './two-phase-commit-file-sink.ts';
export type { TwoPhaseCommitFileSinkOptions } from './two-phase-commit-file-sink.ts';
