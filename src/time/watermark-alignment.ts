// WatermarkAlignment: the settings of Flink's watermark alignment, which pauses a source subtask that runs ahead.
import { ConfigurationError } from '../core/errors.ts';

/** How often a paused source subtask looks again by default (Flink's default update interval: 1 s). */
export const DEFAULT_ALIGNMENT_UPDATE_INTERVAL_MS = 1000;

/**
 * Watermark alignment as Flink's `WatermarkStrategy.withWatermarkAlignment(group, maxAllowedWatermarkDrift,
 * updateInterval)`: every source subtask whose strategy names the same group (of any source of the job) belongs to
 * it, and a subtask whose watermark is ahead of the group's lowest by more than `maxAllowedDriftMs` is not polled
 * until the others catch up. What a subtask's records are and which are late does not change; only the order in
 * which the group's subtasks emit, and so how long downstream operators hold what the leading ones sent.
 */
export interface WatermarkAlignment {
  /** The group's name: subtasks of every source that names it are aligned with each other. */
  readonly group: string;
  /** How far, in ms of event time, a subtask's watermark may run ahead of the group's lowest before it pauses. */
  readonly maxAllowedDriftMs: number;
  /**
   * How often, in ms of processing time, a paused subtask looks again at the group's lowest watermark (Flink: how
   * often source subtasks report their watermark and the coordinator announces the group's).
   */
  readonly updateIntervalMs: number;
}

/** Checks the arguments of `withWatermarkAlignment`. */
export function checkWatermarkAlignment(
  group: string,
  maxAllowedDriftMs: number,
  updateIntervalMs: number,
): WatermarkAlignment {
  if (typeof group !== 'string' || group.length === 0) {
    throw new ConfigurationError(
      `The watermark alignment group must be a non-empty string, got ${String(group)}`,
    );
  }
  if (!(maxAllowedDriftMs >= 0) || !Number.isFinite(maxAllowedDriftMs)) {
    throw new ConfigurationError(
      `The maximum allowed watermark drift must be a finite number of milliseconds ≥ 0, got ${maxAllowedDriftMs}`,
    );
  }
  if (!(updateIntervalMs > 0) || !Number.isFinite(updateIntervalMs)) {
    throw new ConfigurationError(
      `The watermark alignment update interval must be a positive number of milliseconds, got ${updateIntervalMs}`,
    );
  }
  return { group, maxAllowedDriftMs, updateIntervalMs };
}
