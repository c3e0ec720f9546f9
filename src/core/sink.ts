// The sink contract: a writer per subtask, called synchronously per record and flushed asynchronously.
import type { ProcessingTimeClock } from './clock.ts';

/** What a writer learns about where it runs. */
export interface SinkWriterContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly sinkName: string;
  /** The writer state this subtask snapshotted in the checkpoint the job was restored from. */
  readonly restoredState?: unknown;
  /**
   * The writer states of every subtask in the restored checkpoint (index = old subtask), so a writer can finish
   * the work of subtasks that no longer exist after a rescale (e.g. commit their pending transactions).
   */
  readonly restoredStates?: readonly unknown[];
  /** The checkpoint the job was restored from; a two-phase-commit writer commits what it covers. */
  readonly restoredCheckpointId?: number | undefined;
  /** Whether the job checkpoints periodically (otherwise a two-phase-commit writer commits at end of input). */
  readonly checkpointingEnabled?: boolean;
  /** The job's processing-time clock (a ManualClock under test), for writers that flush on a timer. */
  readonly clock?: ProcessingTimeClock;
  /**
   * Stops (true) or resumes (false) the sources upstream of this sink: a writer with too many writes pending
   * applies backpressure. Calls must alternate.
   */
  readonly setBackpressure?: (blocked: boolean) => void;
  /** Fails the job from an asynchronous callback (a write that was rejected), naming the sink. */
  readonly failJob?: (error: unknown, activity?: string) => void;
}

/**
 * Writes one subtask's records. `write` is synchronous (buffer there); `flush` and `close` may be asynchronous
 * and are awaited when the job ends.
 */
export interface SinkWriter<T> {
  write(value: T, timestamp: number | undefined): void;
  /** Receives the sink's input watermark (most sinks ignore it). */
  writeWatermark?(watermark: number): void;
  close?(): void | Promise<void>;
  /**
   * Two-phase commit, phase one: called at a checkpoint barrier. Make everything written so far durable but not
   * yet visible, and return the writer's state (structured-cloneable) for the checkpoint.
   */
  snapshotState?(checkpointId: number): unknown;
  /** Phase two: checkpoint `checkpointId` is durable; make what it covers visible. Must be idempotent. */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  /** Every input ended (called before close, on success only); the job finishes once its Promise resolves. */
  endOfInput?(): void | Promise<void>;
}

/** A destination for records. */
export interface Sink<T> {
  createWriter(context: SinkWriterContext): SinkWriter<T>;
  /**
   * Whether writer states are arrays of records that may be split and merged when the parallelism changes: a
   * restored writer then gets the concatenated arrays of the old subtasks j with j % parallelism === its index.
   * Otherwise a writer gets the state of the old subtask with its own index.
   */
  readonly redistributesState?: boolean;
  /**
   * In worker mode (`workers` > 1), whether this sink's subtasks run on the main thread instead of in the worker
   * of their slot: for a sink that keeps what it receives in the memory of the thread that created it (as
   * CollectSink), so the job's code on the main thread can read it. Its records cross threads to get there.
   */
  readonly runsOnMainThread?: boolean;
}
