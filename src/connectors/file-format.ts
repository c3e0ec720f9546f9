// FileFormat: how a file source decodes one file into records; one implementation per format (JSON Lines, CSV).

/**
 * Where a reader is in one file: `offset` bytes (decompressed, for .gz) and `line` lines consumed, just past the
 * last record it emitted. `columns` keeps a CSV header's names, which a resumed parser no longer sees.
 */
export interface FileOffset {
  readonly offset: number;
  readonly line: number;
  readonly columns?: readonly string[] | undefined;
}

/** Receives a cursor's results; `malformed` either throws (fail the job) or emits to a side output. */
export interface RecordHandler<T> {
  record(value: T): void;
  malformed(line: number, text: string, error: unknown): void;
}

/** An open file being decoded. */
export interface FileCursor<T> {
  /**
   * Decodes up to `max` records into `handler` and resolves true while the file may hold more. Between records the
   * cursor's `position()` always describes the state just after the last record handed out.
   */
  read(max: number, handler: RecordHandler<T>): Promise<boolean>;
  position(): FileOffset;
  close(): void;
}

/** Opens files of one format. */
export interface FileFormat<T> {
  /** A short name for messages ("JSON Lines", "CSV"). */
  readonly name: string;
  open(path: string, from: FileOffset | undefined): FileCursor<T>;
}
