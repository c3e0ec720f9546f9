// JsonLinesFormat: decodes JSON Lines files (one JSON value per line, empty lines skipped).
import type { FileCursor, FileFormat, FileOffset, RecordHandler } from './file-format.ts';
import { LineReader } from './line-reader.ts';

/** Options of {@link FileSource.jsonLines} that concern decoding. */
export interface JsonLinesDecoding<T> {
  /**
   * Turns a parsed value into a record (validation, conversion, e.g. ISO dates to numbers). A mapper that throws
   * marks the line malformed. Default: the parsed value, unchecked.
   */
  map?: (value: any) => T;
}

/** The reason given for a line whose bytes are not UTF-8 text. */
export const INVALID_UTF8 = 'invalid UTF-8: the line holds bytes that are not UTF-8 text';

/** Decodes each non-blank line with `JSON.parse` (and the optional mapper). */
export class JsonLinesFormat<T> implements FileFormat<T> {
  readonly name = 'JSON Lines';

  constructor(private readonly map: ((value: any) => T) | undefined) {}

  open(path: string, from: FileOffset | undefined): FileCursor<T> {
    return new JsonLinesCursor(LineReader.open(path, from?.offset ?? 0, from?.line ?? 0), this.map);
  }
}

class JsonLinesCursor<T> implements FileCursor<T> {
  constructor(
    private readonly lines: LineReader,
    private readonly map: ((value: any) => T) | undefined,
  ) {}

  async read(max: number, handler: RecordHandler<T>): Promise<boolean> {
    const { lines, map } = this;
    // Malformed lines count towards the batch too, so a file of garbage still yields between batches.
    let handled = 0;
    while (handled < max) {
      if (!lines.nextLine()) {
        if (!(await lines.fill())) return false;
        continue;
      }
      const text = lines.text;
      if (lines.invalid) {
        handled++;
        handler.malformed(lines.line, Buffer.from(text).toString(), new Error(INVALID_UTF8));
        continue;
      }
      if (isBlank(text)) continue;
      handled++;
      let value: T;
      try {
        value = map === undefined ? (JSON.parse(text) as T) : map(JSON.parse(text));
      } catch (error) {
        // A copy: the line is a slice of its 64 KiB chunk's string and would keep all of it alive.
        handler.malformed(lines.line, Buffer.from(text).toString(), error);
        continue;
      }
      handler.record(value);
    }
    return true;
  }

  position(): FileOffset {
    return { offset: this.lines.offset, line: this.lines.line };
  }

  close(): void {
    this.lines.close();
  }
}

/** Whether a line holds only whitespace (cheap check first: most lines start with `{` or `[`). */
function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const first = text.charCodeAt(0);
  if (first === 0x7b || first === 0x5b) return false;
  return text.trim().length === 0;
}
