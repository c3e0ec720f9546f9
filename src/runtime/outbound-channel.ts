// OutboundChannel: the producer's end of a channel to a consumer subtask on another thread; batches, credit-based.
import { DOUBLE_ZERO } from '../core/stable-hidden-classes.ts';
import type { DeclaredType } from '../core/tagged-union-type.ts';
import type { StreamEdge } from '../graph/stream-graph.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import { BARRIER, END, RECORD, STATUS, WATERMARK } from './exchange-event-kinds.ts';
import type { ChannelWriter } from './record-router.ts';
import { keepBatchBuffer } from './kept-batch-buffers.ts';
import { mutableExchangeFigures } from './thread-exchange-figures.ts';
import { TypedRecordBatch, type TypedBatchMessage } from './typed-record-batch.ts';

const figures = mutableExchangeFigures();

/**
 * One batch ready to send: for a channel without a declared record type the events as flat (kind, a, b) triples
 * (a record costs three array slots; msgpackr encodes them when sent), for one with a type the written batch.
 */
export type OutboundBatch = unknown[] | TypedBatchMessage;

/** What an outbound channel needs from its thread's exchange. */
export interface OutboundLink {
  /** Sends one batch now (the channel holds a credit for it). */
  send(channel: OutboundChannel, batch: OutboundBatch): void;
  /** Asks for the channel's open batch to be sent at the end of the current turn (once per batch). */
  markDirty(channel: OutboundChannel): void;
  /** The error for a record that does not fit the channel's declared record type. */
  mismatch(channel: OutboundChannel, value: unknown): Error;
}

/**
 * Events for one consumer subtask on another thread, in order: records, watermarks, idleness, end of input and
 * barriers share one sequence, so the consumer's InputChannel sees exactly what a local one would.
 *
 * **Batching.** Each call appends to the open batch; the batch is sent when it holds `batchSize` events, or at the
 * end of the current turn of the event loop (a microtask the exchange schedules once per batch), so a source batch,
 * a timer firing or an incoming batch leaves the thread as few messages.
 *
 * **Encoding.** When the producer declared its record type (`stream.returns(Types.record(...))`), each record is
 * written field by field into a {@link TypedRecordBatch} as it arrives, and a record that does not fit fails at
 * once; otherwise the events wait as (kind, a, b) triples and the exchange encodes them with msgpackr when it sends.
 *
 * **Credit.** The consumer grants credits, one per batch it can take (Flink's credit-based flow control). A batch
 * without credit waits here; the channel is then congested: the source subtasks on this thread that feed it are
 * held back (not polled) and the channels from other threads that feed it withhold their own credits, so memory
 * stays bounded end to end: at most `credits` batches in flight per channel plus what one turn produced.
 */
export class OutboundChannel implements ChannelWriter {
  private events: unknown[] = [];
  /** The open batch when the producer declared its record type (`returns`); then `events` stays empty. */
  private readonly typed: TypedRecordBatch | undefined;
  private count = 0;
  /** Batches waiting for credit, oldest first. */
  private readonly waiting: OutboundBatch[] = [];
  congested = false;
  /**
   * When the current wait for credit began (performance.now()), for the exchange's figures. A double from the start:
   * the first congestion, in whichever job, then gives the channels no new hidden class.
   */
  private congestedSince = DOUBLE_ZERO;
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
    /** The producer's declared record type: records are written field by field instead of through msgpackr. */
    recordType: DeclaredType | undefined = undefined,
  ) {
    this.typed = recordType !== undefined ? new TypedRecordBatch(recordType, batchSize) : undefined;
  }

  process(value: unknown, timestamp: number): void {
    this.record(value, timestamp);
  }

  processKeyed(value: unknown, timestamp: number): void {
    // The consumer extracts the key again: a key is not worth its bytes on the wire.
    this.record(value, timestamp);
  }

  private record(value: unknown, timestamp: number): void {
    const typed = this.typed;
    if (typed === undefined) this.events.push(RECORD, value, timestamp);
    else if (!typed.record(value, timestamp)) throw this.link.mismatch(this, value);
    this.added();
  }

  watermark(watermark: number): void {
    if (this.typed === undefined) this.events.push(WATERMARK, watermark, 0);
    else this.typed.watermark(watermark);
    this.added();
  }

  status(idle: boolean): void {
    if (this.typed === undefined) this.events.push(STATUS, idle, 0);
    else this.typed.status(idle);
    this.added();
  }

  endOfInput(): void {
    if (this.typed === undefined) this.events.push(END, 0, 0);
    else this.typed.endOfInput();
    this.added();
  }

  barrier(barrier: CheckpointBarrier): void {
    if (this.typed === undefined) this.events.push(BARRIER, barrier, 0);
    else this.typed.barrier(barrier);
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
    let batch: OutboundBatch;
    if (this.typed !== undefined) batch = this.typed.take();
    else {
      batch = this.events;
      this.events = [];
    }
    this.count = 0;
    if (this.credits > 0 && this.waiting.length === 0) {
      this.credits--;
      this.link.send(this, batch);
      return;
    }
    this.waiting.push(batch);
    if (!this.congested) {
      this.congested = true;
      this.congestedSince = performance.now();
      figures.congestions++;
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
      figures.congestedMs += performance.now() - this.congestedSince;
      this.onCongestion?.(false);
    }
  }

  /** The consumer gave back the buffer of a typed batch it read: a later batch is written into it. */
  recycle(buffer: ArrayBuffer): void {
    this.typed?.recycle(buffer);
  }

  /** The exchange closed: this channel's typed buffers, sent or not, are kept for the thread's next job. */
  release(): void {
    const typed = this.typed;
    if (typed === undefined) return;
    typed.release();
    for (const batch of this.waiting) keepBatchBuffer((batch as TypedBatchMessage).numbers);
    this.waiting.length = 0;
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
