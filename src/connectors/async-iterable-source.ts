// AsyncIterableSource: a source over an async iterable (a Node stream, a paginated API, an async generator).
import { ConfigurationError } from '../core/errors.ts';
import type { PollResult, ReaderOutput, Source, SourceReader, SourceReaderContext } from '../core/source.ts';

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
 * Its position is the number of items emitted. Given a function that starts the iterable, a restored job calls
 * it again and skips that many items (replay, as for `fromCollection`); given an iterable itself, which cannot
 * be replayed, a restore from a position after its start fails with a clear error rather than losing items.
 */
export class AsyncIterableSource<T> implements Source<T> {
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

  createReader(context: SourceReaderContext): SourceReader<T> {
    return new AsyncIterableReader(context.subtaskIndex === 0 ? this.input : undefined, context.sourceName);
  }
}

class AsyncIterableReader<T> implements SourceReader<T> {
  private iterator: AsyncIterator<T> | undefined = undefined;
  private pending: Promise<IteratorResult<T>> | undefined = undefined;
  private emitted = 0;
  private skip = 0;

  constructor(
    private readonly input: AsyncIterableInput<T> | undefined,
    private readonly sourceName: string,
  ) {}

  async pollNext(output: ReaderOutput<T>): Promise<PollResult> {
    if (this.input === undefined) return 'end';
    if (this.iterator === undefined) {
      const iterable = typeof this.input === 'function' ? this.input() : this.input;
      this.iterator = iterable[Symbol.asyncIterator]();
      for (; this.skip > 0; this.skip--) if ((await this.iterator.next()).done) return 'end';
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
        if (result.done === true) return 'end';
        this.emitted++;
        output.collect(result.value);
      }
      return 'more';
    } finally {
      idle.cancel();
      turn.cancel();
    }
  }

  snapshotPosition(): unknown {
    return this.emitted;
  }

  restorePosition(position: unknown): void {
    const emitted = Number(position);
    if (emitted > 0 && typeof this.input !== 'function' && this.input !== undefined) {
      throw new ConfigurationError(
        `Source '${this.sourceName}': cannot replay an async iterable from item ${emitted}; pass a function that starts it (env.fromAsyncIterable(() => iterable)) to restore from a checkpoint`,
      );
    }
    this.skip = this.emitted = emitted;
  }

  async close(): Promise<void> {
    await this.iterator?.return?.();
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
