// InputChannel: one producer subtask's channel into one input of a consumer subtask; buffers while blocked.
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import { estimateSize } from './estimate-size.ts';
import type { StreamNode } from '../graph/stream-graph.ts';
import type { ChannelWriter } from './record-router.ts';
import type { Subtask } from './subtask.ts';
import type { SubtaskInput } from './subtask-input.ts';

/** Buffered event kinds, stored flat (kind, a, b, bytes) so blocking allocates no object per event. */
const RECORD = 0;
const WATERMARK = 1;
const STATUS = 2;
const END = 3;
const BARRIER = 4;
/** Array slots per buffered event. */
const SLOTS = 4;
/** Fixed bytes counted per buffered event on top of its value: the four slots. */
const EVENT_OVERHEAD = 32;

/** What a channel tells the consumer's barrier aligner about its buffer. */
export interface ChannelBufferListener {
  /** The channel buffered an event of about `bytes` bytes while blocked. */
  buffered(channel: InputChannel, bytes: number): void;
}

/** The producing subtask of a channel: a local {@link Subtask}, or the node and index of one on another thread. */
export interface ProducerRef {
  readonly node: StreamNode;
  readonly index: number;
}

/** Told when a channel fed from another thread is released after alignment (its withheld credits may go back). */
export interface RemoteChannelHooks {
  released(): void;
}

/**
 * The consumer's end of one exchange between a producer subtask and a consumer input (Flink's InputChannel). Every
 * record, watermark, idleness change, end-of-input and barrier from that producer passes here, in order.
 *
 * **Blocking.** During barrier alignment the consumer's aligner blocks a channel that already delivered the
 * barrier: its events are then appended to a buffer and replayed, in order, when the alignment completes or is
 * given up. The producer is not rewired and never learns of it, except through backpressure: every source subtask
 * that can reach a blocked channel counts it ({@link Subtask.blockedDownstream}) and is not polled again until the
 * count is back at zero. Since sources emit in batches, a blocked channel buffers at most what is in flight of one
 * batch per source (times the fan-out of the operators in between), not an unbounded stream.
 *
 * Unblocked, each call is one branch and a direct call into the consumer: no allocation on the record path.
 */
export class InputChannel implements ChannelWriter {
  blocked = false;
  /** The producer ended this channel (its end-of-input reached the consumer). */
  ended = false;
  /** Events buffered while blocked, `SLOTS` array entries each, unread from `head` on. */
  private events: unknown[] = [];
  private head = 0;
  /** Approximate bytes and count of the events held now. */
  bufferedBytes = 0;
  bufferedEvents = 0;
  /** Source subtasks whose records can reach this channel: they are held back while it is blocked. */
  sources: readonly Subtask[] = [];
  listener: ChannelBufferListener | undefined = undefined;
  /** Set when the producer runs on another thread: the exchange returns credits only while unblocked. */
  remote: RemoteChannelHooks | undefined = undefined;

  constructor(
    /** The consumer's input this channel feeds. */
    readonly input: SubtaskInput,
    /** This channel's index among the consumer subtask's channels (all inputs numbered in order). */
    readonly index: number,
    /** The producing subtask (for messages and backpressure), local or on another thread. */
    readonly producer: ProducerRef,
  ) {}

  get consumer(): Subtask {
    return this.input.subtask;
  }

  process(value: unknown, timestamp: number): void {
    if (this.blocked) this.hold(RECORD, value, timestamp, estimateSize(value));
    else this.input.process(value, timestamp);
  }

  /** A record whose key the hash exchange already extracted with `selector`. */
  processKeyed(value: unknown, timestamp: number, key: unknown, selector: (value: any) => unknown): void {
    if (this.blocked) this.hold(RECORD, value, timestamp, estimateSize(value));
    else this.input.processKeyed(value, timestamp, key, selector);
  }

  watermark(watermark: number): void {
    if (this.blocked) this.hold(WATERMARK, watermark, undefined, 0);
    else this.consumer.processWatermark(this.index, watermark);
  }

  status(idle: boolean): void {
    if (this.blocked) this.hold(STATUS, idle, undefined, 0);
    else this.consumer.processWatermarkStatus(this.index, idle);
  }

  endOfInput(): void {
    if (this.blocked) {
      this.hold(END, undefined, undefined, 0);
      return;
    }
    this.ended = true;
    this.consumer.endOfInput(this.index);
  }

  barrier(barrier: CheckpointBarrier): void {
    if (this.blocked) this.hold(BARRIER, barrier, undefined, 0);
    else this.consumer.processBarrier(this, barrier);
  }

  /** Holds this channel back: later events wait in the buffer, and the sources feeding it pause. */
  block(): void {
    if (this.blocked) return;
    this.blocked = true;
    for (const source of this.sources) source.blockedDownstream++;
  }

  /**
   * Unblocks and replays the buffer, in order, into the consumer. A replayed barrier may start the next alignment
   * and block this channel again: replay then stops, and what is left stays buffered ahead of anything new.
   */
  release(): void {
    if (!this.blocked) return;
    this.blocked = false;
    for (const source of this.sources) source.downstreamReleased();
    const events = this.events;
    let i = this.head;
    while (i < events.length && !this.blocked) {
      const kind = events[i] as number;
      const a = events[i + 1];
      const b = events[i + 2];
      this.bufferedBytes -= events[i + 3] as number;
      this.bufferedEvents--;
      // Clear the slots first: a replayed record must not stay reachable from the buffer.
      // Stryker disable ArithmeticOperator: clearing only frees the replayed values for the collector (a wrong slot is one already replayed)
      events[i + 1] = undefined;
      events[i + 2] = undefined;
      // Stryker restore ArithmeticOperator
      i += SLOTS;
      this.head = i;
      switch (kind) {
        case RECORD:
          this.input.process(a, b as number);
          break;
        case WATERMARK:
          this.consumer.processWatermark(this.index, a as number);
          break;
        case STATUS:
          this.consumer.processWatermarkStatus(this.index, a as boolean);
          break;
        case END:
          this.ended = true;
          this.consumer.endOfInput(this.index);
          break;
        default:
          this.consumer.processBarrier(this, a as CheckpointBarrier);
      }
    }
    if (this.head >= events.length) {
      events.length = 0;
      this.head = 0;
      this.bufferedBytes = 0;
      this.bufferedEvents = 0;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,ArithmeticOperator,BlockStatement: compacting a half-replayed buffer is always safe and only frees memory
    if (this.head > 4096 && this.head * 2 > events.length) {
      this.events = events.slice(this.head);
      this.head = 0;
    }
    // The exchange returns the credits only if this channel was not blocked again by a replayed barrier.
    this.remote?.released();
  }

  /** Names this channel in messages: its index and producer, e.g. "channel 2 ('file' 1/1)". */
  describe(): string {
    const p = this.producer;
    return `channel ${this.index + 1} ('${p.node.name}' ${p.index + 1}/${p.node.parallelism})`;
  }

  private hold(kind: number, a: unknown, b: unknown, bytes: number): void {
    const size = bytes + EVENT_OVERHEAD;
    this.events.push(kind, a, b, size);
    this.bufferedBytes += size;
    this.bufferedEvents++;
    this.listener?.buffered(this, size);
  }
}
