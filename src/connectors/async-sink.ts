// AsyncSink: a sink that writes batches through a Promise-returning client, bounded in flight, at least once.
import type { AsyncRetryStrategy } from '../core/async-retry-strategy.ts';
import { ConfigurationError, IllegalStateError } from '../core/errors.ts';
import type { ScheduledCallback } from '../core/clock.ts';
import type { Sink, SinkWriter, SinkWriterContext } from '../core/sink.ts';

/** Options of {@link AsyncSink.of}. */
export interface AsyncSinkOptions<T> {
  /** Writes one batch (e.g. `db.insertMany(batch)`); the batch counts as written once the Promise resolves. */
  write(batch: T[]): Promise<unknown>;
  /** Records per write at most (default 100). */
  maxBatchSize?: number;
  /** Writes in flight at once per subtask (default 4). */
  maxInFlightRequests?: number;
  /** Records buffered and in flight per subtask before the sources upstream stop (default 10 000). */
  maxBufferedRequests?: number;
  /** A partial batch is written once its oldest record waited this long (default 0: only when full or at a checkpoint). */
  maxTimeInBufferMs?: number;
  /** Retries a rejected write (default: none, a rejected write fails the job). */
  retry?: AsyncRetryStrategy<unknown>;
}

/**
 * Flink's AsyncSinkBase idea: records are buffered into batches, written by an asynchronous client with at most
 * `maxInFlightRequests` writes in flight; while `maxBufferedRequests` records are pending the sources upstream
 * stop polling. At a checkpoint barrier the partial batch is sent and every record not yet acknowledged (in
 * flight or buffered) goes into the checkpoint; a restore writes them again. So the sink is at least once, and a
 * checkpoint never waits for the database. The job ends once every write was acknowledged.
 *
 * @example
 * readings.sinkTo(
 *   AsyncSink.of({ write: (batch) => pool.query(insertMany(batch)), maxBatchSize: 500, maxInFlightRequests: 2 }),
 *   'Postgres',
 * );
 */
export class AsyncSink<T> implements Sink<T> {
  /** Writer states are arrays of records, so they are split and merged when the parallelism changes. */
  readonly redistributesState = true;

  private constructor(
    private readonly options: Required<Omit<AsyncSinkOptions<T>, 'retry'>> & AsyncSinkOptions<T>,
  ) {}

  /** An asynchronous sink over a batch-writing client. */
  static of<T>(options: AsyncSinkOptions<T>): AsyncSink<T> {
    if (options === null || typeof options?.write !== 'function')
      throw new ConfigurationError('AsyncSink.of() needs a write(batch) function returning a Promise');
    const resolved = {
      maxBatchSize: 100,
      maxInFlightRequests: 4,
      maxBufferedRequests: 10_000,
      maxTimeInBufferMs: 0,
      ...options,
    };
    for (const key of ['maxBatchSize', 'maxInFlightRequests', 'maxBufferedRequests'] as const) {
      const v = resolved[key];
      if (!Number.isInteger(v) || v < 1)
        throw new ConfigurationError(`AsyncSink: ${key} must be a positive integer, got ${v}`);
    }
    if (resolved.maxBufferedRequests < resolved.maxBatchSize)
      throw new ConfigurationError(
        `AsyncSink: maxBufferedRequests (${resolved.maxBufferedRequests}) must be >= maxBatchSize (${resolved.maxBatchSize})`,
      );
    if (!(resolved.maxTimeInBufferMs >= 0) || !Number.isFinite(resolved.maxTimeInBufferMs))
      throw new ConfigurationError(
        `AsyncSink: maxTimeInBufferMs must be >= 0, got ${resolved.maxTimeInBufferMs}`,
      );
    return new AsyncSink(resolved);
  }

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    return new AsyncSinkWriter(this.options, context);
  }
}

/** One subtask's writer: a buffer, the batches in flight, and a count that drives backpressure. */
class AsyncSinkWriter<T> implements SinkWriter<T> {
  private buffer: T[] = [];
  private readonly inFlight = new Set<T[]>();
  /** Records buffered or in flight. */
  private pending = 0;
  private blocked = false;
  private stopped = false;
  private timer: ScheduledCallback | undefined = undefined;
  private drained: { resolve: () => void; reject: (error: unknown) => void } | undefined = undefined;

  constructor(
    private readonly options: Required<Omit<AsyncSinkOptions<T>, 'retry'>> & AsyncSinkOptions<T>,
    private readonly context: SinkWriterContext,
  ) {
    const restored = context.restoredState as T[] | undefined;
    if (restored !== undefined && restored.length > 0) {
      // Records not acknowledged at the checkpoint are written again: at least once.
      for (const value of restored) this.add(value);
      this.flush(false);
    }
  }

  write(value: T): void {
    this.add(value);
  }

  private add(value: T): void {
    this.buffer.push(value);
    this.pending++;
    if (this.buffer.length >= this.options.maxBatchSize) this.flush(true);
    else if (this.buffer.length === 1 && this.options.maxTimeInBufferMs > 0) this.startTimer();
    this.updateBackpressure();
  }

  /** Sends buffered records while writes may start: full batches only, or the partial one too. */
  private flush(fullOnly: boolean): void {
    while (
      !this.stopped &&
      this.buffer.length > 0 &&
      this.inFlight.size < this.options.maxInFlightRequests &&
      (!fullOnly || this.buffer.length >= this.options.maxBatchSize)
    ) {
      const batch =
        this.buffer.length <= this.options.maxBatchSize
          ? this.buffer
          : this.buffer.slice(0, this.options.maxBatchSize);
      this.buffer = batch === this.buffer ? [] : this.buffer.slice(batch.length);
      this.send(batch, 1);
    }
    if (this.buffer.length === 0) this.stopTimer();
  }

  private send(batch: T[], attempt: number): void {
    this.inFlight.add(batch);
    let written: Promise<unknown>;
    try {
      written = this.options.write(batch);
      if (typeof (written as Partial<Promise<unknown>>)?.then !== 'function')
        throw new IllegalStateError(`AsyncSink write() returned ${typeof written}, not a Promise`);
    } catch (error) {
      this.fail(error);
      return;
    }
    written.then(
      () => this.acknowledged(batch),
      (error: unknown) => this.rejected(batch, attempt, error),
    );
  }

  private acknowledged(batch: T[]): void {
    if (this.stopped) return;
    this.inFlight.delete(batch);
    this.pending -= batch.length;
    this.flush(this.drained === undefined);
    this.updateBackpressure();
    this.checkDrained();
  }

  private rejected(batch: T[], attempt: number, error: unknown): void {
    if (this.stopped) return;
    const retry = this.options.retry;
    const clock = this.context.clock;
    if (
      retry !== undefined &&
      clock !== undefined &&
      attempt < retry.maxAttempts &&
      (retry.ifException?.(error) ?? true)
    ) {
      // The batch stays in flight (and in checkpoints) until a retry succeeds.
      clock.schedule(clock.now() + retry.backoffMs(attempt), () => {
        if (this.stopped) return;
        this.inFlight.delete(batch);
        this.send(batch, attempt + 1);
      });
      return;
    }
    this.fail(error);
  }

  snapshotState(): unknown {
    // The barrier flushes the partial batch; whatever is not acknowledged yet is replayed after a restore.
    this.flush(false);
    const unacknowledged: T[] = [];
    for (const batch of this.inFlight) unacknowledged.push(...batch);
    unacknowledged.push(...this.buffer);
    return unacknowledged;
  }

  endOfInput(): void | Promise<void> {
    this.flush(false);
    if (this.pending === 0) return;
    return new Promise<void>((resolve, reject) => (this.drained = { resolve, reject }));
  }

  close(): void {
    this.stopped = true;
    this.stopTimer();
  }

  private checkDrained(): void {
    if (this.drained !== undefined && this.pending === 0) {
      const drained = this.drained;
      this.drained = undefined;
      drained.resolve();
    }
  }

  private updateBackpressure(): void {
    const full = this.pending >= this.options.maxBufferedRequests;
    if (full === this.blocked || this.context.setBackpressure === undefined) return;
    this.blocked = full;
    this.context.setBackpressure(full);
  }

  private startTimer(): void {
    const clock = this.context.clock;
    if (clock === undefined || this.timer !== undefined) return;
    this.timer = clock.schedule(clock.now() + this.options.maxTimeInBufferMs, () => {
      this.timer = undefined;
      if (this.stopped) return;
      this.flush(false);
      if (this.buffer.length > 0) this.startTimer();
      this.updateBackpressure();
    });
  }

  private stopTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopTimer();
    if (this.blocked) this.context.setBackpressure?.(false);
    const failJob = this.context.failJob;
    if (failJob !== undefined) failJob(error, 'an asynchronous write');
    if (this.drained !== undefined) this.drained.reject(error);
    else if (failJob === undefined) throw error;
  }
}
