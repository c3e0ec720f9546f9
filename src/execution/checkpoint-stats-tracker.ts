// CheckpointStatsTracker: counts, the latest and a bounded history of checkpoints, for metrics and the REST API.

/** One checkpoint as the REST API and the dashboard show it (Flink's checkpoint statistics). */
export interface CheckpointStats {
  readonly id: number;
  readonly kind: 'checkpoint' | 'savepoint';
  status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  /** When it was triggered (ms since the epoch). */
  readonly triggerTimestamp: number;
  /** When it completed or failed. */
  latestAckTimestamp: number | undefined;
  /** Trigger to durable, in ms. */
  endToEndDurationMs: number | undefined;
  /** Bytes written for it (incremental checkpoints: only the changed key groups). */
  stateSize: number;
  /** Bytes per operator uid. */
  operatorStateSize: Record<string, number>;
  /** Longest barrier alignment among its subtasks, in ms. */
  alignmentMs: number;
  externalPath: string | undefined;
  failureMessage: string | undefined;
}

/** How many finished checkpoints the history keeps (Flink's `web.checkpoints.history` default). */
export const CHECKPOINT_HISTORY_SIZE = 10;

/**
 * Flink's CheckpointStatsTracker for one job, fed by the checkpoint coordinator. The history keeps the newest
 * checkpoints (in-progress ones included), newest first.
 */
export class CheckpointStatsTracker {
  numberOfCompletedCheckpoints = 0;
  numberOfFailedCheckpoints = 0;
  numberOfInProgressCheckpoints = 0;
  lastCompleted: CheckpointStats | undefined = undefined;
  lastFailed: CheckpointStats | undefined = undefined;
  lastSavepoint: CheckpointStats | undefined = undefined;
  /** The checkpoint the job was last restored from, and when. */
  restored: { id: number; timestamp: number; path: string | undefined } | undefined = undefined;
  private readonly recent: CheckpointStats[] = [];
  private readonly inFlight = new Map<number, CheckpointStats>();

  get totalNumberOfCheckpoints(): number {
    return (
      this.numberOfCompletedCheckpoints + this.numberOfFailedCheckpoints + this.numberOfInProgressCheckpoints
    );
  }

  /** Newest first. */
  history(): readonly CheckpointStats[] {
    return this.recent;
  }

  reportPending(id: number, kind: CheckpointStats['kind'], triggerTimestamp: number): void {
    this.numberOfInProgressCheckpoints++;
    const stats: CheckpointStats = {
      id,
      kind,
      status: 'IN_PROGRESS',
      triggerTimestamp,
      latestAckTimestamp: undefined,
      endToEndDurationMs: undefined,
      stateSize: 0,
      operatorStateSize: {},
      alignmentMs: 0,
      externalPath: undefined,
      failureMessage: undefined,
    };
    this.inFlight.set(id, stats);
    this.recent.unshift(stats);
    if (this.recent.length > CHECKPOINT_HISTORY_SIZE) this.recent.length = CHECKPOINT_HISTORY_SIZE;
  }

  reportCompleted(
    id: number,
    now: number,
    path: string,
    sizes: { total: number; perOperator: Record<string, number>; alignmentMs: number },
  ): void {
    const stats = this.inFlight.get(id);
    if (stats === undefined) return;
    this.inFlight.delete(id);
    this.numberOfInProgressCheckpoints--;
    this.numberOfCompletedCheckpoints++;
    stats.status = 'COMPLETED';
    stats.latestAckTimestamp = now;
    stats.endToEndDurationMs = now - stats.triggerTimestamp;
    stats.stateSize = sizes.total;
    stats.operatorStateSize = sizes.perOperator;
    stats.alignmentMs = sizes.alignmentMs;
    stats.externalPath = path;
    if (stats.kind === 'savepoint') this.lastSavepoint = stats;
    else this.lastCompleted = stats;
  }

  reportFailed(id: number, now: number, reason: string): void {
    const stats = this.inFlight.get(id);
    if (stats === undefined) return;
    this.inFlight.delete(id);
    this.numberOfInProgressCheckpoints--;
    this.numberOfFailedCheckpoints++;
    stats.status = 'FAILED';
    stats.latestAckTimestamp = now;
    stats.endToEndDurationMs = now - stats.triggerTimestamp;
    stats.failureMessage = reason;
    this.lastFailed = stats;
  }

  reportRestored(id: number, timestamp: number, path: string | undefined): void {
    this.restored = { id, timestamp, path };
  }
}
