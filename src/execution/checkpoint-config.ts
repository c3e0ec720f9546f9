// CheckpointConfig: how often and where a job checkpoints, and how failed checkpoints are tolerated.
import { ConfigurationError } from '../core/errors.ts';

/**
 * What a checkpoint listener hears: a checkpoint triggered (`final` for the last one of a bounded job, taken once
 * every source ended), completed (with its cost; heard before sinks commit it), or failed (with the reason).
 */
export type CheckpointEvent =
  | { type: 'triggered'; checkpointId: number; kind: 'checkpoint' | 'savepoint'; final: boolean }
  | {
      type: 'completed';
      checkpointId: number;
      kind: 'checkpoint' | 'savepoint';
      durationMs: number;
      bytesWritten: number;
      path: string;
    }
  | { type: 'failed'; checkpointId: number; kind: 'checkpoint' | 'savepoint'; reason: string };

/** Options of `env.enableCheckpointing(intervalMs, options)`. */
export interface CheckpointingOptions {
  /** Only exactly-once (aligned barriers) is implemented; at-least-once would skip alignment. */
  readonly mode?: 'exactly-once';
  /** The directory checkpoints are written to (`chk-<id>/`, `shared/`). */
  readonly storage: string;
  /** Completed checkpoints kept (default 3); older ones are deleted with the data only they referenced. */
  readonly retained?: number;
  /** A checkpoint not complete after this long is aborted (default 60 s). */
  readonly timeoutMs?: number;
  /** Checkpoints in flight at once (default 1); a due trigger is skipped while the limit is reached. */
  readonly maxConcurrent?: number;
  /** Consecutive failed checkpoints tolerated before the job fails (default 0, as in Flink). */
  readonly tolerableFailures?: number;
  /** Hears every completed and failed checkpoint (default: failures are logged to stderr). */
  readonly listener?: (event: CheckpointEvent) => void;
}

/** The validated checkpoint settings of a job. */
export interface CheckpointConfig extends Required<Omit<CheckpointingOptions, 'listener' | 'mode'>> {
  readonly intervalMs: number;
  readonly listener: ((event: CheckpointEvent) => void) | undefined;
}

/** Validates `enableCheckpointing` arguments, naming the bad value. */
export function checkpointConfig(intervalMs: number, options: CheckpointingOptions): CheckpointConfig {
  if (!(intervalMs >= 1) || !Number.isFinite(intervalMs)) {
    throw new ConfigurationError(`The checkpoint interval must be at least 1 ms, got ${intervalMs}`);
  }
  if (options === undefined || typeof options.storage !== 'string' || options.storage.length === 0) {
    throw new ConfigurationError(
      'enableCheckpointing needs a storage directory: { storage: "/path/to/checkpoints" }',
    );
  }
  if (options.mode !== undefined && options.mode !== 'exactly-once') {
    throw new ConfigurationError(
      `Checkpointing mode '${String(options.mode)}' is not supported; use 'exactly-once'`,
    );
  }
  const positive = (name: string, value: number | undefined, fallback: number, min: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < min) {
      throw new ConfigurationError(`Checkpoint option ${name} must be an integer >= ${min}, got ${value}`);
    }
    return value;
  };
  return {
    intervalMs,
    storage: options.storage,
    retained: positive('retained', options.retained, 3, 1),
    timeoutMs: positive('timeoutMs', options.timeoutMs, 60_000, 1),
    maxConcurrent: positive('maxConcurrent', options.maxConcurrent, 1, 1),
    tolerableFailures: positive('tolerableFailures', options.tolerableFailures, 0, 0),
    listener: options.listener,
  };
}
