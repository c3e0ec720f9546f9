// PartFileWriter: appends text to an in-progress file in large blocks and publishes it by renaming on commit.
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { IllegalStateError } from '../core/errors.ts';
import { basename, dirname, join } from 'node:path';
import { syncDirectory } from './sync-directory.ts';

/**
 * One output file being written. Text is gathered in a string and written in blocks of `blockSize` characters,
 * so a record costs a string append, not a system call. Writes are synchronous on purpose: a sink's `write` is
 * synchronous, so a blocking block write is the backpressure (memory stays bounded by one block), and writing a
 * 64 KiB block to the page cache takes microseconds.
 *
 * The data goes to a hidden in-progress file (`.name.inprogress`) that `commit()` makes durable and renames to
 * its final name, so a reader never sees a half-written file; `abandon()` closes it unpublished (a failed job).
 * `persist()` makes what was appended durable and returns the file's length, from which `resume` continues it
 * after a restore (the records written after that point are replayed by the job, so they are cut off).
 *
 * @example
 * const writer = PartFileWriter.create('/out/part-0.jsonl');
 * writer.append('{"a":1}\n');
 * writer.commit(); // /out/part-0.jsonl now exists, complete
 */
export class PartFileWriter {
  private buffer = '';
  private fd: number | undefined;

  private constructor(
    readonly finalPath: string,
    readonly inProgressPath: string,
    private readonly blockSize: number,
    resumeAt: number | undefined,
  ) {
    mkdirSync(dirname(finalPath), { recursive: true });
    if (resumeAt === undefined) this.fd = openSync(inProgressPath, 'w');
    else {
      if (!existsSync(inProgressPath))
        throw new IllegalStateError(`cannot resume ${inProgressPath}: the in-progress file is gone`);
      truncateSync(inProgressPath, resumeAt);
      this.fd = openSync(inProgressPath, 'a');
    }
  }

  /** Opens the in-progress file for `finalPath` (truncating an old one); creates missing directories. */
  static create(finalPath: string, blockSize = 1 << 16): PartFileWriter {
    return new PartFileWriter(finalPath, PartFileWriter.inProgressPathOf(finalPath), blockSize, undefined);
  }

  /** Reopens the in-progress file for `finalPath`, cut to `length` bytes (a length `persist()` returned). */
  static resume(finalPath: string, length: number, blockSize = 1 << 16): PartFileWriter {
    return new PartFileWriter(finalPath, PartFileWriter.inProgressPathOf(finalPath), blockSize, length);
  }

  private static inProgressPathOf(finalPath: string): string {
    return join(dirname(finalPath), `.${basename(finalPath)}.inprogress`);
  }

  append(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= this.blockSize) this.flush();
  }

  /** Writes the buffered text to the in-progress file. */
  flush(): void {
    if (this.buffer.length === 0 || this.fd === undefined) return;
    writeSync(this.fd, this.buffer);
    this.buffer = '';
  }

  /** Flushes and fsyncs the in-progress file; returns its length in bytes. */
  persist(): number {
    if (this.fd === undefined) throw new IllegalStateError(`${this.inProgressPath} is already closed`);
    this.flush();
    fsyncSync(this.fd);
    return fstatSync(this.fd).size;
  }

  /** Flushes, fsyncs, closes and renames the file to its final name (replacing any file there), durably. */
  commit(): void {
    if (this.fd === undefined) return;
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
    renameSync(this.inProgressPath, this.finalPath);
    syncDirectory(dirname(this.finalPath));
  }

  /** Closes the in-progress file without publishing it; the final file is left untouched. */
  abandon(): void {
    if (this.fd === undefined) return;
    this.buffer = '';
    closeSync(this.fd);
    this.fd = undefined;
  }
}
