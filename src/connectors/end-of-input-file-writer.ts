// EndOfInputFileWriter: FileSink's writer in a job without checkpointing: one file per subtask, published at the end.
import { ConfigurationError } from '../core/errors.ts';
import type { SinkWriter, SinkWriterContext } from '../core/sink.ts';
import { PartFileWriter } from './part-file-writer.ts';

/** What this writer puts into a savepoint: how far its in-progress file is durable. */
export interface InProgressFileState {
  readonly inProgressLength: number;
}

/** Whether a restored writer state is this writer's. */
export function isInProgressFileState(state: unknown): state is InProgressFileState {
  return typeof (state as InProgressFileState | undefined)?.inProgressLength === 'number';
}

/**
 * Writes one subtask's records to a hidden in-progress file and publishes it under its final name when every
 * input has ended; a failed or cancelled job leaves it unpublished. A savepoint records how far the file is
 * durable; a job restored from it at the same parallelism cuts the file back to that length and continues it
 * (the records after the savepoint are replayed), so the published file holds every record once.
 */
export class EndOfInputFileWriter<T> implements SinkWriter<T> {
  private constructor(
    private readonly file: PartFileWriter,
    private readonly encode: (value: T) => string,
  ) {}

  static open<T>(
    path: string,
    context: SinkWriterContext,
    encode: (value: T) => string,
    blockSize: number,
  ): EndOfInputFileWriter<T> {
    const restored = context.restoredStates;
    if (restored === undefined || restored.every((s) => s === undefined)) {
      return new EndOfInputFileWriter(PartFileWriter.create(path, blockSize), encode);
    }
    const own = restored[context.subtaskIndex];
    if (!restored.every(isInProgressFileState)) {
      throw new ConfigurationError(
        `FileSink '${context.sinkName}': the snapshot was taken with checkpointing enabled (a directory of part files per checkpoint); enable checkpointing to restore it`,
      );
    }
    if (restored.length !== context.parallelism || !isInProgressFileState(own)) {
      throw new ConfigurationError(
        `FileSink '${context.sinkName}' cannot be restored at parallelism ${context.parallelism} from a snapshot taken at parallelism ${restored.length} without checkpointing (one unfinished file per subtask); restore it at parallelism ${restored.length} or enable checkpointing`,
      );
    }
    return new EndOfInputFileWriter(PartFileWriter.resume(path, own.inProgressLength, blockSize), encode);
  }

  write(value: T): void {
    this.file.append(this.encode(value));
  }

  snapshotState(): InProgressFileState {
    return { inProgressLength: this.file.persist() };
  }

  endOfInput(): void {
    this.file.commit();
  }

  close(): void {
    // After endOfInput the file is published and this does nothing; after a failure it stays unpublished.
    this.file.abandon();
  }
}
