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
 * **Position.** A subtask's checkpointed position is its remaining splits: (next index, stride) pairs, one for a
 * fresh subtask. On restore the unfinished splits of all old subtasks are dealt out round-robin over the new
 * subtasks, so a savepoint restores exactly at any parallelism (each remaining index once; a subtask may get several
 * splits, or none when there are fewer splits than subtasks).
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
  /** Every reader sees every old subtask's splits on restore, so the source rescales exactly. */
  readonly positionDistribution = 'union' as const;
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

/**
 * Reads its splits one after the other. A split is an arithmetic progression of indices: `next`, `next + stride`,
 * ... below `count`. A fresh subtask s of p has one split (s, p); after a restore at another parallelism a subtask
 * may hold several splits of the old subtasks, or none.
 */
class GeneratorReader<T> implements SourceReader<T> {
  private readonly random = new SeededRandom();
  /** The current split. */
  private next: number;
  private stride: number;
  /** The splits after the current one, as flat (next, stride) pairs. */
  private queued: number[] = [];
  private closed = false;

  constructor(
    private readonly generator: GeneratorFunction<T>,
    private readonly count: number,
    private readonly seed: number,
    private readonly subtaskIndex: number,
    private readonly parallelism: number,
    private readonly batch: number,
    private readonly limiter: RateLimiter | undefined,
  ) {
    this.next = subtaskIndex;
    this.stride = parallelism;
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
    const { generator, random, seed, count } = this;
    let emitted = 0;
    while (emitted < this.batch) {
      const stride = this.stride;
      let index = this.next;
      for (; emitted < this.batch && index < count; emitted++) {
        random.setSeed(SeededRandom.seedFor(seed, index));
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
    if (this.queued.length === 0) return false;
    this.next = this.queued.shift()!;
    this.stride = this.queued.shift()!;
    return true;
  }

  private exhausted(): boolean {
    while (this.next >= this.count) if (!this.nextSplit()) return true;
    return false;
  }

  /** The remaining splits, as flat (next, stride) pairs: the current one first. */
  snapshotPosition(): number[] {
    return [this.next, this.stride, ...this.queued];
  }

  /**
   * Takes this subtask's share of every old subtask's splits (Flink's union list state). At the same parallelism a
   * subtask keeps its own splits; at another, all unfinished splits in old-subtask order are dealt out, the k-th to
   * subtask k mod p. So a restore at any parallelism emits each remaining
   * index exactly once. A position that is a bare number is the format before splits: the next index of old
   * subtask s, striding by the old parallelism.
   */
  restorePosition(positions: unknown): void {
    if (!Array.isArray(positions)) throw this.badPosition(positions);
    const splits: number[] = [];
    positions.forEach((position: unknown) => {
      if (position === undefined) return;
      if (typeof position === 'number') {
        splits.push(position, positions.length);
        return;
      }
      if (!Array.isArray(position) || position.length % 2 !== 0) throw this.badPosition(position);
      splits.push(...(position as number[]));
    });
    for (const n of splits) if (!Number.isSafeInteger(n) || n < 0) throw this.badPosition(positions);
    for (let i = 1; i < splits.length; i += 2) if (splits[i] === 0) throw this.badPosition(positions);
    let mine: number[] = [];
    if (positions.length === this.parallelism) {
      // Same parallelism: every subtask keeps its own splits, so nothing moves.
      const own: unknown = positions[this.subtaskIndex];
      mine =
        typeof own === 'number' ? [own, this.parallelism] : Array.isArray(own) ? [...(own as number[])] : [];
    } else {
      let k = 0;
      for (let i = 0; i < splits.length; i += 2) {
        if (splits[i]! >= this.count) continue;
        if (k++ % this.parallelism === this.subtaskIndex) mine.push(splits[i]!, splits[i + 1]!);
      }
    }
    this.queued = mine;
    this.next = this.count;
    this.stride = 1;
    this.nextSplit();
  }

  private badPosition(position: unknown): ConfigurationError {
    return new ConfigurationError(
      `GeneratorSource: cannot restore from position ${JSON.stringify(position)}; expected each subtask's splits as (next index, stride) pairs`,
    );
  }

  close(): void {
    this.closed = true;
    this.limiter?.cancel();
  }
}
