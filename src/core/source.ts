// The source contract (FLIP-27): splits as plain data, an enumerator that assigns them, readers that emit in batches.
import type { Logger } from './logger.ts';
import type { OutputTag } from './output-tag.ts';
import type { ProcessingTimeClock } from './clock.ts';
import type { MetricGroup } from './metric-group.ts';

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
  /**
   * Flink's `SourceOutput.emitWatermark`: a watermark the reader knows itself (read from its input, as the
   * merged watermark of a repartition topic), for a source used without a watermark strategy. Only rising
   * watermarks go downstream. (Optional so that simple test outputs need not implement it; the runtime does.)
   */
  emitWatermark?(watermark: number): void;
  /** Flink's `SourceOutput.markIdle` / `markActive`: the reader's input is idle (true) or active again (false). */
  markIdle?(idle: boolean): void;
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
  /**
   * The source subtask's metric group (operator scope), for gauges of the reader's own progress (the file source's
   * `fileBytesRead`, `fileBytesTotal`, `fileReadPercentage`). Absent when the reader runs outside a job.
   */
  readonly metricGroup?: MetricGroup;
  /**
   * Whether the splits handed to `addSplits` come from a snapshot (possibly none for this subtask) rather than
   * the enumerator's initial splits: a reader that discovers splits starts the ones it finds from their earliest
   * position then, since they appeared after the snapshot.
   */
  readonly restored?: boolean;
}

/** The result of one poll: more records may follow, or the input is exhausted. */
export type PollResult = 'more' | 'end';

/**
 * Reads one subtask's share of a source: the splits it was given. `pollNext` emits a batch synchronously into
 * the output and returns, possibly asynchronously (file reads); the runtime calls it in a loop and yields to the
 * event loop between batches so timers and other sources run. A batch should be large enough (hundreds to
 * thousands of records) that the per-batch overhead vanishes.
 *
 * `SplitT` is the source's split: plain, structured-cloneable data (a file with an offset, a range of indices, a
 * partition with an offset), never a handle, so it can be written to a checkpoint and handed to any subtask.
 */
export interface SourceReader<T, SplitT = unknown> {
  /**
   * Flink's `SourceReader.addSplits`: the splits this subtask reads, handed over once, before the first
   * `pollNext`, both on a fresh start (the enumerator's splits) and on a restore (the splits of the snapshot,
   * reassigned). A split carries its own progress, so a restored split resumes where it stopped. A bounded reader
   * with no split ends at once.
   */
  addSplits?(splits: SplitT[]): void;
  /**
   * Emits the next batch. A checkpoint barrier goes in only between two polls, so a returned Promise should settle
   * within a bounded time even when no data comes (resolve `'more'` with nothing emitted): a poll that waits
   * longer holds the subtask's checkpoints back that long (Flink's non-blocking `pollNext` with `isAvailable()`).
   */
  pollNext(output: ReaderOutput<T>): PollResult | Promise<PollResult>;
  /**
   * Flink's `SourceReader.snapshotState`: the splits not finished yet, each with its progress (everything
   * emitted so far is behind it). Called at a checkpoint barrier, between polls. What it returns must not change
   * afterwards (copy what the reader mutates).
   */
  snapshotState?(checkpointId?: number): SplitT[];
  /** The checkpoint that took `snapshotState(checkpointId)` is durable (e.g. commit offsets for monitoring). */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  close?(): void | Promise<void>;
}

/** What an enumerator learns about the job. */
export interface SplitEnumeratorContext {
  /** The number of source subtasks the splits are assigned over. */
  readonly parallelism: number;
  readonly sourceName: string;
}

/**
 * Flink's `SplitEnumerator`, reduced to pure functions of plain data so it can run wherever the job is set up
 * (any thread or process computes the same answer): which splits a fresh job reads, and which subtask reads a
 * split. Splits are assigned once, before the readers start; a source that finds splits while running (Kafka
 * partitions, files appearing in a monitored directory) lets each reader discover them and keep the ones
 * `assign` gives to its subtask, so no coordination is needed.
 */
export interface SplitEnumerator<SplitT> {
  /** The splits a job that is not restored reads (empty when the readers discover their splits). */
  initialSplits(): readonly SplitT[];
  /**
   * The subtask (0 to parallelism - 1) that reads `split`, the `index`-th of the splits being assigned. The
   * default deals splits round-robin (`index % parallelism`). A source whose readers discover splits must assign
   * by a function of the split alone, so a restored split lands where a reader would discover it.
   */
  assign?(split: SplitT, index: number): number;
}

/**
 * A source of records: bounded (a file, a collection) or unbounded (a socket, a topic), following Flink's
 * FLIP-27 model. Its work is cut into splits; an enumerator says which splits exist and which subtask reads
 * each; each parallel subtask gets a reader, and the reader's unfinished splits are its checkpointed state. On a
 * restore, at the snapshot's parallelism every subtask gets its own splits back; at another parallelism the
 * splits of all old subtasks are assigned again over the new ones, so every source rescales exactly.
 *
 * A source without `createEnumerator` has no splits and no checkpointed state (its readers start afresh).
 */
export interface Source<T, SplitT = unknown> {
  readonly boundedness: 'bounded' | 'unbounded';
  /**
   * In worker mode (`workers` > 1), whether this source's subtasks run on the main thread instead of in the worker
   * of their slot: for a source whose client can live on only one thread of a process (a native addon that is not
   * context-aware, as librdkafka's binding). Its records cross threads to the operators of its slot.
   */
  readonly runsOnMainThread?: boolean;
  createEnumerator?(context: SplitEnumeratorContext): SplitEnumerator<SplitT>;
  createReader(context: SourceReaderContext): SourceReader<T, SplitT>;
}
