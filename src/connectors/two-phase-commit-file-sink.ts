// TwoPhaseCommitFileSink: JSON Lines files that become visible only when the checkpoint covering them completes.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../core/errors.ts';
import type { Sink, SinkWriter, SinkWriterContext } from '../core/sink.ts';

/** Options of {@link TwoPhaseCommitFileSink.jsonLines}. */
export interface TwoPhaseCommitFileSinkOptions {
  /** Characters buffered before a write to the in-progress file (default 65,536). */
  readonly blockSize?: number;
}

const IN_PROGRESS = /^\.part-(\d+)-.*\.inprogress$/;
const PENDING = /^\.part-(\d+)-c(\d+)\.pending$/;

/**
 * An exactly-once file sink (Flink's FileSink with two-phase commit). Each subtask appends to a hidden
 * `.part-<subtask>-<n>.inprogress` file. At a checkpoint barrier (phase one) the file is flushed, fsynced and
 * renamed to `.part-<subtask>-c<checkpoint>.pending`; when that checkpoint is durable (phase two) it is renamed to
 * `part-<subtask>-<checkpoint>.jsonl`. A file is therefore visible only once the source positions that produced
 * it are checkpointed, so after any crash the job restores, replays, and the committed files hold every record
 * exactly once.
 *
 * On start, a subtask commits pending files its restored checkpoint covers (the crash may have come between
 * checkpoint and commit) and deletes in-progress files and pending files of later checkpoints (never exposed).
 * Subtask 0 also does this for subtasks beyond the current parallelism, so rescaling loses nothing. Without
 * checkpointing, files are committed when the input ends.
 *
 * @example
 * env.enableCheckpointing(1_000, { storage: './checkpoints' });
 * stream.sinkTo(TwoPhaseCommitFileSink.jsonLines('out/results'), 'results');
 */
export class TwoPhaseCommitFileSink<T> implements Sink<T> {
  private constructor(
    readonly directory: string,
    private readonly encode: (value: T) => string,
    private readonly blockSize: number,
  ) {}

  /** A sink writing one JSON document per line into part files under `directory`. */
  static jsonLines<T>(
    directory: string,
    options: TwoPhaseCommitFileSinkOptions = {},
  ): TwoPhaseCommitFileSink<T> {
    if (typeof directory !== 'string' || directory.length === 0) {
      throw new ConfigurationError('TwoPhaseCommitFileSink: the directory must be a non-empty string');
    }
    const blockSize = options.blockSize ?? 65_536;
    if (!(Number.isSafeInteger(blockSize) && blockSize >= 1)) {
      throw new ConfigurationError(
        `TwoPhaseCommitFileSink: blockSize must be a positive integer, got ${blockSize}`,
      );
    }
    return new TwoPhaseCommitFileSink<T>(directory, encodeJsonLine, blockSize);
  }

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    mkdirSync(this.directory, { recursive: true });
    recover(this.directory, context);
    return new TwoPhaseCommitWriter(this.directory, context, this.encode, this.blockSize);
  }
}

/** Commits covered pending files and deletes uncommitted ones of the subtasks this subtask is responsible for. */
function recover(dir: string, context: SinkWriterContext): void {
  const restored = context.restoredCheckpointId ?? 0;
  const mine = (s: number) =>
    s === context.subtaskIndex || (context.subtaskIndex === 0 && s >= context.parallelism);
  for (const name of readdirSync(dir)) {
    const inProgress = IN_PROGRESS.exec(name);
    if (inProgress !== null && mine(Number(inProgress[1]))) rmSync(join(dir, name), { force: true });
    const pending = PENDING.exec(name);
    if (pending === null || !mine(Number(pending[1]))) continue;
    const checkpoint = Number(pending[2]);
    if (checkpoint <= restored)
      renameSync(join(dir, name), join(dir, finalName(Number(pending[1]), checkpoint)));
    else rmSync(join(dir, name), { force: true });
  }
  syncDirectory(dir);
}

class TwoPhaseCommitWriter<T> implements SinkWriter<T> {
  private fd: number | undefined = undefined;
  private inProgressName = '';
  private buffer = '';
  private files = 0;
  /** Pre-committed checkpoints awaiting their completion. */
  private readonly pending: number[] = [];

  constructor(
    private readonly dir: string,
    private readonly context: SinkWriterContext,
    private readonly encode: (value: T) => string,
    private readonly blockSize: number,
  ) {}

  write(value: T): void {
    this.buffer += this.encode(value);
    if (this.buffer.length >= this.blockSize) this.flush();
  }

  snapshotState(checkpointId: number): unknown {
    if (this.flush()) {
      this.seal(`.part-${this.context.subtaskIndex}-c${checkpointId}.pending`);
      this.pending.push(checkpointId);
    }
    return { pending: [...this.pending] };
  }

  notifyCheckpointComplete(checkpointId: number): void {
    let committed = false;
    while (this.pending.length > 0 && this.pending[0]! <= checkpointId) {
      const id = this.pending.shift()!;
      const from = join(this.dir, `.part-${this.context.subtaskIndex}-c${id}.pending`);
      if (existsSync(from)) renameSync(from, join(this.dir, finalName(this.context.subtaskIndex, id)));
      committed = true;
    }
    if (committed) syncDirectory(this.dir);
  }

  endOfInput(): void {
    // With checkpointing the final checkpoint commits; without, the end of input is the only commit point.
    if (this.context.checkpointingEnabled === true) return;
    if (this.flush()) this.seal(finalName(this.context.subtaskIndex, Date.now()));
  }

  close(): void {
    // Whatever is still in progress was not covered by a checkpoint: leave it to be discarded on restart.
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Writes the buffer to the in-progress file; returns whether the file holds anything. */
  private flush(): boolean {
    if (this.buffer.length > 0) {
      if (this.fd === undefined) {
        this.inProgressName = `.part-${this.context.subtaskIndex}-${process.pid}-${++this.files}.inprogress`;
        this.fd = openSync(join(this.dir, this.inProgressName), 'w');
      }
      writeSync(this.fd, this.buffer);
      this.buffer = '';
    }
    return this.fd !== undefined;
  }

  /** Makes the in-progress file durable under `name` (fsync file, rename, fsync directory). */
  private seal(name: string): void {
    fsyncSync(this.fd!);
    closeSync(this.fd!);
    this.fd = undefined;
    renameSync(join(this.dir, this.inProgressName), join(this.dir, name));
    syncDirectory(this.dir);
  }
}

function finalName(subtask: number, checkpoint: number): string {
  return `part-${subtask}-${String(checkpoint).padStart(8, '0')}.jsonl`;
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** One JSON line; bigints as decimal strings (JSON.stringify rejects them), as the plain FileSink does. */
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
