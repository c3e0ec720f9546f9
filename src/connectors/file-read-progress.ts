// FileReadProgress: how far a file source subtask is through its files, as gauges (bytes read, of how many, percent).
import type { MetricGroup } from '../core/metric-group.ts';
import { decodedFileSize } from './file-chunks.ts';
import type { FileSourceSplit } from './file-source-split.ts';

/**
 * Counts the bytes of a reader's files: each file's size is taken once when the reader gets it (for `.gz` the
 * decompressed size, the unit of the split offsets), and the bytes read are computed when a gauge is read, from
 * the finished files and the offsets of the others, so the record path does nothing for them. A split restored at
 * an offset counts what lies before it as read.
 */
export class FileReadProgress {
  private bytesTotal = 0;
  private bytesOfFinishedFiles = 0;
  private readonly sizes = new Map<string, number>();

  /**
   * @param openSplits the reader's unfinished splits, first the one being read
   * @param currentOffset the offset reached in the first of them (its cursor's position, or its split's offset)
   */
  constructor(
    private readonly openSplits: readonly FileSourceSplit[],
    private readonly currentOffset: () => number,
  ) {}

  /** Registers `fileBytesRead`, `fileBytesTotal` and `fileReadPercentage` (0-100, one decimal) in `group`. */
  register(group: MetricGroup): void {
    group.gauge('fileBytesRead', { getValue: () => this.bytesRead() });
    group.gauge('fileBytesTotal', { getValue: () => this.bytesTotal });
    group.gauge('fileReadPercentage', { getValue: () => this.percentage() });
  }

  /** A split the reader was given. */
  added(split: FileSourceSplit): void {
    if (this.sizes.has(split.path)) return;
    const size = decodedFileSize(split.path);
    this.sizes.set(split.path, size);
    this.bytesTotal += size;
  }

  /** The reader finished a split. */
  finished(split: FileSourceSplit): void {
    this.bytesOfFinishedFiles += this.sizes.get(split.path) ?? 0;
  }

  bytesRead(): number {
    let read = this.bytesOfFinishedFiles;
    const splits = this.openSplits;
    for (let i = 0; i < splits.length; i++) read += i === 0 ? this.currentOffset() : splits[i]!.offset;
    return Math.min(read, this.bytesTotal);
  }

  /** Percent of the bytes read, one decimal, rounded down (100 only once every byte was read; 100 with no files). */
  percentage(): number {
    if (this.bytesTotal === 0) return 100;
    return Math.floor((this.bytesRead() * 1000) / this.bytesTotal) / 10;
  }
}
