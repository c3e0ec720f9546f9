// The source contract: readers that push records in batches, with replayable positions for checkpoints.
import type { Logger } from './logger.ts';
import type { OutputTag } from './output-tag.ts';
import type { ProcessingTimeClock } from './clock.ts';

/** Where a reader emits. `timestamp` is the record's own time, if the source knows one (e.g. a Kafka timestamp). */
export interface ReaderOutput<T> {
  collect(value: T, timestamp?: number): void;
  /** Emits to a side output (e.g. malformed lines). */
  collectSide<X>(tag: OutputTag<X>, value: X): void;
  /**
   * Flink's `ReaderOutput.createOutputForSplit`: an output for the records of one split (a Kafka partition), with
   * its own timestamp assigner and watermark generator from the source's watermark strategy. The subtask's
   * watermark is then the minimum over its active splits; an idle split (idleness timeout) does not hold it back.
   * A reader uses either split outputs or `collect`, not both. Calling it again for the same id returns the same
   * output. (Optional so that simple test outputs need not implement it; the runtime always does.)
   */
  createOutputForSplit?(splitId: string): SplitOutput<T>;
  /** The split is finished (or no longer owned): it stops holding the subtask's watermark back. */
  releaseOutputForSplit?(splitId: string): void;
}

/** Where a reader emits the records of one split. */
export interface SplitOutput<T> {
  collect(value: T, timestamp?: number): void;
}

/** What a reader learns about where it runs. */
export interface SourceReaderContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly sourceName: string;
  /** The job's processing-time clock (a ManualClock under test), for sources that pace or time out. */
  readonly clock?: ProcessingTimeClock;
  /** The job's logger, for what a source reports without failing the job (default: stderr). */
  readonly logger?: Logger;
}

/** The result of one poll: more records may follow, or the input is exhausted. */
export type PollResult = 'more' | 'end';

/**
 * Reads one subtask's share of a source. `pollNext` emits a batch synchronously into the output and returns,
 * possibly asynchronously (file reads); the runtime calls it in a loop and yields to the event loop between
 * batches so timers and other sources run. A batch should be large enough (hundreds to thousands of records)
 * that the per-batch overhead vanishes.
 */
export interface SourceReader<T> {
  pollNext(output: ReaderOutput<T>): PollResult | Promise<PollResult>;
  /** The position to resume from, for checkpoints (must be structured-cloneable). */
  snapshotPosition?(checkpointId?: number): unknown;
  /**
   * Resumes from a position returned by `snapshotPosition`. Called before the first `pollNext`. For a source whose
   * `positionDistribution` is `'union'`, `position` is the array of every subtask's snapshotted position.
   */
  restorePosition?(position: unknown): void;
  /** The checkpoint that took `snapshotPosition(checkpointId)` is durable (e.g. commit offsets for monitoring). */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  close?(): void | Promise<void>;
}

/**
 * A source of records: bounded (a file, a collection) or unbounded (a socket, a topic). Each parallel subtask
 * gets its own reader.
 */
export interface Source<T> {
  readonly boundedness: 'bounded' | 'unbounded';
  /**
   * How restored positions reach the readers. `'per-subtask'` (the default): subtask i gets what subtask i
   * snapshotted, so restore at the same parallelism. `'union'` (Flink's union list state): every reader gets the
   * positions of all subtasks and keeps those of the splits it owns now, so the source rescales.
   */
  readonly positionDistribution?: 'per-subtask' | 'union';
  createReader(context: SourceReaderContext): SourceReader<T>;
}
