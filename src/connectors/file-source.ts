// FileSource: bounded sources over JSON Lines and CSV files, streamed, split by file, resumable mid-file.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, MalformedRecordError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { SystemClock } from '../core/clock.ts';
import { ContinuousFileReader, monitoredFileOwner } from './continuous-file-reader.ts';
import { CsvFormat, type CsvDecoding } from './csv-format.ts';
import type { CsvParsers, CsvParsersFor, CsvRow, NoParsers, OnlyColumns } from './csv-row.ts';
import type { FileCursor, FileFormat, RecordHandler } from './file-format.ts';
import { JsonLinesFormat, type JsonLinesDecoding } from './json-lines-format.ts';
import type { MalformedRecord } from './malformed-record.ts';
import type {
  PollResult,
  ReaderOutput,
  Source,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '../core/source.ts';
import { FileReadProgress } from './file-read-progress.ts';
import { checkFileSplit, fileSplit, type FileSourceSplit } from './file-source-split.ts';

/** Options every file source takes. */
export interface FileSourceOptions {
  /**
   * Where malformed records go. Without it (the default) the first malformed record fails the job with a
   * MalformedRecordError naming the file and line; with it, each one is emitted to this side output as a
   * {@link MalformedRecord} and reading goes on.
   */
  malformed?: OutputTag<MalformedRecord>;
  /** Records per poll (default 1000). */
  batchSize?: number;
}

/** Options of {@link FileSource.jsonLines}. */
export interface JsonLinesSourceOptions<T> extends FileSourceOptions, JsonLinesDecoding<T> {}

/** Options of {@link FileSource.csv}. */
export interface CsvSourceOptions<T> extends FileSourceOptions, CsvDecoding<T> {}

/** The options of {@link FileSource.csv} whose types do not depend on the record type. */
export type CsvTypedOptions = Omit<CsvSourceOptions<unknown>, 'columns' | 'parsers' | 'map'>;

/**
 * Reads files as a bounded stream, as Flink's FileSource with a record format: `FileSource.jsonLines` and
 * `FileSource.csv`. Files are streamed in 64 KiB chunks (never read whole), and `.gz` files are decompressed on
 * the fly. A directory stands for the files in it (sorted by name, hidden files skipped, not recursive).
 *
 * **Splits.** Each file is a {@link FileSourceSplit}: subtask `s` of `p` reads files `s, s + p, ...` of the list,
 * each from start to end, in order. More subtasks than files leaves some idle.
 *
 * **Malformed records** (invalid JSON, a CSV row with the wrong number of fields, a mapper or parser that throws)
 * fail the job with a {@link MalformedRecordError} naming `file:line`, or go to the `malformed` side output.
 *
 * **Checkpoints.** A subtask checkpoints the files it has not finished, each with the position just past its last
 * record. A restore at the same parallelism gives every subtask its files back; at another, the unfinished files
 * of all old subtasks are dealt out round-robin over the new subtasks. Each resumes where it stopped, so no record
 * is repeated or lost at any parallelism.
 *
 * @example
 * const bad = new OutputTag<MalformedRecord>('bad');
 * const clicks = env.fromSource(
 *   FileSource.jsonLines<Click>(['clicks-1.jsonl', 'clicks-2.jsonl.gz'], { malformed: bad }),
 *   WatermarkStrategy.forBoundedOutOfOrderness(5_000).withTimestampAssigner((c) => c.ts),
 *   'clicks',
 * );
 * clicks.getSideOutput(bad).print('bad');
 */
export class FileSource<T> implements Source<T, FileSourceSplit> {
  readonly paths: readonly string[];
  private readonly batchSize: number;
  private files: readonly string[] | undefined = undefined;

  private constructor(
    paths: string | readonly string[],
    private readonly format: FileFormat<T>,
    private readonly options: FileSourceOptions,
    /** With a value, the source is unbounded and scans its paths for new files this often. */
    private readonly monitorIntervalMs: number | undefined = undefined,
  ) {
    const list = typeof paths === 'string' ? [paths] : paths;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      list.some((p) => typeof p !== 'string' || p.length === 0)
    ) {
      throw new ConfigurationError(
        `FileSource: expected a path or a non-empty array of paths, got ${String(paths)}`,
      );
    }
    this.paths = [...list];
    this.batchSize = options.batchSize ?? 1000;
    if (!(Number.isSafeInteger(this.batchSize) && this.batchSize >= 1)) {
      throw new ConfigurationError(
        `FileSource: batchSize must be a positive integer, got ${options.batchSize}`,
      );
    }
  }

  /**
   * A source of JSON Lines files: one JSON value per line; blank lines are skipped.
   *
   * @example
   * env.fromSource(FileSource.jsonLines<Order>('orders.jsonl', { map: (o) => ({ ...o, total: Number(o.total) }) }), undefined, 'orders');
   */
  static jsonLines<T>(
    paths: string | readonly string[],
    options: JsonLinesSourceOptions<T> = {},
  ): FileSource<T> {
    if (options.map !== undefined && typeof options.map !== 'function') {
      throw new ConfigurationError('FileSource.jsonLines: map must be a function');
    }
    return new FileSource(paths, new JsonLinesFormat(options.map), options);
  }

  /**
   * A source of CSV files: by default the first line names the columns and each row becomes an object of strings;
   * `cast`, `parsers` and `map` convert them. The record type follows from the options: each parsed column has its
   * parser's return type, the other columns named in `columns` are strings, and `map` receives that typed row and
   * decides the record type. Given a record type instead (`csv<Trade>(…)`), the parsers are checked against it:
   * a parser for a field `Trade` lacks, or returning the wrong type, does not compile.
   *
   * @example
   * FileSource.csv('trades.csv', { parsers: { price: Number, ts: Date.parse }, delimiter: ';' });
   * // FileSource<{ price: number; ts: number } & { readonly [column: string]: unknown }>
   * FileSource.csv('trades.csv', {
   *   parsers: { price: Number },
   *   map: (row) => ({ symbol: String(row.symbol), price: row.price }), // row.price: number
   * }); // FileSource<{ symbol: string; price: number }>
   */
  static csv<
    R,
    const P extends CsvParsers = NoParsers,
    const C extends readonly string[] = readonly string[],
  >(
    paths: string | readonly string[],
    options: CsvTypedOptions & {
      columns?: C;
      parsers?: P & OnlyColumns<P, C>;
      map: (row: CsvRow<P, C>) => R;
    },
  ): FileSource<R>;
  static csv<const P extends CsvParsers = NoParsers, const C extends readonly string[] = readonly string[]>(
    paths: string | readonly string[],
    options?: CsvTypedOptions & { columns?: C; parsers?: P & OnlyColumns<P, C>; map?: undefined },
  ): FileSource<CsvRow<P, C>>;
  static csv<T>(
    paths: string | readonly string[],
    options?: CsvTypedOptions & {
      columns?: readonly string[];
      // Only for a record type given explicitly: otherwise the overload above infers the type from the parsers.
      parsers?: unknown extends T ? never : CsvParsersFor<NoInfer<T>>;
      map?: undefined;
    },
  ): FileSource<T>;
  static csv<T>(
    paths: string | readonly string[],
    options: CsvSourceOptions<T> & { map: (row: any) => T },
  ): FileSource<T>;
  static csv(paths: string | readonly string[], given?: object): FileSource<any> {
    const options = (given ?? {}) as CsvSourceOptions<any>;
    if (options.delimiter !== undefined && options.delimiter.length === 0) {
      throw new ConfigurationError('FileSource.csv: the delimiter must not be empty');
    }
    for (const [name, parser] of Object.entries(options.parsers ?? {})) {
      if (typeof parser !== 'function')
        throw new ConfigurationError(`FileSource.csv: the parser of column '${name}' is not a function`);
    }
    if (options.columns !== undefined) {
      const missing = Object.keys(options.parsers ?? {}).filter((name) => !options.columns!.includes(name));
      if (missing.length > 0) {
        throw new ConfigurationError(
          `FileSource.csv: parsers for columns that are not among the columns [${options.columns.join(', ')}]: ${missing.join(', ')}`,
        );
      }
    }
    return new FileSource(paths, new CsvFormat(options), options);
  }

  get boundedness(): 'bounded' | 'unbounded' {
    return this.monitorIntervalMs === undefined ? 'bounded' : 'unbounded';
  }

  /**
   * The same source, unbounded: it scans its paths every `intervalMs` of processing time and reads each new file
   * once (Flink's `FileSource.forRecordStreamFormat(...).monitorContinuously(interval)`). Files are split among
   * subtasks by a stable hash of their path; the set of files taken is checkpointed. Move finished files into a
   * monitored directory atomically (write under a hidden name, then rename): hidden files are skipped.
   *
   * @example
   * env.fromSource(FileSource.jsonLines<Order>('incoming/').monitorContinuously(10_000), undefined, 'orders');
   */
  monitorContinuously(intervalMs: number): FileSource<T> {
    if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) {
      throw new ConfigurationError(`FileSource: the monitoring interval must be > 0 ms, got ${intervalMs}`);
    }
    return new FileSource(this.paths, this.format, this.options, intervalMs);
  }

  /** The files to read, with directories expanded; resolved once, on the first reader. */
  resolveFiles(): readonly string[] {
    this.files ??= this.paths.flatMap((path) => {
      let isDirectory: boolean;
      try {
        isDirectory = statSync(path).isDirectory();
      } catch (error) {
        throw new ConfigurationError(`FileSource: cannot read '${path}': ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (!isDirectory) return [path];
      return readdirSync(path, { withFileTypes: true })
        .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .sort()
        .map((name) => join(path, name));
    });
    return this.files;
  }

  /**
   * Bounded: every file of the list, unread, dealt out round-robin. Monitored: no initial splits (readers find new
   * files); each file belongs to the subtask a stable hash of its path picks, so a restored file lands where a
   * reader would find it.
   */
  createEnumerator(context: SplitEnumeratorContext): SplitEnumerator<FileSourceSplit> {
    if (this.monitorIntervalMs !== undefined) {
      return {
        initialSplits: () => [],
        assign: (split) => monitoredFileOwner(split.path, context.parallelism),
      };
    }
    const splits = this.resolveFiles().map((path) => fileSplit(path, { offset: 0, line: 0 }));
    return { initialSplits: () => splits };
  }

  createReader(context: SourceReaderContext): SourceReader<T, FileSourceSplit> {
    if (this.monitorIntervalMs !== undefined) {
      return new ContinuousFileReader(
        this.format,
        this.paths,
        context,
        this.batchSize,
        this.options.malformed,
        this.monitorIntervalMs,
        new SystemClock(),
      );
    }
    return new FileSourceReader(this.format, context, this.batchSize, this.options.malformed);
  }
}

/** Reads its splits one after the other, each from its position to the end of the file. */
class FileSourceReader<T> implements SourceReader<T, FileSourceSplit>, RecordHandler<T> {
  private readonly splits: FileSourceSplit[] = [];
  private cursor: FileCursor<T> | undefined = undefined;
  private output: ReaderOutput<T> | undefined = undefined;
  private closed = false;
  private readonly progress: FileReadProgress;

  constructor(
    private readonly format: FileFormat<T>,
    private readonly context: SourceReaderContext,
    private readonly batchSize: number,
    private readonly malformedTag: OutputTag<MalformedRecord> | undefined,
  ) {
    this.progress = new FileReadProgress(
      this.splits,
      () => this.cursor?.position().offset ?? this.splits[0]?.offset ?? 0,
    );
    if (context.metricGroup !== undefined) this.progress.register(context.metricGroup);
  }

  addSplits(splits: FileSourceSplit[]): void {
    for (const split of splits) {
      const checked = checkFileSplit(split, this.context.sourceName);
      this.splits.push(checked);
      this.progress.added(checked);
    }
  }

  async pollNext(output: ReaderOutput<T>): Promise<PollResult> {
    this.output = output;
    while (this.splits.length > 0 && !this.closed) {
      const split = this.splits[0]!;
      this.cursor ??= this.format.open(
        split.path,
        split.offset === 0 && split.line === 0 ? undefined : split,
      );
      if (await this.cursor.read(this.batchSize, this)) return 'more';
      this.cursor.close();
      this.cursor = undefined;
      this.progress.finished(this.splits.shift()!);
    }
    return 'end';
  }

  record(value: T): void {
    this.output!.collect(value);
  }

  malformed(line: number, text: string, error: unknown): void {
    const file = this.splits[0]!.path;
    if (this.malformedTag === undefined) throw new MalformedRecordError(file, line, text, error);
    this.output!.collectSide(this.malformedTag, {
      file,
      line,
      text,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  /** The files not finished: the current one at the cursor's position, then those not started. */
  snapshotState(): FileSourceSplit[] {
    const result: FileSourceSplit[] = [];
    this.splits.forEach((split, i) => {
      const at = i === 0 ? (this.cursor?.position() ?? split) : split;
      result.push(fileSplit(split.path, at));
    });
    return result;
  }

  close(): void {
    this.closed = true;
    this.cursor?.close();
    this.cursor = undefined;
  }
}
