// IdlenessLog: logs a source's (or a split's) passage between idle and active, as its watermark stops or resumes counting.
import type { Logger } from '../core/logger.ts';

/**
 * One line per transition, at `info`: idleness is normal operation (a quiet partition, a source between
 * bursts), but it explains why downstream event time moved on without an input, or waited for it again. Flink
 * only exposes idleness through the watermark status; Weir logs it as well.
 */
export class IdlenessLog {
  constructor(
    private readonly logger: Logger,
    private readonly operatorName: string,
    private readonly subtaskIndex: number,
  ) {}

  /** The subtask went idle (true) or became active again (false). */
  subtask(idle: boolean): void {
    const fields = { operator: this.operatorName, subtask: this.subtaskIndex, idle };
    const who = `'${this.operatorName}' (subtask ${this.subtaskIndex})`;
    this.logger.info(
      fields,
      idle
        ? `${who} is idle: its watermark no longer holds back downstream operators`
        : `${who} is active again: its watermark counts downstream again`,
    );
  }

  /** A split (a partition, a file) of the subtask went idle (true) or became active again (false). */
  split(split: string, idle: boolean): void {
    const fields = { operator: this.operatorName, subtask: this.subtaskIndex, split, idle };
    const who = `'${this.operatorName}' (subtask ${this.subtaskIndex}) split ${split}`;
    this.logger.info(
      fields,
      idle
        ? `${who} is idle: the subtask's watermark no longer waits for it`
        : `${who} is active again: the subtask's watermark waits for it again`,
    );
  }
}
