// CsvFormat: decodes CSV files with csv-parse's incremental parser, keeping each record's line and byte offset.
import { parse, type Options as CsvParseOptions, type Parser } from 'csv-parse';
import { isUtf8 } from 'node:buffer';
import { Transform } from 'node:stream';
import { FileChunks } from './file-chunks.ts';
import { LineReader } from './line-reader.ts';
import type { FileCursor, FileFormat, FileOffset, RecordHandler } from './file-format.ts';

/** Options of {@link FileSource.csv} that concern decoding. */
export interface CsvDecoding<T> {
  /** Whether the first line names the columns (default true); rows are then objects keyed by column name. */
  header?: boolean;
  /**
   * Column names: they replace the header's names when `header` is true, and name the columns of a file without a
   * header otherwise. Without a header and without names, rows are string arrays.
   */
  columns?: readonly string[];
  /** Field delimiter (default `,`). */
  delimiter?: string;
  /** Quote character (default `"`). */
  quote?: string;
  /** Trims whitespace around fields (default false). */
  trim?: boolean;
  /** Lines starting with this string are comments and skipped (default: none). */
  comment?: string;
  /** Accepts quotes inside unquoted fields instead of rejecting the record (default false). */
  relaxQuotes?: boolean;
  /** Converts fields that look like numbers to numbers (csv-parse's `cast: true`; default false: all strings). */
  cast?: boolean;
  /**
   * Per-column converters, applied to named columns after parsing. One that throws or returns NaN marks the record
   * malformed, naming the column.
   */
  parsers?: Readonly<Record<string, (text: string) => unknown>>;
  /** Turns a row (after `cast` and `parsers`) into a record; one that throws marks the record malformed. */
  map?: (row: any) => T;
}

/** One parser result, queued in file order (records and rejected records interleave). */
interface Parsed {
  readonly row: unknown;
  readonly error: unknown;
  /** Parser-relative byte range of the record (from the end of the one before, so blank lines included). */
  readonly start: number;
  readonly end: number;
  /** The record's last line (1-based, in the file). */
  readonly endLine: number;
  /** Whether the record ended at a line break (or the end of the file): a boundary to resume from. */
  readonly boundary: boolean;
}

/** Decodes CSV (RFC 4180 with quoted fields that may span lines) into objects or arrays. */
export class CsvFormat<T> implements FileFormat<T> {
  readonly name = 'CSV';

  constructor(private readonly decoding: CsvDecoding<T>) {}

  open(path: string, from: FileOffset | undefined): FileCursor<T> {
    return new CsvCursor(path, from, this.decoding);
  }
}

const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

class CsvCursor<T> implements FileCursor<T> {
  private chunks!: FileChunks;
  private parser!: Parser;
  private readonly parsers: [string, (text: string) => unknown][];
  private queue: Parsed[] = [];
  private head = 0;
  private ended = false;
  private failure: unknown = undefined;
  private columns: readonly string[] | undefined;
  private baseOffset = 0;
  private baseLine = 0;
  private offset = 0;
  private line = 0;
  /**
   * Line numbers are counted here, not taken from csv-parse, whose line count drifts on `\r\n` inside quoted
   * fields. The last two chunks are kept because the parser may complete a record a few bytes into the next one.
   */
  private previous: Buffer = EMPTY;
  private previousStart = 0;
  private current: Buffer = EMPTY;
  private currentStart = 0;
  private countedTo = 0;
  private newlines = 0;
  private lastEnd = 0;

  constructor(
    private readonly path: string,
    from: FileOffset | undefined,
    private readonly decoding: CsvDecoding<T>,
  ) {
    this.parsers = Object.entries(decoding.parsers ?? {});
    this.columns = from?.columns ?? (decoding.header === false ? decoding.columns : undefined);
    this.start(from);
  }

  /** Starts parsing at `from` (the file's start when undefined): a new parser over the bytes from there. */
  private start(from: FileOffset | undefined): void {
    const decoding = this.decoding;
    this.baseOffset = this.offset = from?.offset ?? 0;
    this.baseLine = this.line = from?.line ?? 0;
    this.queue = [];
    this.head = 0;
    this.ended = false;
    this.failure = undefined;
    this.previous = this.current = EMPTY;
    this.previousStart = this.currentStart = this.countedTo = this.newlines = this.lastEnd = 0;
    const resumed = from !== undefined && from.offset > 0;
    const options: CsvParseOptions = {
      // Past the header, a resumed parser is told the names the header gave.
      columns:
        resumed || decoding.header === false
          ? this.columns === undefined
            ? false
            : [...this.columns]
          : (header: string[]) => {
              this.lastEnd = this.parser.info.bytes;
              // Past the header is a position to resume from (with the names it gave), and where a bad first
              // record is searched from.
              this.countTo(this.lastEnd);
              this.offset = this.baseOffset + this.lastEnd;
              this.line = this.baseLine + this.newlines;
              return (this.columns = decoding.columns ?? header).slice();
            },
      delimiter: decoding.delimiter ?? ',',
      quote: decoding.quote ?? '"',
      trim: decoding.trim ?? false,
      relax_quotes: decoding.relaxQuotes ?? false,
      cast: decoding.cast ?? false,
      bom: true,
      skip_empty_lines: true,
      // Rejected records go to on_skip and parsing goes on; we decide whether that fails the job.
      skip_records_with_error: true,
      on_skip: (error) => {
        const bytes = (error as { bytes?: number } | undefined)?.bytes;
        this.enqueue(undefined, error, typeof bytes === 'number' ? bytes : this.countedTo);
      },
    };
    if (decoding.comment !== undefined) options.comment = decoding.comment;
    const parser = parse(options);
    this.parser = parser;
    // Records are taken here, in order with the rejects and with the byte offset the parser has reached, instead
    // of flowing through the stream's buffer. (csv-parse's on_record would do, but builds an info object per record.)
    parser.push = (record: unknown) => {
      if (record === null) return Transform.prototype.push.call(parser, null);
      this.enqueue(record, undefined, parser.info.bytes);
      return true;
    };
    parser.on('error', (error) => {
      if (this.parser === parser) this.failure ??= error;
    });
    parser.resume();
    this.chunks = FileChunks.open(this.path, this.offset);
  }

  async read(max: number, handler: RecordHandler<T>): Promise<boolean> {
    let handled = 0;
    while (handled < max) {
      if (this.head < this.queue.length) {
        const parsed = this.queue[this.head++]!;
        if (parsed.error !== undefined && isQuoteError(parsed.error)) {
          // What the parser made of the lines after a bad quote is not to be trusted: drop it and resynchronise.
          this.failure = parsed.error;
          this.head = this.queue.length;
          continue;
        }
        this.handle(parsed, handler);
        handled++;
        continue;
      }
      if (this.failure !== undefined) {
        handled++;
        if (!(await this.recover(handler))) return false;
        continue;
      }
      this.queue = [];
      this.head = 0;
      if (this.ended) return false;
      // The parser runs synchronously inside write() and end(), filling the queue.
      const chunk = await this.chunks.next();
      if (chunk === undefined) {
        // Set first: a record the final flush completes ends the file, a boundary to resume from.
        this.ended = true;
        await this.finish();
      } else {
        this.countTo(this.currentStart);
        this.previous = this.current;
        this.previousStart = this.currentStart;
        this.currentStart += this.current.length;
        this.current = chunk;
        this.parser.write(chunk);
      }
    }
    return true;
  }

  /**
   * After the parser failed or rejected a record for its quotes. A quote opened and never properly closed makes
   * csv-parse take the following lines as one field, until a stray quote ("Invalid Closing Quote") or the end of
   * the file ("Quote Not Closed"): the record is reported at the line where it starts, and parsing starts over on
   * the line after that one, so no later good line is lost. Any other failure is reported and ends the file.
   * Returns whether reading goes on.
   */
  private async recover(handler: RecordHandler<T>): Promise<boolean> {
    const failure = this.failure;
    this.failure = undefined;
    if (!isQuoteError(failure) || (this.columns === undefined && this.decoding.header !== false)) {
      this.ended = true;
      handler.malformed(this.line + 1, '', failure);
      return false;
    }
    // The bad record starts at the first non-empty line after the last record handed out.
    const lines = LineReader.open(this.path, this.offset, this.line);
    try {
      let found = false;
      while (!found) {
        if (lines.nextLine()) found = lines.text.trim().length > 0;
        else if (!(await lines.fill())) break;
      }
      this.chunks.close();
      this.parser.destroy();
      if (!found) {
        this.ended = true;
        return false;
      }
      const line = lines.line;
      const text = Buffer.from(lines.text).toString();
      this.start({ offset: lines.offset, line, columns: this.columns });
      handler.malformed(
        line,
        text,
        new Error(
          `unterminated quoted field: the record starting at line ${line} opens a quote that is not closed where its field ends`,
          {
            cause: failure,
          },
        ),
      );
      return true;
    } finally {
      lines.close();
    }
  }

  position(): FileOffset {
    return { offset: this.offset, line: this.line, columns: this.columns };
  }

  close(): void {
    this.chunks.close();
    this.parser.destroy();
  }

  /** Queues a parser result, locating it in the file by the byte offset the parser reached after it. */
  private enqueue(row: unknown, error: unknown, end: number): void {
    this.countTo(end);
    const atLineBreak = this.byteAt(end - 1) === NEWLINE;
    // A record ending at a line break ends on the line that break closes; one cut off by the end of file, on the next.
    const endLine = this.baseLine + this.newlines + (atLineBreak ? 0 : 1);
    this.queue.push({ row, error, start: this.lastEnd, end, endLine, boundary: atLineBreak || this.ended });
    this.lastEnd = end;
  }

  private handle(parsed: Parsed, handler: RecordHandler<T>): void {
    if (parsed.boundary) {
      this.offset = this.baseOffset + parsed.end;
      this.line = parsed.endLine;
    }
    if (parsed.error !== undefined) {
      this.reject(parsed, parsed.error, handler);
      return;
    }
    // The parser decodes invalid UTF-8 as U+FFFD; only a row holding one is checked byte by byte (a genuine U+FFFD
    // in the file is valid UTF-8 and passes).
    if (holdsReplacementCharacter(parsed.row) && !isUtf8(this.bytesOf(parsed))) {
      this.reject(parsed, new Error(INVALID_UTF8_RECORD), handler);
      return;
    }
    let value: T;
    try {
      value = this.convert(parsed.row);
    } catch (error) {
      this.reject(parsed, error, handler);
      return;
    }
    handler.record(value);
  }

  /**
   * Reports a malformed record with its text, cut from the chunks still held (the queue is drained before the
   * next chunk is read, so they are; a record longer than a chunk is cut short, which an error message tolerates).
   */
  private reject(parsed: Parsed, error: unknown, handler: RecordHandler<T>): void {
    let text = '';
    for (const [buffer, start] of [
      [this.previous, this.previousStart],
      [this.current, this.currentStart],
    ] as const) {
      const from = Math.max(parsed.start - start, 0);
      const to = Math.min(parsed.end - start, buffer.length);
      if (to > from) text += buffer.toString('utf8', from, to);
    }
    text = text.replace(/^[\r\n]+/, '').replace(/[\r\n]+$/, '');
    handler.malformed(parsed.endLine - countNewlines(text), text, error);
  }

  /** The bytes of a parsed record, from the chunks still held (see `reject`). */
  private bytesOf(parsed: Parsed): Buffer {
    const parts: Buffer[] = [];
    for (const [buffer, start] of [
      [this.previous, this.previousStart],
      [this.current, this.currentStart],
    ] as const) {
      const from = Math.max(parsed.start - start, 0);
      const to = Math.min(parsed.end - start, buffer.length);
      if (to > from) parts.push(buffer.subarray(from, to));
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /** Counts the line breaks before parser-relative byte `to` (which only moves forward). */
  private countTo(to: number): void {
    while (this.countedTo < to) {
      const inCurrent = this.countedTo >= this.currentStart;
      const buffer = inCurrent ? this.current : this.previous;
      const start = inCurrent ? this.currentStart : this.previousStart;
      const end = Math.min(to, start + buffer.length);
      if (end <= this.countedTo) return;
      for (
        let i = buffer.indexOf(NEWLINE, this.countedTo - start);
        i >= 0 && i < end - start;
        i = buffer.indexOf(NEWLINE, i + 1)
      ) {
        this.newlines++;
      }
      this.countedTo = end;
    }
  }

  private byteAt(at: number): number | undefined {
    if (at >= this.currentStart) return this.current[at - this.currentStart];
    if (at >= this.previousStart) return this.previous[at - this.previousStart];
    return undefined;
  }

  private convert(row: unknown): T {
    const parsers = this.parsers;
    if (parsers.length > 0 && row !== null && typeof row === 'object' && !Array.isArray(row)) {
      const object = row as Record<string, unknown>;
      for (const [name, parser] of parsers) {
        const field = object[name];
        if (typeof field === 'string') object[name] = parseColumn(name, parser, field);
      }
    }
    const map = this.decoding.map;
    return map === undefined ? (row as T) : map(row);
  }

  private finish(): Promise<void> {
    return new Promise((resolve) => {
      // A parser that failed is destroyed and will not finish: the failure is reported instead.
      if (this.parser.writableFinished || this.parser.destroyed) return resolve();
      this.parser.once('finish', () => resolve());
      this.parser.once('error', () => resolve());
      this.parser.end();
    });
  }
}

/** Whether csv-parse rejected a record for a quote opened and not closed where its field should end. */
function isQuoteError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'CSV_QUOTE_NOT_CLOSED' || code === 'CSV_INVALID_CLOSING_QUOTE';
}

/**
 * Runs a column's parser. A parser that throws, or returns NaN (as `Number('abc')` and `Date.parse('')` do), marks
 * the record malformed with the column named: a NaN passed on would silently turn into wrong sums and dates.
 */
function parseColumn(name: string, parser: (text: string) => unknown, field: string): unknown {
  let value: unknown;
  try {
    value = parser(field);
  } catch (error) {
    throw new Error(
      `column '${name}': the parser failed on ${JSON.stringify(field)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (typeof value === 'number' && Number.isNaN(value))
    throw new Error(`column '${name}': the parser returned NaN for ${JSON.stringify(field)}`);
  return value;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/** The reason given for a CSV record whose bytes are not UTF-8 text. */
export const INVALID_UTF8_RECORD = 'invalid UTF-8: the record holds bytes that are not UTF-8 text';

/** Whether a parsed row (an array or an object of fields) holds U+FFFD, the parser's stand-in for invalid bytes. */
function holdsReplacementCharacter(row: unknown): boolean {
  if (row === null || typeof row !== 'object') return false;
  // for-in, not Object.values: nothing is allocated per record.
  const fields = row as Record<string, unknown>;
  for (const key in fields) {
    const field = fields[key];
    if (typeof field === 'string' && field.includes('\uFFFD')) return true;
  }
  return false;
}
