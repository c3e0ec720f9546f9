// PartFileWriter: appends text to an in-progress file in large blocks and publishes it by renaming on commit.
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * One output file being written. Text is gathered in a string and written in blocks of `blockSize` characters,
 * so a record costs a string append, not a system call. Writes are synchronous on purpose: a sink's `write` is
 * synchronous, so a blocking block write is the backpressure (memory stays bounded by one block), and writing a
 * 64 KiB block to the page cache takes microseconds.
 *
 * The data goes to a hidden in-progress file (`.name.inprogress`) that `commit()` renames to its final name, so
 * a reader never sees a half-written file. This is the shape two-phase commit needs later: pre-commit = flush and
 * close, commit = rename on checkpoint completion, abort = `discard()`.
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
  ) {
    mkdirSync(dirname(finalPath), { recursive: true });
    this.fd = openSync(inProgressPath, 'w');
  }

  /** Opens the in-progress file for `finalPath` (truncating an old one); creates missing directories. */
  static create(finalPath: string, blockSize = 1 << 16): PartFileWriter {
    return new PartFileWriter(
      finalPath,
      join(dirname(finalPath), `.${basename(finalPath)}.inprogress`),
      blockSize,
    );
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

  /** Flushes, closes and renames the file to its final name, replacing any file there. */
  commit(): void {
    if (this.fd === undefined) return;
    this.flush();
    closeSync(this.fd);
    this.fd = undefined;
    renameSync(this.inProgressPath, this.finalPath);
  }

  /** Closes and deletes the in-progress file (the final file is left untouched). */
  discard(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    this.buffer = '';
    rmSync(this.inProgressPath, { force: true });
  }
}
