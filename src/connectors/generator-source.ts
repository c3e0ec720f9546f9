// GeneratorSource: Flink's DataGeneratorSource: records computed from their index, seeded, optionally rate-limited.
import { ConfigurationError } from '../core/errors.ts';
import { SystemClock, type ProcessingTimeClock } from '../core/clock.ts';
import { RateLimiter } from './rate-limiter.ts';
import { SeededRandom } from './seeded-random.ts';
import type {
  PollResult,
  ReaderOutput,
  Source,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '../core/source.ts';

/**
 * Computes record `index`. `random` is seeded from (seed, index) for each call (at its first draw): use it only
 * inside the call.
 */
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
 * **Splits.** A fresh subtask s of p reads one {@link GeneratorSplit}, (next s, stride p), and checkpoints the
 * splits it has not finished with the index each reached. On restore at another parallelism the unfinished splits
 * of all old subtasks are dealt out round-robin over the new subtasks, so a savepoint restores exactly at any
 * parallelism (each remaining index once; a subtask may get several splits, or none when there are fewer splits
 * than subtasks).
 *
 * @example
 * const clicks = env.fromSource(
 *   GeneratorSource.of(1_000_000, (i, random) => ({ id: i, user: random.nextInt(10_000), ts: i * 10 }), { seed: 7 }),
 *   WatermarkStrategy.forMonotonousTimestamps().withTimestampAssigner((c) => c.ts),
 *   'clicks',
 * );
 */
export class GeneratorSource<T> implements Source<T, GeneratorSplit> {
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

  /** One split per subtask: subtask s of p starts with indices s, s + p, s + 2p, ... */
  createEnumerator(context: SplitEnumeratorContext): SplitEnumerator<GeneratorSplit> {
    const splits: GeneratorSplit[] = [];
    for (let s = 0; s < context.parallelism; s++) splits.push({ next: s, stride: context.parallelism });
    return { initialSplits: () => splits };
  }

  createReader(context: SourceReaderContext): SourceReader<T, GeneratorSplit> {
    const { parallelism } = context;
    let limiter: RateLimiter | undefined;
    let batch = this.batchSize;
    if (this.ratePerSecond !== undefined) {
      const rate = this.ratePerSecond / parallelism;
      limiter = new RateLimiter(rate, this.options.clock ?? context.clock ?? new SystemClock());
      batch = Math.max(1, Math.min(batch, Math.floor(rate / THROTTLED_BATCHES_PER_SECOND)));
    }
    return new GeneratorReader(this.generator, this.count, this.seed, batch, limiter, context.sourceName);
  }
}

/**
 * A split of a generator: the indices `next`, `next + stride`, `next + 2 * stride`, ... below the count. A fresh
 * subtask s of p reads (s, p); the split is checkpointed with the index it reaches.
 */
export interface GeneratorSplit {
  readonly next: number;
  readonly stride: number;
}

/**
 * The random a generator function gets: seeded from (seed, index) for each record, but only when the function first
 * draws from it, so a function that takes no random (or draws for some records only) pays nothing per record. Every
 * draw goes through `nextUint32`, so the values are those of a random reseeded before each call.
 */
class RecordRandom extends SeededRandom {
  private index = 0;
  private pending = false;

  constructor(private readonly seed: number) {
    super();
  }

  /** Record `index` is next: its seed is set at its first draw. */
  forRecord(index: number): void {
    this.index = index;
    this.pending = true;
  }

  override setSeed(seed: number): void {
    this.pending = false;
    super.setSeed(seed);
  }

  override nextUint32(): number {
    if (this.pending) this.setSeed(SeededRandom.seedFor(this.seed, this.index));
    return super.nextUint32();
  }
}

/**
 * Reads its splits one after the other. After a restore at another parallelism a subtask may hold several splits
 * of the old subtasks, or none.
 */
class GeneratorReader<T> implements SourceReader<T, GeneratorSplit> {
  private readonly random: RecordRandom;
  /** The current split. */
  private next: number;
  private stride = 1;
  /** The splits after the current one. */
  private queued: GeneratorSplit[] = [];
  private closed = false;

  constructor(
    private readonly generator: GeneratorFunction<T>,
    private readonly count: number,
    seed: number,
    private readonly batch: number,
    private readonly limiter: RateLimiter | undefined,
    private readonly sourceName: string,
  ) {
    this.next = count;
    this.random = new RecordRandom(seed);
  }

  addSplits(splits: GeneratorSplit[]): void {
    for (const split of splits) {
      const { next, stride } = (split ?? {}) as Partial<GeneratorSplit>;
      if (!(Number.isSafeInteger(next) && next! >= 0 && Number.isSafeInteger(stride) && stride! >= 1)) {
        throw new ConfigurationError(
          `GeneratorSource '${this.sourceName}': not a split: ${JSON.stringify(split)}; expected { next, stride } with next >= 0 and stride >= 1`,
        );
      }
      this.queued.push({ next: next!, stride: stride! });
    }
    if (this.next >= this.count) this.nextSplit();
  }

  pollNext(output: ReaderOutput<T>): PollResult | Promise<PollResult> {
    if (this.exhausted() || this.closed) return 'end';
    if (this.limiter !== undefined) {
      const wait = this.limiter.acquire(this.batch);
      if (wait !== undefined) return wait.then(() => (this.closed ? 'end' : this.emit(output)));
    }
    return this.emit(output);
  }

  /** The hot loop: one generator call and one collect per record, nothing else allocated. */
  private emit(output: ReaderOutput<T>): PollResult {
    const { generator, random, count } = this;
    let emitted = 0;
    while (emitted < this.batch) {
      const stride = this.stride;
      let index = this.next;
      for (; emitted < this.batch && index < count; emitted++) {
        random.forRecord(index);
        const value = generator(index, random);
        // Advance before emitting, so a snapshot taken downstream of this record never replays it.
        index += stride;
        this.next = index;
        output.collect(value);
      }
      if (index < count || !this.nextSplit()) break;
    }
    return this.exhausted() ? 'end' : 'more';
  }

  /** Moves on to the next queued split; false when none is left. */
  private nextSplit(): boolean {
    const split = this.queued.shift();
    if (split === undefined) return false;
    this.next = split.next;
    this.stride = split.stride;
    return true;
  }

  private exhausted(): boolean {
    while (this.next >= this.count) if (!this.nextSplit()) return true;
    return false;
  }

  /** The unfinished splits, the current one first. */
  snapshotState(): GeneratorSplit[] {
    const splits: GeneratorSplit[] = [];
    if (this.next < this.count) splits.push({ next: this.next, stride: this.stride });
    for (const split of this.queued) if (split.next < this.count) splits.push(split);
    return splits;
  }

  close(): void {
    this.closed = true;
    this.limiter?.cancel();
  }
}
