// LineReader: splits a file's bytes into lines, tracking each line's number and the byte offset after it.
import { isUtf8 } from 'node:buffer';
import { FileChunks } from './file-chunks.ts';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const EMPTY = Buffer.alloc(0);

/**
 * Reads a file line by line. `nextLine()` is synchronous and succeeds while the current chunk holds a complete
 * line; when it fails, `await fill()` reads the next chunk. This split keeps the per-line path free of Promises:
 * one await per 64 KiB chunk, not per line.
 *
 * Lines end at `\n`; a `\r` before it is dropped, as is a UTF-8 byte-order mark at the start of the file. Lines are
 * decoded whole, so a multi-byte character split between chunks is never corrupted. A line that is not valid
 * UTF-8 is flagged `invalid` (its text has U+FFFD for the bad bytes), never silently passed on as if intact.
 * A line longer than a chunk is gathered piece by piece and joined once: linear in its length. `line` is 1-based; `offset`
 * is the byte offset just past the current line's terminator, i.e. where reading resumes after it.
 *
 * @example
 * const lines = LineReader.open('data.jsonl');
 * for (;;) {
 *   if (lines.nextLine()) handle(lines.text, lines.line);
 *   else if (!(await lines.fill())) break;
 * }
 * lines.close();
 */
export class LineReader {
  /** The current line, without its terminator. */
  text = '';
  /**
   * Whether the current line's bytes are not valid UTF-8. Its `text` then holds U+FFFD in place of the bad bytes:
   * a reader must treat the line as malformed rather than pass the altered text on.
   */
  invalid = false;
  /** The current line's 1-based number (0 before the first line). */
  line: number;
  /** The byte offset just past the current line. */
  offset: number;
  private chunk: Buffer = EMPTY;
  /** Byte position of the next line in `chunk`. */
  private position = 0;
  /**
   * The complete lines of `chunk`, decoded at once: one decode per chunk and a cheap slice per line is about four
   * times faster than decoding line by line. `ascii` (string length equals byte length) lets byte offsets follow
   * string indices without searching the bytes too.
   */
  private decoded = '';
  private decodedPosition = 0;
  private ascii = true;
  /** Whether the decoded chunk holds U+FFFD: only then are its lines checked byte by byte for invalid UTF-8. */
  private suspect = false;
  /**
   * The start of a line whose end is in a later chunk, as the pieces read so far: joined once, when the line ends,
   * so a line spanning n chunks costs O(n) copies, not the O(n²) of growing one buffer chunk by chunk.
   */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private ended = false;

  private constructor(
    private readonly chunks: FileChunks,
    offset: number,
    line: number,
  ) {
    this.offset = offset;
    this.line = line;
  }

  /**
   * Opens `path` to resume after a position: `offset` bytes into the file, where `line` lines have been read.
   */
  static open(path: string, offset = 0, line = 0): LineReader {
    return new LineReader(FileChunks.open(path, offset), offset, line);
  }

  /** Advances to the next complete line if one is buffered; false when `fill()` must be awaited first. */
  nextLine(): boolean {
    const decoded = this.decoded;
    const from = this.decodedPosition;
    const newline = decoded.indexOf('\n', from);
    if (newline < 0) return this.ended ? this.lastLine() : false;
    this.decodedPosition = newline + 1;
    if (this.carryBytes > 0) return this.joinCarry();
    const end = newline > from && decoded.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    this.text = decoded.slice(from, end);
    const start = this.position;
    this.position = this.ascii ? newline + 1 : this.chunk.indexOf(NEWLINE, start) + 1;
    this.offset += this.position - start;
    this.invalid =
      this.suspect && hasReplacement(this.text) && !isUtf8(this.chunk.subarray(start, this.position));
    this.completeLine();
    return true;
  }

  /** Reads the next chunk. Resolves false once the file is exhausted and every line has been returned. */
  async fill(): Promise<boolean> {
    if (this.ended) return false;
    const rest = this.chunk.subarray(this.position);
    if (rest.length > 0) {
      // A copy only for the first piece of a chunk that is otherwise done with: later pieces are whole chunks.
      this.carry.push(rest.length === this.chunk.length ? rest : Buffer.from(rest));
      this.carryBytes += rest.length;
    }
    this.chunk = EMPTY;
    this.position = 0;
    this.decoded = '';
    this.decodedPosition = 0;
    const next = await this.chunks.next();
    if (next === undefined) {
      this.ended = true;
      return this.carryBytes > 0;
    }
    this.chunk = next;
    // Lines are split at newline bytes, which never occur inside a UTF-8 sequence, so decoding up to the last one
    // never cuts a character.
    const complete = next.lastIndexOf(NEWLINE) + 1;
    this.decoded = next.toString('utf8', 0, complete);
    this.ascii = this.decoded.length === complete;
    this.suspect = hasReplacement(this.decoded);
    return true;
  }

  close(): void {
    this.chunks.close();
  }

  /** The first line of a chunk when it began in an earlier chunk (one line per chunk at most). */
  private joinCarry(): boolean {
    const newline = this.chunk.indexOf(NEWLINE, this.position);
    this.carry.push(this.chunk.subarray(this.position, newline + 1));
    const whole = Buffer.concat(this.carry, this.carryBytes + newline + 1 - this.position);
    const length =
      whole.length - 1 - (whole.length > 1 && whole[whole.length - 2] === CARRIAGE_RETURN ? 1 : 0);
    this.text = whole.toString('utf8', 0, length);
    this.invalid = hasReplacement(this.text) && !isUtf8(whole);
    this.offset += whole.length;
    this.carry = [];
    this.carryBytes = 0;
    this.position = newline + 1;
    this.completeLine();
    return true;
  }

  /** The final line of a file that does not end with a newline. */
  private lastLine(): boolean {
    if (this.carryBytes === 0 && this.position >= this.chunk.length) return false;
    const rest =
      this.carryBytes > 0 ? Buffer.concat(this.carry, this.carryBytes) : this.chunk.subarray(this.position);
    const end = rest.length > 0 && rest[rest.length - 1] === CARRIAGE_RETURN ? rest.length - 1 : rest.length;
    this.text = rest.toString('utf8', 0, end);
    this.invalid = hasReplacement(this.text) && !isUtf8(rest);
    this.offset += rest.length;
    this.carry = [];
    this.carryBytes = 0;
    this.chunk = EMPTY;
    this.position = 0;
    this.completeLine();
    return true;
  }

  private completeLine(): void {
    this.line++;
    // A byte-order mark is only meaningful at the very start of the file.
    if (this.line === 1 && this.text.charCodeAt(0) === 0xfeff) this.text = this.text.slice(1);
  }
}

/** Whether decoded text holds U+FFFD, which the decoder puts in place of invalid bytes (or the file had it). */
function hasReplacement(text: string): boolean {
  return text.indexOf('\ufffd') >= 0;
}
