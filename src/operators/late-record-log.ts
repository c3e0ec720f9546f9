// LateRecordLog: logs the late records an operator drops, rate-limited: the first at once, then counts.
import type { OperatorContext } from './stream-operator.ts';

/** The least processing time between two count lines of one subtask. */
export const LATE_RECORD_LOG_INTERVAL_MS = 60_000;

/**
 * The log side of an operator's `numLateRecordsDropped`. The operator counts every drop with a field increment
 * (the record path allocates nothing) and calls {@link first} only when the count becomes 1; it calls
 * {@link report} at each watermark and at close, which writes one line with the drops since the last line when
 * `intervalMs` of processing time passed since it (always at close), so a stream of late records costs one line a
 * minute per subtask. Flink counts late records but does not log them.
 */
export class LateRecordLog {
  /** The count the last line stated. */
  logged = 0;
  private lastLineAt = 0;

  constructor(
    private readonly context: OperatorContext,
    /** How the operator names itself in the lines (`window operator`, `CEP operator`). */
    private readonly kind: string,
    private readonly intervalMs = LATE_RECORD_LOG_INTERVAL_MS,
  ) {}

  /** The first late record dropped: its timestamp and the watermark it was behind. */
  first(timestamp: number, watermark: number): void {
    const { context } = this;
    this.logged = 1;
    this.lastLineAt = context.clock.now();
    context.logger.warn(
      { operator: context.operatorName, subtask: context.subtaskIndex, timestamp, watermark },
      `${this.kind} '${context.operatorName}' (subtask ${context.subtaskIndex}) dropped a late record: timestamp ${timestamp} is behind watermark ${watermark} and no late-data side output is set; further drops are counted in numLateRecordsDropped and logged at most once every ${this.intervalMs / 1000} s`,
    );
  }

  /** Logs the drops since the last line (`total` counted so far) when the interval passed, or always with `force`. */
  report(total: number, force: boolean): void {
    if (total === this.logged) return;
    const { context } = this;
    const now = context.clock.now();
    if (!force && now - this.lastLineAt < this.intervalMs) return;
    const dropped = total - this.logged;
    this.logged = total;
    this.lastLineAt = now;
    context.logger.warn(
      { operator: context.operatorName, subtask: context.subtaskIndex, dropped, total },
      `${this.kind} '${context.operatorName}' (subtask ${context.subtaskIndex}) dropped ${dropped} more late record${dropped === 1 ? '' : 's'} (${total} in all)`,
    );
  }
}
