// OutboundChannel: the producer's end of a channel to a consumer subtask on another thread; batches, credit-based.
import type { StreamEdge } from '../graph/stream-graph.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { ChannelWriter } from './record-router.ts';
import type { Subtask } from './subtask.ts';

/** Event kinds in a batch, stored flat as (kind, a, b) triples so a record costs three array slots. */
export const RECORD = 0;
export const WATERMARK = 1;
export const STATUS = 2;
export const END = 3;
export const BARRIER = 4;

/** What an outbound channel needs from its thread's exchange. */
export interface OutboundLink {
  /** Sends one batch now (the channel holds a credit for it). */
  send(channel: OutboundChannel, events: unknown[]): void;
  /** Asks for the channel's open batch to be sent at the end of the current turn (once per batch). */
  markDirty(channel: OutboundChannel): void;
}

/**
 * Events for one consumer subtask on another thread, in order: records, watermarks, idleness, end of input and
 * barriers share one sequence, so the consumer's InputChannel sees exactly what a local one would.
 *
 * **Batching.** Each call appends to the open batch; the batch is sent when it holds `batchSize` events, or at the
 * end of the current turn of the event loop (a microtask the exchange schedules once per batch), so a source batch,
 * a timer firing or an incoming batch leaves the thread as few messages.
 *
 * **Credit.** The consumer grants credits, one per batch it can take (Flink's credit-based flow control). A batch
 * without credit waits here; the channel is then congested: the source subtasks on this thread that feed it are
 * held back (not polled) and the channels from other threads that feed it withhold their own credits, so memory
 * stays bounded end to end: at most `credits` batches in flight per channel plus what one turn produced.
 */
export class OutboundChannel implements ChannelWriter {
  private events: unknown[] = [];
  private count = 0;
  /** Batches waiting for credit, oldest first. */
  private readonly waiting: unknown[][] = [];
  congested = false;
  /** Source subtasks on this thread whose records reach this channel (held back while congested). */
  sources: readonly Subtask[] = [];
  /** Called when the channel becomes congested (true) or drains (false). */
  onCongestion: ((congested: boolean) => void) | undefined = undefined;

  constructor(
    private readonly link: OutboundLink,
    /** The channel's id, the same on both threads (see ThreadExchange.channelId). */
    readonly id: number,
    readonly edge: StreamEdge,
    readonly producerIndex: number,
    readonly consumerIndex: number,
    /** The thread the consumer runs on. */
    readonly host: number,
    /** Batches the consumer can take before it grants more. */
    public credits: number,
    private readonly batchSize: number,
  ) {}

  process(value: unknown, timestamp: number): void {
    this.events.push(RECORD, value, timestamp);
    this.added();
  }

  processKeyed(value: unknown, timestamp: number): void {
    // The consumer extracts the key again: a key is not worth its bytes on the wire.
    this.events.push(RECORD, value, timestamp);
    this.added();
  }

  watermark(watermark: number): void {
    this.events.push(WATERMARK, watermark, 0);
    this.added();
  }

  status(idle: boolean): void {
    this.events.push(STATUS, idle, 0);
    this.added();
  }

  endOfInput(): void {
    this.events.push(END, 0, 0);
    this.added();
  }

  barrier(barrier: CheckpointBarrier): void {
    this.events.push(BARRIER, barrier, 0);
    this.added();
  }

  private added(): void {
    const count = ++this.count;
    if (count === 1) this.link.markDirty(this);
    if (count >= this.batchSize) this.flush();
  }

  /** Sends the open batch, or parks it until credit arrives. */
  flush(): void {
    if (this.count === 0) return;
    const events = this.events;
    this.events = [];
    this.count = 0;
    if (this.credits > 0 && this.waiting.length === 0) {
      this.credits--;
      this.link.send(this, events);
      return;
    }
    this.waiting.push(events);
    if (!this.congested) {
      this.congested = true;
      this.onCongestion?.(true);
    }
  }

  /** The consumer took `n` more batches: send what waited, and end the congestion once nothing waits. */
  grant(n: number): void {
    this.credits += n;
    while (this.credits > 0 && this.waiting.length > 0) {
      this.credits--;
      this.link.send(this, this.waiting.shift()!);
    }
    if (this.congested && this.waiting.length === 0) {
      this.congested = false;
      this.onCongestion?.(false);
    }
  }

  /** Batches waiting for credit (for stall messages). */
  get waitingBatches(): number {
    return this.waiting.length;
  }

  /** Names this channel in messages: "'keyBy' → 'window' (hash), subtask 1 → 2". */
  describe(): string {
    const e = this.edge;
    return `'${e.source.name}' → '${e.target.name}' (${e.partitioning.kind}), subtask ${this.producerIndex + 1} → ${this.consumerIndex + 1}`;
  }
}
