// FileSink: writes a stream to JSON Lines part files, at least once or exactly once (Flink's FileSink).
import { join } from 'node:path';
import { DeliveryGuarantee } from '../core/delivery-guarantee.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { Sink, SinkWriter, SinkWriterContext } from '../core/sink.ts';
import { CheckpointRollingFileWriter, PartFileNames } from './checkpoint-rolling-file-writer.ts';
import { encodeJsonLine } from './encode-json-line.ts';
import { EndOfInputFileWriter, isInProgressFileState } from './end-of-input-file-writer.ts';

/** The delivery guarantees a {@link FileSink} offers (a file sink never drops records, so not `NONE`). */
export type FileSinkDeliveryGuarantee =
  typeof DeliveryGuarantee.AT_LEAST_ONCE | typeof DeliveryGuarantee.EXACTLY_ONCE;

/** Options of {@link FileSink.jsonLines}. */
export interface FileSinkOptions {
  /**
   * `DeliveryGuarantee.AT_LEAST_ONCE` (the default): in a checkpointed job a part file is published at the
   * checkpoint barrier that rolls it. `DeliveryGuarantee.EXACTLY_ONCE`: it is published when that checkpoint
   * completes (two-phase commit). Without checkpointing both publish each subtask's file when the input ends.
   */
  deliveryGuarantee?: FileSinkDeliveryGuarantee;
  /** Characters buffered before a block is written (default 65,536). */
  blockSize?: number;
  /** Name prefix of part files (default `part`: `part-0.jsonl`, or `part-0-00000007.jsonl` when checkpointing). */
  partPrefix?: string;
}

/**
 * Writes records to files, as Flink's FileSink with a row format: each subtask appends to a hidden in-progress
 * file, which becomes a finished file (visible under its final name, complete) only at a point the job's
 * fault tolerance covers. A failed or cancelled job never publishes its in-progress files.
 *
 * - **With checkpointing** `path` is a directory. Every checkpoint barrier rolls each subtask's non-empty
 *   in-progress file into `part-<subtask>-<checkpoint id>.jsonl` (8 digits, so names sort in order; the job's
 *   final checkpoint rolls the last one). At least once it is published at the barrier, so records after the
 *   checkpoint a failed job restores from are written again; exactly once it stays pending
 *   (`.part-<subtask>-c<id>.pending`) until the checkpoint completes, and a restore publishes the pending files
 *   the restored checkpoint covers and deletes the rest, so every record is in the finished files once.
 * - **Without checkpointing** each subtask writes one file, published when its input ends: at parallelism 1
 *   `path` is the file, at parallelism p > 1 a directory of `part-0.jsonl` to `part-(p-1).jsonl`. A savepoint
 *   records how far the file is written; a restore at the same parallelism continues it from there.
 *
 * Existing files of the same names are replaced. JSON encoding: `JSON.stringify`, one record per line; `bigint`
 * values (which JSON.stringify rejects) are written as decimal strings, `undefined` as `null`.
 *
 * @example
 * env.enableCheckpointing(1_000, { storage: './checkpoints' });
 * env.fromSource(FileSource.jsonLines<Click>('in.jsonl'), undefined, 'clicks')
 *   .filter((c) => c.kind === 'buy')
 *   .sinkTo(FileSink.jsonLines('out/buys', { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }), 'buys');
 */
export class FileSink<T> implements Sink<T> {
  /** When finished files are published: at the checkpoint barrier, or when the checkpoint completes. */
  readonly deliveryGuarantee: FileSinkDeliveryGuarantee;
  private readonly names: PartFileNames;
  private readonly blockSize: number;

  private constructor(
    /** The output file, or directory of part files (see the class description). */
    readonly path: string,
    private readonly encode: (value: T) => string,
    extension: string,
    options: FileSinkOptions,
  ) {
    if (typeof path !== 'string' || path.length === 0)
      throw new ConfigurationError('FileSink: the path must be a non-empty string');
    const blockSize = options.blockSize ?? 65_536;
    if (!(Number.isSafeInteger(blockSize) && blockSize >= 1)) {
      throw new ConfigurationError(`FileSink: blockSize must be a positive integer, got ${blockSize}`);
    }
    const guarantee = options.deliveryGuarantee ?? DeliveryGuarantee.AT_LEAST_ONCE;
    if (guarantee !== DeliveryGuarantee.AT_LEAST_ONCE && guarantee !== DeliveryGuarantee.EXACTLY_ONCE) {
      throw new ConfigurationError(
        `FileSink: deliveryGuarantee must be '${DeliveryGuarantee.AT_LEAST_ONCE}' or '${DeliveryGuarantee.EXACTLY_ONCE}', got ${JSON.stringify(guarantee)}`,
      );
    }
    const prefix = options.partPrefix ?? 'part';
    if (typeof prefix !== 'string' || prefix.length === 0 || /[/\\]/.test(prefix))
      throw new ConfigurationError(
        `FileSink: partPrefix must be a file name prefix, got ${JSON.stringify(prefix)}`,
      );
    this.deliveryGuarantee = guarantee;
    this.blockSize = blockSize;
    this.names = new PartFileNames(prefix, extension);
  }

  /**
   * A sink writing one JSON document per line.
   *
   * @example
   * stream.sinkTo(FileSink.jsonLines('out/results'), 'results').setParallelism(4); // out/results/part-0.jsonl ...
   */
  static jsonLines<T>(path: string, options: FileSinkOptions = {}): FileSink<T> {
    return new FileSink<T>(path, encodeJsonLine, '.jsonl', options);
  }

  /** The file subtask `subtaskIndex` of `parallelism` writes in a job without checkpointing. */
  partPath(subtaskIndex: number, parallelism: number): string {
    if (parallelism === 1) return this.path;
    return join(this.path, `${this.names.prefix}-${subtaskIndex}${this.names.extension}`);
  }

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    if (context.checkpointingEnabled === true) {
      if (context.restoredStates?.some(isInProgressFileState) === true) {
        throw new ConfigurationError(
          `FileSink '${context.sinkName}': the snapshot was taken without checkpointing (one unfinished file per subtask); restore it in a job without checkpointing`,
        );
      }
      return CheckpointRollingFileWriter.open(
        this.path,
        this.names,
        context,
        this.encode,
        this.blockSize,
        this.deliveryGuarantee === DeliveryGuarantee.EXACTLY_ONCE,
      );
    }
    return EndOfInputFileWriter.open(
      this.partPath(context.subtaskIndex, context.parallelism),
      context,
      this.encode,
      this.blockSize,
    );
  }
}
