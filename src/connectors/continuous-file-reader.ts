// ContinuousFileReader: a file source subtask that keeps scanning its paths and reads each new file once.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, MalformedRecordError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { hashKey } from '../state/key-hash.ts';
import type { ProcessingTimeClock } from '../core/clock.ts';
import type { FileCursor, FileFormat, FileOffset, RecordHandler } from './file-format.ts';
import type { MalformedRecord } from './malformed-record.ts';
import type { PollResult, ReaderOutput, SourceReader, SourceReaderContext } from '../core/source.ts';

/** How long an idle poll waits (real time) before handing control back, so barriers and timers go in. */
const IDLE_WAIT_MS = 50;

/** A monitoring subtask's checkpointed position: the files it took, those not started, and the one it reads. */
export interface ContinuousFilePosition {
  readonly parallelism: number;
  /** Every file this subtask has taken (read, being read or queued), by path. */
  readonly seen: readonly string[];
  /** Files found and not started yet, in order. */
  readonly queue: readonly string[];
  /** The file being read and how far, if any. */
  readonly current: (FileOffset & { readonly path: string }) | undefined;
}

/**
 * Scans the source's paths every `intervalMs` of processing time (the job's clock; a ManualClock under test).
 * New files (not hidden, sorted by name) are split among subtasks by a stable hash of their path and each is
 * read once, from start to end; a file that changes after it was taken is not read again (Flink's
 * `monitorContinuously` picks up new paths only). The set of files taken is part of the position, so a restored
 * job neither re-reads nor skips a file.
 */
export class ContinuousFileReader<T> implements SourceReader<T>, RecordHandler<T> {
  private seen = new Set<string>();
  private queue: string[] = [];
  private current: string | undefined = undefined;
  private cursor: FileCursor<T> | undefined = undefined;
  private resumeAt: FileOffset | undefined = undefined;
  private nextScanAt = Number.NEGATIVE_INFINITY;
  private output: ReaderOutput<T> | undefined = undefined;
  private closed = false;
  private wake: (() => void) | undefined = undefined;
  private readonly clock: ProcessingTimeClock;

  constructor(
    private readonly format: FileFormat<T>,
    private readonly paths: readonly string[],
    private readonly context: SourceReaderContext,
    private readonly batchSize: number,
    private readonly malformedTag: OutputTag<MalformedRecord> | undefined,
    private readonly intervalMs: number,
    clock: ProcessingTimeClock,
  ) {
    this.clock = context.clock ?? clock;
  }

  async pollNext(output: ReaderOutput<T>): Promise<PollResult> {
    this.output = output;
    if (this.closed) return 'end';
    if (this.cursor === undefined) {
      if (this.queue.length === 0) {
        const now = this.clock.now();
        if (now < this.nextScanAt) {
          await this.idle(this.nextScanAt);
          return 'more';
        }
        this.scan();
        this.nextScanAt = now + this.intervalMs;
        if (this.queue.length === 0) return 'more';
      }
      this.current = this.queue.shift()!;
      this.cursor = this.format.open(this.current, this.resumeAt);
      this.resumeAt = undefined;
    }
    if (await this.cursor.read(this.batchSize, this)) return 'more';
    this.cursor.close();
    this.cursor = undefined;
    this.current = undefined;
    return 'more';
  }

  record(value: T): void {
    this.output!.collect(value);
  }

  malformed(line: number, text: string, error: unknown): void {
    const file = this.current!;
    if (this.malformedTag === undefined) throw new MalformedRecordError(file, line, text, error);
    this.output!.collectSide(this.malformedTag, {
      file,
      line,
      text,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  snapshotPosition(): ContinuousFilePosition {
    const at = this.cursor?.position() ?? this.resumeAt ?? { offset: 0, line: 0 };
    return {
      parallelism: this.context.parallelism,
      seen: [...this.seen],
      queue: [...this.queue],
      current:
        this.current === undefined
          ? undefined
          : { path: this.current, offset: at.offset, line: at.line, columns: at.columns && [...at.columns] },
    };
  }

  restorePosition(position: unknown): void {
    const p = position as Partial<ContinuousFilePosition> | undefined;
    if (!Array.isArray(p?.seen) || !Array.isArray(p.queue) || typeof p.parallelism !== 'number') {
      throw new ConfigurationError(
        `FileSource (monitored): cannot restore from position ${JSON.stringify(position)}`,
      );
    }
    if (p.parallelism !== this.context.parallelism) {
      throw new ConfigurationError(
        `FileSource (monitored) '${this.context.sourceName}': the snapshot was taken at parallelism ${p.parallelism}, not ${this.context.parallelism}; new files are split by parallelism, so restore at ${p.parallelism}`,
      );
    }
    this.seen = new Set(p.seen);
    this.queue = [...p.queue];
    if (p.current !== undefined) {
      this.queue.unshift(p.current.path);
      this.resumeAt = { offset: p.current.offset, line: p.current.line, columns: p.current.columns };
    }
  }

  close(): void {
    this.closed = true;
    this.cursor?.close();
    this.cursor = undefined;
    this.wake?.();
  }

  /** Finds files not taken yet that belong to this subtask, and queues them by name. */
  private scan(): void {
    const found: string[] = [];
    for (const path of this.paths) {
      let isDirectory: boolean;
      try {
        isDirectory = statSync(path).isDirectory();
      } catch (error) {
        throw new ConfigurationError(`FileSource: cannot read '${path}': ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (!isDirectory) found.push(path);
      else {
        for (const entry of readdirSync(path, { withFileTypes: true })) {
          if (entry.isFile() && !entry.name.startsWith('.')) found.push(join(path, entry.name));
        }
      }
    }
    found.sort();
    const { subtaskIndex, parallelism } = this.context;
    for (const file of found) {
      if (this.seen.has(file) || (hashKey(file) >>> 0) % parallelism !== subtaskIndex) continue;
      this.seen.add(file);
      this.queue.push(file);
    }
  }

  /** Waits for the next scan on the job's clock, but hands control back after IDLE_WAIT_MS of real time. */
  private idle(until: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const scheduled = this.clock.schedule(until, () => done());
      const timer = setTimeout(() => done(), IDLE_WAIT_MS);
      const done = () => {
        scheduled.cancel();
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }
}
