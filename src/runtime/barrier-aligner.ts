// BarrierAligner: aligns checkpoint barriers over a subtask's input channels (Flink's SingleCheckpointBarrierHandler).
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { ChannelBufferListener, InputChannel } from './input-channel.ts';

/** Bytes a subtask's blocked channels may hold together before it declines the checkpoint (default). */
export const DEFAULT_MAX_ALIGNMENT_BYTES = 256 * 1024 * 1024;

/** What the aligner reports to its subtask. */
export interface AlignmentHandler {
  /** Every channel delivered (or ended before) `barrier`: snapshot and forward it. */
  aligned(barrier: CheckpointBarrier): void;
  /** The alignment of checkpoint `checkpointId` was given up here for `reason`: the checkpoint cannot complete. */
  declined(checkpointId: number, reason: string): void;
}

/**
 * Aligned exactly-once barriers for a subtask with several input channels, owned by the consumer. The first barrier
 * n starts an alignment; a channel that delivered barrier n is blocked (it buffers, and the sources feeding it
 * pause) until every channel has delivered n or has ended — a finished channel counts as aligned (FLIP-147). Then
 * the subtask snapshots and forwards n, and the blocked channels replay their buffers in channel order.
 *
 * A barrier newer than the one aligning (n + 1 arrives on a channel that never sent n: n was given up upstream)
 * abandons n and starts n + 1. An abort from the coordinator abandons the alignment of that checkpoint. When the
 * blocked channels together hold more than `maxBufferedBytes`, the alignment is given up and the checkpoint
 * declined with the reason, so memory stays bounded even when something other than a source (a timer, a
 * flat-map) fills a blocked channel. Barriers of a checkpoint aligned or given up here are ignored afterwards.
 *
 * The aligner keeps plain counters for metrics: alignments completed, total and last alignment time, and the peak
 * bytes and events held while aligning.
 */
export class BarrierAligner implements ChannelBufferListener {
  private current: CheckpointBarrier | undefined = undefined;
  private readonly arrived: Uint8Array;
  private arrivedCount = 0;
  private blocked: InputChannel[] = [];
  private startedAt = 0;
  private heldBytes = 0;
  /** Checkpoints at or below this id are stale (aligned or given up here). */
  private lastId = 0;

  /** Alignments completed. */
  alignments = 0;
  /** Milliseconds spent aligning, over all completed alignments. */
  alignmentMsTotal = 0;
  /** Milliseconds the last completed alignment took. */
  lastAlignmentMs = 0;
  /** Milliseconds the longest completed alignment took. */
  maxAlignmentMs = 0;
  /** The most bytes (estimated) the blocked channels held at once. */
  peakBufferedBytes = 0;
  /** The most events the blocked channels held at once. */
  peakBufferedEvents = 0;
  /** Alignments given up because the buffers outgrew `maxBufferedBytes`. */
  overflows = 0;

  constructor(
    private readonly channels: readonly InputChannel[],
    private readonly handler: AlignmentHandler,
    private readonly maxBufferedBytes = DEFAULT_MAX_ALIGNMENT_BYTES,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.arrived = new Uint8Array(channels.length);
    for (const channel of channels) channel.listener = this;
  }

  /** The checkpoint being aligned, if any. */
  get aligning(): CheckpointBarrier | undefined {
    return this.current;
  }

  /** Channels that have neither delivered the aligning barrier nor ended. */
  waitingOn(): InputChannel[] {
    if (this.current === undefined) return [];
    return this.channels.filter((c, i) => this.arrived[i] === 0 && !c.ended);
  }

  barrier(channel: InputChannel, barrier: CheckpointBarrier): void {
    if (barrier.id <= this.lastId) return;
    if (this.current !== undefined && barrier.id > this.current.id) {
      // Start the newer alignment before releasing the old holds: a released channel may replay barrier n + 1.
      const stale = this.takeBlocked();
      this.lastId = this.current.id;
      this.current = undefined;
      this.start(barrier);
      this.arrive(channel);
      for (const c of stale) c.release();
      return;
    }
    if (this.current === undefined) this.start(barrier);
    this.arrive(channel);
  }

  /** A channel ended: it will send no barrier, so it counts as aligned from now on. */
  channelEnded(channel: InputChannel): void {
    if (this.current === undefined || this.arrived[channel.index] === 1) return;
    this.arrived[channel.index] = 1;
    this.arrivedCount++;
    if (this.arrivedCount >= this.channels.length) this.complete();
  }

  /**
   * The coordinator gave up on a checkpoint: stop holding channels back for it, or for an older one (whose
   * remaining barriers would be ignored from now on, as Flink's cancellation barrier supersedes older alignments).
   */
  abort(checkpointId: number): void {
    if (this.current !== undefined && this.current.id <= checkpointId) this.abandon();
    this.lastId = Math.max(this.lastId, checkpointId);
  }

  buffered(_channel: InputChannel, bytes: number): void {
    this.heldBytes += bytes;
    let events = 0;
    for (const c of this.blocked) events += c.bufferedEvents;
    this.peakBufferedBytes = Math.max(this.peakBufferedBytes, this.heldBytes);
    this.peakBufferedEvents = Math.max(this.peakBufferedEvents, events);
    if (this.heldBytes > this.maxBufferedBytes) {
      // A channel buffers only while an alignment blocks it.
      const id = this.current!.id;
      this.overflows++;
      this.abandon();
      this.handler.declined(
        id,
        `blocked input channels held over ${this.maxBufferedBytes} bytes while aligning; the alignment was given up`,
      );
    }
  }

  private start(barrier: CheckpointBarrier): void {
    this.current = barrier;
    this.startedAt = this.now();
    this.arrivedCount = 0;
    for (let i = 0; i < this.channels.length; i++) {
      const ended = this.channels[i]!.ended ? 1 : 0;
      this.arrived[i] = ended;
      this.arrivedCount += ended;
    }
  }

  private arrive(channel: InputChannel): void {
    if (this.arrived[channel.index] === 0) {
      this.arrived[channel.index] = 1;
      this.arrivedCount++;
    }
    if (this.arrivedCount >= this.channels.length) {
      this.complete();
      return;
    }
    channel.block();
    this.blocked.push(channel);
    // A channel blocked again while replaying keeps what it had not replayed yet.
    this.heldBytes += channel.bufferedBytes;
  }

  private complete(): void {
    const barrier = this.current!;
    this.lastId = barrier.id;
    this.current = undefined;
    this.lastAlignmentMs = this.now() - this.startedAt;
    this.alignmentMsTotal += this.lastAlignmentMs;
    this.maxAlignmentMs = Math.max(this.maxAlignmentMs, this.lastAlignmentMs);
    this.alignments++;
    const held = this.takeBlocked();
    this.handler.aligned(barrier);
    for (const c of held) c.release();
  }

  private abandon(): void {
    this.lastId = Math.max(this.lastId, this.current!.id);
    this.current = undefined;
    for (const c of this.takeBlocked()) c.release();
  }

  /** Hands over the blocked channels; their bytes no longer count towards the next alignment's bound. */
  private takeBlocked(): InputChannel[] {
    const held = this.blocked;
    this.blocked = [];
    this.heldBytes = 0;
    return held;
  }
}
