// The source contract: readers that push records in batches, with replayable positions for checkpoints.
import type { OutputTag } from '../api/output-tag.ts';
import type { ProcessingTimeClock } from '../time/clock.ts';

/** Where a reader emits. `timestamp` is the record's own time, if the source knows one (e.g. a Kafka timestamp). */
export interface ReaderOutput<T> {
  collect(value: T, timestamp?: number): void;
  /** Emits to a side output (e.g. malformed lines). */
  collectSide<X>(tag: OutputTag<X>, value: X): void;
}

/** What a reader learns about where it runs. */
export interface SourceReaderContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly sourceName: string;
  /** The job's processing-time clock (a ManualClock under test), for sources that pace or time out. */
  readonly clock?: ProcessingTimeClock;
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
  snapshotPosition?(): unknown;
  /** Resumes from a position returned by `snapshotPosition`. Called before the first `pollNext`. */
  restorePosition?(position: unknown): void;
  close?(): void | Promise<void>;
}

/**
 * A source of records: bounded (a file, a collection) or unbounded (a socket, a topic). Each parallel subtask
 * gets its own reader.
 */
export interface Source<T> {
  readonly boundedness: 'bounded' | 'unbounded';
  createReader(context: SourceReaderContext): SourceReader<T>;
}
