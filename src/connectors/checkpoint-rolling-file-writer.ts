// CheckpointRollingFileWriter: FileSink's writer in a checkpointed job: a part file per subtask and checkpoint.
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
import type { SinkWriter, SinkWriterContext } from '../core/sink.ts';
import { syncDirectory } from './sync-directory.ts';

/** The names of one sink's files in its directory (Flink's part file life cycle: in-progress, pending, finished). */
export class PartFileNames {
  private readonly inProgress: RegExp;
  private readonly pending: RegExp;

  constructor(
    readonly prefix: string,
    readonly extension: string,
  ) {
    const p = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.inProgress = new RegExp(`^\\.${p}-(\\d+)-.*\\.inprogress$`);
    this.pending = new RegExp(`^\\.${p}-(\\d+)-c(\\d+)\\.pending$`);
  }

  /** Hidden; pid and a counter keep files of overlapping attempts (old process, new process) apart. */
  inProgressName(subtask: number, file: number): string {
    return `.${this.prefix}-${subtask}-${process.pid}-${file}.inprogress`;
  }

  /** Hidden; complete and durable, waiting for checkpoint `checkpoint` to complete. */
  pendingName(subtask: number, checkpoint: number): string {
    return `.${this.prefix}-${subtask}-c${checkpoint}.pending`;
  }

  /** Visible; the id is zero-padded so names sort in checkpoint order. */
  finishedName(subtask: number, checkpoint: number): string {
    return `${this.prefix}-${subtask}-${String(checkpoint).padStart(8, '0')}${this.extension}`;
  }

  /** The subtask of an in-progress file name, or undefined for another name. */
  inProgressSubtask(name: string): number | undefined {
    const match = this.inProgress.exec(name);
    return match === null ? undefined : Number(match[1]);
  }

  /** The subtask and checkpoint of a pending file name, or undefined for another name. */
  pendingOf(name: string): { subtask: number; checkpoint: number } | undefined {
    const match = this.pending.exec(name);
    return match === null ? undefined : { subtask: Number(match[1]), checkpoint: Number(match[2]) };
  }
}

/**
 * Restores the directory to the checkpoint the job restarts from, for the subtasks this subtask answers for
 * (its own, and for subtask 0 those beyond the current parallelism, so a rescale loses nothing): pending files
 * the restored checkpoint covers are published (the failure may have come between the checkpoint and its
 * commit), later pending files and every in-progress file are deleted (they hold records the job replays).
 */
export function recoverPartFiles(dir: string, names: PartFileNames, context: SinkWriterContext): void {
  const restored = context.restoredCheckpointId ?? 0;
  const mine = (s: number) =>
    s === context.subtaskIndex || (context.subtaskIndex === 0 && s >= context.parallelism);
  for (const name of readdirSync(dir)) {
    const inProgress = names.inProgressSubtask(name);
    if (inProgress !== undefined && mine(inProgress)) rmSync(join(dir, name), { force: true });
    const pending = names.pendingOf(name);
    if (pending === undefined || !mine(pending.subtask)) continue;
    if (pending.checkpoint <= restored) {
      renameSync(join(dir, name), join(dir, names.finishedName(pending.subtask, pending.checkpoint)));
    } else rmSync(join(dir, name), { force: true });
  }
  syncDirectory(dir);
}

/**
 * Writes one subtask's records into `dir`, rolling the in-progress file at every checkpoint barrier that finds
 * it non-empty (Flink's OnCheckpointRollingPolicy). Exactly once, the rolled file is pending until the
 * checkpoint completes, then published (two-phase commit); at least once, it is published at the barrier, so it
 * shows one checkpoint earlier and a restore to an earlier checkpoint writes its records again. Either way the
 * file still in progress when the job fails is never published.
 *
 * Cost: a record is one string append; a block of `blockSize` characters is one synchronous write; a roll is
 * one fsync and one or two renames.
 */
export class CheckpointRollingFileWriter<T> implements SinkWriter<T> {
  private fd: number | undefined = undefined;
  private inProgressName = '';
  private buffer = '';
  private files = 0;
  /** Checkpoints whose pending file waits for their completion (exactly once), oldest first. */
  private readonly pending: number[] = [];

  constructor(
    private readonly dir: string,
    private readonly names: PartFileNames,
    private readonly subtask: number,
    private readonly encode: (value: T) => string,
    private readonly blockSize: number,
    private readonly exactlyOnce: boolean,
  ) {}

  /** Creates the directory, recovers it to the restored checkpoint and opens the writer. */
  static open<T>(
    dir: string,
    names: PartFileNames,
    context: SinkWriterContext,
    encode: (value: T) => string,
    blockSize: number,
    exactlyOnce: boolean,
  ): CheckpointRollingFileWriter<T> {
    mkdirSync(dir, { recursive: true });
    recoverPartFiles(dir, names, context);
    return new CheckpointRollingFileWriter(dir, names, context.subtaskIndex, encode, blockSize, exactlyOnce);
  }

  write(value: T): void {
    this.buffer += this.encode(value);
    if (this.buffer.length >= this.blockSize) this.flush();
  }

  /** Phase one: roll the in-progress file, pending (exactly once) or finished (at least once). */
  snapshotState(checkpointId: number): unknown {
    if (this.flush()) {
      if (this.exactlyOnce) {
        this.seal(this.names.pendingName(this.subtask, checkpointId));
        this.pending.push(checkpointId);
      } else this.seal(this.names.finishedName(this.subtask, checkpointId));
    }
    return { pending: [...this.pending] };
  }

  /** Phase two: publish the pending files of every checkpoint up to `checkpointId`; idempotent. */
  notifyCheckpointComplete(checkpointId: number): void {
    let committed = false;
    while (this.pending.length > 0 && this.pending[0]! <= checkpointId) {
      const id = this.pending.shift()!;
      const from = join(this.dir, this.names.pendingName(this.subtask, id));
      if (existsSync(from)) renameSync(from, join(this.dir, this.names.finishedName(this.subtask, id)));
      committed = true;
    }
    if (committed) syncDirectory(this.dir);
  }

  close(): void {
    // A file still in progress is not covered by a checkpoint (the job's final checkpoint rolls the last one):
    // leave it unpublished, for the next attempt's recovery to delete.
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Writes the buffer to the in-progress file; returns whether the file holds anything. */
  private flush(): boolean {
    if (this.buffer.length > 0) {
      if (this.fd === undefined) {
        this.inProgressName = this.names.inProgressName(this.subtask, ++this.files);
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
