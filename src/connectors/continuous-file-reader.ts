// ContinuousFileReader: a file source subtask that keeps scanning its paths and reads each new file once.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, MalformedRecordError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { hashKey } from '../state/key-hash.ts';
import type { ProcessingTimeClock } from '../core/clock.ts';
import type { FileCursor, FileFormat, RecordHandler } from './file-format.ts';
import { checkFileSplit, fileSplit, type FileSourceSplit } from './file-source-split.ts';
import type { MalformedRecord } from './malformed-record.ts';
import type { PollResult, ReaderOutput, SourceReader, SourceReaderContext } from '../core/source.ts';

/** How long an idle poll waits (real time) before handing control back, so barriers and timers go in. */
const IDLE_WAIT_MS = 50;

/** The subtask of `parallelism` that reads a monitored file: a stable hash of its path. */
export function monitoredFileOwner(path: string, parallelism: number): number {
  return (hashKey(path) >>> 0) % parallelism;
}

/**
 * Scans the source's paths every `intervalMs` of processing time (the job's clock; a ManualClock under test).
 * New files (not hidden, sorted by name) are split among subtasks by a stable hash of their path and each is
 * read once, from start to end; a file that changes after it was taken is not read again (Flink's
 * `monitorContinuously` picks up new paths only). Every file taken is a split in the checkpoint: unfinished with
 * its position, finished as a marker, so a restored job neither re-reads nor skips a file, also at another
 * parallelism (each split goes to the subtask that would find its file).
 */
export class ContinuousFileReader<T> implements SourceReader<T, FileSourceSplit>, RecordHandler<T> {
  /** Every file this subtask has taken (read, being read or queued), by path. */
  private readonly seen = new Set<string>();
  /** Files taken and not finished, in order: the first is being read when `cursor` is set. */
  private readonly queue: FileSourceSplit[] = [];
  private current: string | undefined = undefined;
  private cursor: FileCursor<T> | undefined = undefined;
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
      const split = this.queue[0]!;
      this.current = split.path;
      this.cursor = this.format.open(split.path, split.offset === 0 && split.line === 0 ? undefined : split);
    }
    if (await this.cursor.read(this.batchSize, this)) return 'more';
    this.cursor.close();
    this.cursor = undefined;
    this.current = undefined;
    this.queue.shift();
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

  /** Files taken before (finished or not), from a snapshot; finished ones are only remembered. */
  addSplits(splits: FileSourceSplit[]): void {
    for (const raw of splits) {
      const split = checkFileSplit(raw, this.context.sourceName);
      this.seen.add(split.path);
      if (split.finished !== true) this.queue.push(split);
    }
  }

  /** Every file taken: the one being read at its position, those queued, and the finished ones as markers. */
  snapshotState(): FileSourceSplit[] {
    const splits: FileSourceSplit[] = [];
    const pending = new Set<string>();
    this.queue.forEach((split, i) => {
      pending.add(split.path);
      const at = i === 0 ? (this.cursor?.position() ?? split) : split;
      splits.push(fileSplit(split.path, at));
    });
    for (const path of this.seen)
      if (!pending.has(path)) splits.push(fileSplit(path, { offset: 0, line: 0 }, true));
    return splits;
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
      if (this.seen.has(file) || monitoredFileOwner(file, parallelism) !== subtaskIndex) continue;
      this.seen.add(file);
      this.queue.push(fileSplit(file, { offset: 0, line: 0 }));
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
