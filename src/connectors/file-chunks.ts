// FileChunks: pulls a file's bytes chunk by chunk from an offset, decompressing .gz files on the way.
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Bytes read per chunk: large enough that per-chunk costs vanish, small enough to keep memory flat. */
const CHUNK_BYTES = 1 << 16;

/**
 * A pull-based reader of a file's (decompressed) bytes. Nothing is read ahead of `next()` beyond the stream's
 * own high-water mark, so a slow consumer holds at most a chunk or two in memory: that is the backpressure.
 *
 * Offsets count decompressed bytes. A plain file starts reading at `offset` directly; a gzip file cannot seek, so
 * it is decompressed from the start and the first `offset` bytes are dropped.
 *
 * @example
 * const chunks = FileChunks.open('events.jsonl.gz', 0);
 * for (let chunk = await chunks.next(); chunk !== undefined; chunk = await chunks.next()) consume(chunk);
 * chunks.close();
 */
export class FileChunks {
  private readonly iterator: AsyncIterator<Buffer>;
  private skip: number;

  private constructor(
    private readonly stream: Readable,
    skip: number,
  ) {
    this.iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    this.skip = skip;
  }

  /** Opens `path` at a byte offset; `.gz` files are decompressed. */
  static open(path: string, offset: number): FileChunks {
    if (isGzip(path)) {
      const file = createReadStream(path, { highWaterMark: CHUNK_BYTES });
      const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
      // pipe() does not forward errors: a missing file must fail the reader, not hang it.
      file.on('error', (error) => gunzip.destroy(error));
      gunzip.on('close', () => file.destroy());
      return new FileChunks(file.pipe(gunzip), offset);
    }
    return new FileChunks(createReadStream(path, { start: offset, highWaterMark: CHUNK_BYTES }), 0);
  }

  /** The next chunk, or undefined at the end of the file. Rejects with the read (or decompression) error. */
  async next(): Promise<Buffer | undefined> {
    for (;;) {
      const result = await this.iterator.next();
      if (result.done === true) return undefined;
      let chunk = result.value;
      if (this.skip > 0) {
        if (chunk.length <= this.skip) {
          this.skip -= chunk.length;
          continue;
        }
        chunk = chunk.subarray(this.skip);
        this.skip = 0;
      }
      return chunk;
    }
  }

  close(): void {
    this.stream.destroy();
  }
}

/** Whether a path names a gzip file (by its extension). */
export function isGzip(path: string): boolean {
  return path.endsWith('.gz');
}

/**
 * The number of bytes a reader of `path` goes through, in the offsets' unit: the file's size, or for a gzip file
 * the decompressed size its trailer states (ISIZE: exact for a single-member file under 4 GiB, the size modulo
 * 2^32 beyond). A file that cannot be read counts 0; the reader reports why when it opens it.
 */
export function decodedFileSize(path: string): number {
  let fd: number | undefined;
  try {
    const size = statSync(path).size;
    if (!isGzip(path) || size < 18) return size;
    fd = openSync(path, 'r');
    const trailer = Buffer.alloc(4);
    readSync(fd, trailer, 0, 4, size - 4);
    return trailer.readUInt32LE(0);
  } catch {
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
