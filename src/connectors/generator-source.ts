// GeneratorSource: Flink's DataGeneratorSource: records computed from their index, seeded, optionally rate-limited.
import { ConfigurationError } from '../core/errors.ts';
import { SystemClock, type ProcessingTimeClock } from '../core/clock.ts';
import { RateLimiter } from './rate-limiter.ts';
import { SeededRandom } from './seeded-random.ts';
import type { PollResult, ReaderOutput, Source, SourceReader, SourceReaderContext } from '../core/source.ts';

/** Computes record `index`. `random` is reseeded from (seed, index) before each call: use it only inside the call. */
export type GeneratorFunction<T> = (index: number, random: SeededRandom) => T;

/** Options of {@link GeneratorSource.of}. */
export interface GeneratorSourceOptions {
  /** Records per second across all subtasks (default: unthrottled). */
  ratePerSecond?: number;
  /** Seed of the random numbers handed to the generator function (default 0). */
  seed?: number;
  /** Records per poll when unthrottled (default 1000). */
  batchSize?: number;
  /**
   * The clock that paces a rate-limited source (default: the system clock). Pass the ManualClock a test uses to
   * step the pacing by hand.
   */
  clock?: ProcessingTimeClock;
}

/** Batches per second a throttled subtask aims for: fine enough to look smooth, coarse enough to stay cheap. */
const THROTTLED_BATCHES_PER_SECOND = 100;

/**
 * Generates `count` records (or an unbounded stream with `Infinity`) by calling a function with each index
 * 0, 1, 2, ... and a seeded random generator — Flink's DataGeneratorSource.
 *
 * **Determinism.** The random generator is reseeded before every record from `(seed, index)`, so record `i` is
 * the same on every run and at every parallelism. Subtask `s` of `p` takes indices `s, s + p, s + 2p, ...`
 * (strided rather than contiguous ranges, so an unbounded count splits too); the union over the subtasks is the
 * same set of records whatever `p` is.
 *
 * **Rate.** With `ratePerSecond`, each of the `p` subtasks emits `ratePerSecond / p` records per second in small
 * batches (about 100 per second), waiting on a clock timer between them, never spinning.
 *
 * **Position.** A subtask's checkpointed position is its next index; restore at the same parallelism.
 *
 * @example
 * const clicks = env.fromSource(
 *   GeneratorSource.of(1_000_000, (i, random) => ({ id: i, user: random.nextInt(10_000), ts: i * 10 }), { seed: 7 }),
 *   WatermarkStrategy.forMonotonousTimestamps().withTimestampAssigner((c) => c.ts),
 *   'clicks',
 * );
 */
export class GeneratorSource<T> implements Source<T> {
  readonly boundedness: 'bounded' | 'unbounded';
  readonly ratePerSecond: number | undefined;
  readonly seed: number;
  readonly batchSize: number;

  private constructor(
    readonly count: number,
    private readonly generator: GeneratorFunction<T>,
    private readonly options: GeneratorSourceOptions,
  ) {
    if (!(count === Number.POSITIVE_INFINITY || (Number.isSafeInteger(count) && count >= 0))) {
      throw new ConfigurationError(
        `GeneratorSource: count must be a non-negative integer or Infinity, got ${count}`,
      );
    }
    if (typeof generator !== 'function') {
      throw new ConfigurationError(
        `GeneratorSource: the generator must be a function, got ${typeof generator}`,
      );
    }
    const rate = options.ratePerSecond;
    if (rate !== undefined && !(rate > 0 && Number.isFinite(rate))) {
      throw new ConfigurationError(
        `GeneratorSource: ratePerSecond must be a positive finite number, got ${rate}`,
      );
    }
    const seed = options.seed ?? 0;
    if (!Number.isInteger(seed))
      throw new ConfigurationError(`GeneratorSource: seed must be an integer, got ${seed}`);
    const batchSize = options.batchSize ?? 1000;
    if (!(Number.isSafeInteger(batchSize) && batchSize >= 1)) {
      throw new ConfigurationError(`GeneratorSource: batchSize must be a positive integer, got ${batchSize}`);
    }
    this.boundedness = count === Number.POSITIVE_INFINITY ? 'unbounded' : 'bounded';
    this.ratePerSecond = rate;
    this.seed = seed;
    this.batchSize = batchSize;
  }

  /**
   * A source of `count` records computed by `generator(index, random)`.
   *
   * @example
   * GeneratorSource.of(10, (i) => i * i); // 0, 1, 4, ..., 81
   * GeneratorSource.of(Infinity, (i, r) => r.next(), { ratePerSecond: 500, seed: 1 });
   */
  static of<T>(
    count: number,
    generator: GeneratorFunction<T>,
    options: GeneratorSourceOptions = {},
  ): GeneratorSource<T> {
    return new GeneratorSource(count, generator, options);
  }

  createReader(context: SourceReaderContext): SourceReader<T> {
    const { subtaskIndex, parallelism } = context;
    let limiter: RateLimiter | undefined;
    let batch = this.batchSize;
    if (this.ratePerSecond !== undefined) {
      const rate = this.ratePerSecond / parallelism;
      limiter = new RateLimiter(rate, this.options.clock ?? context.clock ?? new SystemClock());
      batch = Math.max(1, Math.min(batch, Math.floor(rate / THROTTLED_BATCHES_PER_SECOND)));
    }
    return new GeneratorReader(
      this.generator,
      this.count,
      this.seed,
      subtaskIndex,
      parallelism,
      batch,
      limiter,
    );
  }
}

class GeneratorReader<T> implements SourceReader<T> {
  private readonly random = new SeededRandom();
  private next: number;
  private closed = false;

  constructor(
    private readonly generator: GeneratorFunction<T>,
    private readonly count: number,
    private readonly seed: number,
    private readonly subtaskIndex: number,
    private readonly stride: number,
    private readonly batch: number,
    private readonly limiter: RateLimiter | undefined,
  ) {
    this.next = subtaskIndex;
  }

  pollNext(output: ReaderOutput<T>): PollResult | Promise<PollResult> {
    if (this.next >= this.count || this.closed) return 'end';
    if (this.limiter !== undefined) {
      const wait = this.limiter.acquire(this.batch);
      if (wait !== undefined) return wait.then(() => (this.closed ? 'end' : this.emit(output)));
    }
    return this.emit(output);
  }

  /** The hot loop: one generator call and one collect per record, nothing else allocated. */
  private emit(output: ReaderOutput<T>): PollResult {
    const { generator, random, seed, stride, count } = this;
    let index = this.next;
    for (let i = 0; i < this.batch && index < count; i++) {
      random.setSeed(SeededRandom.seedFor(seed, index));
      const value = generator(index, random);
      // Advance before emitting, so a snapshot taken downstream of this record never replays it.
      index += stride;
      this.next = index;
      output.collect(value);
    }
    return index < count ? 'more' : 'end';
  }

  snapshotPosition(): unknown {
    return this.next;
  }

  restorePosition(position: unknown): void {
    if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) {
      throw new ConfigurationError(
        `GeneratorSource: cannot restore from position ${String(position)}; expected the next index`,
      );
    }
    if ((position - this.subtaskIndex) % this.stride !== 0) {
      throw new ConfigurationError(
        `GeneratorSource: position ${position} does not belong to subtask ${this.subtaskIndex + 1}/${this.stride}; restore at the parallelism of the snapshot`,
      );
    }
    this.next = position;
  }

  close(): void {
    this.closed = true;
    this.limiter?.cancel();
  }
}
