// AsyncIterableSource: a source over an async iterable (a Node stream, a paginated API, an async generator).
import { ConfigurationError } from '../core/errors.ts';
import { defaultLogger, type Logger } from '../core/logger.ts';
import type {
  PollResult,
  ReaderOutput,
  Source,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
} from '../core/source.ts';
import { checkSequenceSplit, type SequenceSplit } from './sequence-split.ts';

const BATCH = 1024;
/** How long a poll waits for a slow iterable before handing control back (so barriers and timers go in). */
const IDLE_WAIT_MS = 50;
const TURN = Symbol('turn');

/** An async iterable, or a function that starts one (needed to replay it after a restore). */
export type AsyncIterableInput<T> = AsyncIterable<T> | (() => AsyncIterable<T>);

/**
 * Emits the items of an async iterable in order, with parallelism 1 and without timestamps. Items that are ready
 * without waiting for I/O are emitted as one batch; a poll returns as soon as the next item is not ready within
 * an event-loop turn, and an idle iterable hands control back every 50 ms, so checkpoint barriers and timers are
 * never held up for long.
 *
 * The iterable is one split, checkpointed with the number of items emitted. Given a function that starts the
 * iterable, a restored job (at any parallelism) calls it again and skips that many items (replay, as for
 * `fromCollection`); given an iterable itself, which cannot be replayed, a restore from a split after its start
 * fails with a clear error rather than losing items.
 */
export class AsyncIterableSource<T> implements Source<T, SequenceSplit> {
  readonly boundedness = 'bounded' as const;

  constructor(private readonly input: AsyncIterableInput<T>) {
    const ok =
      typeof input === 'function' ||
      (input !== null && typeof (input as Partial<AsyncIterable<T>>)?.[Symbol.asyncIterator] === 'function');
    if (!ok) {
      throw new ConfigurationError(
        `fromAsyncIterable() needs an async iterable or a function returning one, got ${String(input)}`,
      );
    }
  }

  createEnumerator(): SplitEnumerator<SequenceSplit> {
    return { initialSplits: () => [{ emitted: 0 }] };
  }

  createReader(context: SourceReaderContext): SourceReader<T, SequenceSplit> {
    return new AsyncIterableReader(this.input, context.sourceName, context.logger ?? defaultLogger());
  }
}

class AsyncIterableReader<T> implements SourceReader<T, SequenceSplit> {
  private iterator: AsyncIterator<T> | undefined = undefined;
  private pending: Promise<IteratorResult<T>> | undefined = undefined;
  private owned = false;
  private finished = false;
  private emitted = 0;
  private skip = 0;

  constructor(
    private readonly input: AsyncIterableInput<T>,
    private readonly sourceName: string,
    private readonly logger: Logger,
  ) {}

  addSplits(splits: SequenceSplit[]): void {
    for (const split of splits) {
      const emitted = checkSequenceSplit(split, this.sourceName).emitted;
      if (emitted > 0 && typeof this.input !== 'function') {
        throw new ConfigurationError(
          `Source '${this.sourceName}': cannot replay an async iterable from item ${emitted}; pass a function that starts it (env.fromAsyncIterable(() => iterable)) to restore from a checkpoint`,
        );
      }
      this.skip = this.emitted = emitted;
      this.owned = true;
    }
  }

  async pollNext(output: ReaderOutput<T>): Promise<PollResult> {
    if (!this.owned || this.finished) return 'end';
    if (this.iterator === undefined) {
      const iterable = typeof this.input === 'function' ? this.input() : this.input;
      this.iterator = iterable[Symbol.asyncIterator]();
      for (; this.skip > 0; this.skip--) {
        this.pending = this.iterator.next();
        const skipped = await this.pending;
        this.pending = undefined;
        if (skipped.done === true) return this.finish();
      }
    }
    // The first item may wait up to IDLE_WAIT_MS, the rest only until the end of this event-loop turn.
    const idle = deferTurn(true);
    const turn = deferTurn(false);
    try {
      for (let i = 0; i < BATCH; i++) {
        this.pending ??= this.iterator.next();
        const result = await Promise.race([this.pending, i === 0 ? idle.promise : turn.promise]);
        if (result === TURN) return 'more';
        this.pending = undefined;
        if (result.done === true) return this.finish();
        this.emitted++;
        output.collect(result.value);
      }
      return 'more';
    } finally {
      idle.cancel();
      turn.cancel();
    }
  }

  private finish(): PollResult {
    this.finished = true;
    return 'end';
  }

  /** The iterable as one split with the number of items emitted, until it is finished. */
  snapshotState(): SequenceSplit[] {
    return this.owned && !this.finished ? [{ emitted: this.emitted }] : [];
  }

  /**
   * Ends the iterator through `return()`. While a `next()` is still pending (the job is cancelled or failed while
   * the iterable waits, perhaps forever), nothing can abort it, and an async generator only runs `return()` once
   * that `next()` settles: close then calls `return()` without waiting for it, so the job ends at once; a
   * generator runs its `finally` blocks if its pending `next()` ever settles.
   */
  async close(): Promise<void> {
    const iterator = this.iterator;
    if (iterator?.return === undefined) return;
    if (this.pending === undefined) {
      await iterator.return();
      return;
    }
    const failed = (error: unknown): void =>
      this.logger.warn(
        { operator: this.sourceName },
        `'${this.sourceName}': the async iterable's return() failed while its next() was pending: ${error instanceof Error ? error.message : String(error)}`,
      );
    try {
      Promise.resolve(iterator.return()).catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}

/** A promise of TURN after 50 ms (idle) or at the end of this event-loop turn; cancel frees its timer. */
function deferTurn(idle: boolean): { promise: Promise<typeof TURN>; cancel(): void } {
  let cancel!: () => void;
  const promise = new Promise<typeof TURN>((resolve) => {
    if (idle) {
      const handle = setTimeout(() => resolve(TURN), IDLE_WAIT_MS);
      cancel = () => clearTimeout(handle);
    } else {
      const handle = setImmediate(() => resolve(TURN));
      cancel = () => clearImmediate(handle);
    }
  });
  return { promise, cancel };
}
