// FileSink: writes a stream to JSON Lines files, one part file per subtask, buffered and published on close.
import { join } from 'node:path';
import { ConfigurationError } from '../core/errors.ts';
import { PartFileWriter } from './part-file-writer.ts';
import type { Sink, SinkWriter, SinkWriterContext } from '../core/sink.ts';

/** Options of {@link FileSink.jsonLines}. */
export interface FileSinkOptions {
  /** Characters buffered before a block is written (default 65,536). */
  blockSize?: number;
  /** Name prefix of part files when the sink runs in parallel (default `part`: `part-0.jsonl`, `part-1.jsonl`, ...). */
  partPrefix?: string;
}

/**
 * Writes records to files, as Flink's FileSink with a row format. At parallelism 1 `path` is the output file; at
 * parallelism p > 1 it is a directory holding one part file per subtask, `part-0.jsonl` to `part-(p-1).jsonl`.
 * Existing files of those names are replaced.
 *
 * Each subtask writes to a hidden in-progress file in blocks and renames it to its final name when the job ends
 * (on close), so a finished file is always complete. (When checkpoints arrive, the rename moves to checkpoint
 * completion: two-phase commit, exactly once.)
 *
 * JSON encoding: `JSON.stringify`, one record per line; `bigint` values (which JSON.stringify rejects) are written
 * as decimal strings, `undefined` as `null`.
 *
 * @example
 * env.fromSource(FileSource.jsonLines<Click>('in.jsonl'), undefined, 'clicks')
 *   .filter((c) => c.kind === 'buy')
 *   .sinkTo(FileSink.jsonLines('out/buys.jsonl'), 'buys');
 */
export class FileSink<T> implements Sink<T> {
  private constructor(
    readonly path: string,
    private readonly extension: string,
    private readonly encode: (value: T) => string,
    private readonly options: FileSinkOptions,
  ) {
    if (typeof path !== 'string' || path.length === 0)
      throw new ConfigurationError('FileSink: the path must be a non-empty string');
    const blockSize = options.blockSize;
    if (blockSize !== undefined && !(Number.isSafeInteger(blockSize) && blockSize >= 1)) {
      throw new ConfigurationError(`FileSink: blockSize must be a positive integer, got ${blockSize}`);
    }
  }

  /**
   * A sink writing one JSON document per line.
   *
   * @example
   * stream.sinkTo(FileSink.jsonLines('out/results'), 'results').setParallelism(4); // out/results/part-0.jsonl ...
   */
  static jsonLines<T>(path: string, options: FileSinkOptions = {}): FileSink<T> {
    return new FileSink<T>(path, '.jsonl', encodeJsonLine, options);
  }

  /** The file subtask `subtaskIndex` of `parallelism` writes. */
  partPath(subtaskIndex: number, parallelism: number): string {
    if (parallelism === 1) return this.path;
    return join(this.path, `${this.options.partPrefix ?? 'part'}-${subtaskIndex}${this.extension}`);
  }

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    const file = PartFileWriter.create(
      this.partPath(context.subtaskIndex, context.parallelism),
      this.options.blockSize,
    );
    const encode = this.encode;
    return {
      write(value) {
        file.append(encode(value));
      },
      close() {
        file.commit();
      },
    };
  }
}

/** One JSON line. The replacer only runs for the rare record holding a bigint: it makes stringify several times slower. */
function encodeJsonLine(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  }
  return (text ?? 'null') + '\n';
}
