// MergedWatermark: a repartition consumer's event time: the minimum over (assigned partition, known producer).
import { MAX_WATERMARK, MIN_WATERMARK } from '../../core/time-domain.ts';

/** Where the merged watermark and idleness go (the consumer task's output). */
export interface MergedWatermarkOutput {
  emitWatermark(watermark: number): void;
  /** The consumer became idle (every channel idle or ended) or active again. */
  markIdle(idle: boolean): void;
}

const UNKNOWN = 0;
const ACTIVE = 1;
const IDLE = 2;
const ENDED = 3;

/**
 * The channels' state as plain data: what a consumer task commits with its input position, so its next owner,
 * resuming there, holds what the markers before that position said (they are not read again).
 */
export interface MergedWatermarkState {
  readonly producers: readonly {
    readonly producer: string;
    readonly watermarks: readonly number[];
    readonly status: readonly number[];
  }[];
}

/** One producer's channels: one per assigned partition, each with the last marker read there. */
interface Channels {
  readonly watermarks: Float64Array;
  readonly status: Uint8Array;
}

/**
 * A channel is one producer's stream of markers in one assigned partition; the producer writes the same markers
 * into every partition, each in order with the records it wrote there. The merged watermark is the minimum over
 * the watermarks of the active channels, as Flink's StatusWatermarkValve merges input channels, and only ever
 * rises. Rules for who counts:
 * - The producers the consumer is told to expect (the upstream tasks, known from the job) are known from the
 *   start, so nothing is emitted before each has been heard on every assigned partition.
 * - A producer not expected becomes known when its first marker is read on any assigned partition (a producer
 *   writes one before its first record). From then on it holds the watermark back on every assigned partition
 *   until its marker has been read there too: a partition not read that far may still hold its earlier records.
 * - An idle channel does not count; when every channel is idle or ended, the consumer is idle (and when the last
 *   active channel held the merged watermark, the highest over every idle channel is emitted first). A channel whose
 *   producer ended does not count either; when all have ended, the final watermark (+Infinity) is emitted.
 * Cost: a marker recomputes over producers × partitions (markers are rare next to records); records cost nothing.
 */
export class MergedWatermark {
  private readonly producers = new Map<string, Channels>();
  private combined = MIN_WATERMARK;
  private idle = false;
  private ended = false;

  constructor(
    private readonly slots: number,
    expected: readonly string[],
    private readonly output: MergedWatermarkOutput,
  ) {
    for (const producer of expected) this.channels(producer);
  }

  /** The last merged watermark emitted (MIN_WATERMARK before the first). */
  get current(): number {
    return this.combined;
  }

  /** Whether every producer ended on every partition (the final watermark was emitted). */
  get isEnded(): boolean {
    return this.ended;
  }

  /** The producers known so far, expected or heard from. */
  get knownProducers(): string[] {
    return [...this.producers.keys()];
  }

  /** A `watermark` marker of `producer` read in partition slot `slot`: the channel is active at `watermark`. */
  onWatermark(slot: number, producer: string, watermark: number): void {
    const c = this.channels(producer);
    if (c.status[slot] === ENDED) return;
    c.status[slot] = ACTIVE;
    if (watermark > c.watermarks[slot]!) c.watermarks[slot] = watermark;
    this.recompute();
  }

  /** An `idle` marker: the channel stops holding the watermark back until the producer's next watermark. */
  onIdle(slot: number, producer: string): void {
    const c = this.channels(producer);
    if (c.status[slot] === ENDED) return;
    const heldCombined = c.status[slot] === ACTIVE && c.watermarks[slot] === this.combined;
    c.status[slot] = IDLE;
    // As Flink's StatusWatermarkValve: when the last active channel goes idle holding the merged watermark, the
    // highest watermark over every channel is emitted first. Otherwise a channel that went idle behind the others
    // (a producer task that moved and whose new owner has nothing left to read) would hold event time back for good.
    if (heldCombined && !this.hasActiveOrUnknown()) this.flushMax();
    this.recompute();
  }

  /** An `end` marker: the channel is finished for good. */
  onEnd(slot: number, producer: string): void {
    this.channels(producer).status[slot] = ENDED;
    this.recompute();
  }

  /** The channels' watermarks and statuses, for {@link restore}. */
  snapshot(): MergedWatermarkState {
    return {
      producers: [...this.producers].map(([producer, c]) => ({
        producer,
        watermarks: [...c.watermarks],
        status: [...c.status],
      })),
    };
  }

  /**
   * Sets the channels to what {@link snapshot} returned (for the same partitions) and emits the merged watermark
   * (or idleness) they give: a consumer resuming at a committed position starts where the markers before it left
   * its event time, instead of waiting for every producer to write a new marker (a producer whose input is
   * finished or idle writes none).
   */
  restore(state: MergedWatermarkState): void {
    for (const { producer, watermarks, status } of state.producers) {
      const c = this.channels(producer);
      for (let s = 0; s < this.slots && s < watermarks.length; s++) {
        c.watermarks[s] = watermarks[s]!;
        c.status[s] = status[s]!;
      }
    }
    this.recompute();
  }

  private channels(producer: string): Channels {
    let c = this.producers.get(producer);
    if (c === undefined) {
      c = {
        watermarks: new Float64Array(this.slots).fill(MIN_WATERMARK),
        status: new Uint8Array(this.slots),
      };
      this.producers.set(producer, c);
    }
    return c;
  }

  private recompute(): void {
    if (this.ended) return;
    let min = Number.POSITIVE_INFINITY;
    let waiting = false;
    let active = false;
    let allEnded = true;
    for (const c of this.producers.values()) {
      for (let s = 0; s < this.slots; s++) {
        switch (c.status[s]) {
          case UNKNOWN:
            waiting = true;
            allEnded = false;
            break;
          case ACTIVE:
            active = true;
            allEnded = false;
            if (c.watermarks[s]! < min) min = c.watermarks[s]!;
            break;
          case IDLE:
            allEnded = false;
            break;
        }
      }
    }
    if (this.producers.size === 0) return;
    if (allEnded) {
      this.ended = true;
      if (this.idle) this.setIdle(false);
      if (this.combined < MAX_WATERMARK) this.emit(MAX_WATERMARK);
      return;
    }
    if (!active && !waiting) {
      if (!this.idle) this.setIdle(true);
      return;
    }
    if (this.idle) this.setIdle(false);
    if (!waiting && min > this.combined) this.emit(min);
  }

  private hasActiveOrUnknown(): boolean {
    for (const c of this.producers.values())
      for (let s = 0; s < this.slots; s++) if (c.status[s] === ACTIVE || c.status[s] === UNKNOWN) return true;
    return false;
  }

  private flushMax(): void {
    let max = MIN_WATERMARK;
    for (const c of this.producers.values())
      for (let s = 0; s < this.slots; s++)
        if (c.status[s] === IDLE && c.watermarks[s]! > max) max = c.watermarks[s]!;
    if (max > this.combined) this.emit(max);
  }

  private setIdle(idle: boolean): void {
    this.idle = idle;
    this.output.markIdle(idle);
  }

  private emit(watermark: number): void {
    this.combined = watermark;
    this.output.emitWatermark(watermark);
  }
}
