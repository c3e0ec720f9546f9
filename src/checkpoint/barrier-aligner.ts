// BarrierAligner: aligns checkpoint barriers over a subtask's input channels (Flink's SingleCheckpointBarrierHandler).
import type { RecordRouter } from '../runtime/record-router.ts';
import type { SubtaskInput } from '../runtime/subtask-input.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import { ChannelBuffer } from './channel-buffer.ts';

/**
 * Records one held-back channel may buffer before the alignment is given up. Producers are not slowed by a held
 * channel (exchanges are direct calls), so a stalled alignment would otherwise grow without bound; giving up
 * lets the checkpoint fail (by its timeout) instead of the process running out of memory.
 */
const MAX_BUFFERED_PER_CHANNEL = 1_000_000;

/**
 * For a subtask with several input channels. The first barrier n starts an alignment; each channel that delivered
 * barrier n is then held back (its router writes into a {@link ChannelBuffer}) until every channel has, so no
 * record after the barrier reaches the operator before its snapshot. Ended channels count as aligned. A newer
 * barrier, or an abort, ends an alignment early: the held channels are released and the old checkpoint is left
 * to fail (its coordinator times it out or has already aborted it).
 */
export class BarrierAligner {
  private current: CheckpointBarrier | undefined = undefined;
  private readonly arrived: Uint8Array;
  private readonly ended: Uint8Array;
  private arrivedCount = 0;
  private buffers: ChannelBuffer[] = [];
  /** Checkpoints at or below this id are stale (completed or abandoned here). */
  private lastId = 0;

  constructor(
    private readonly channels: number,
    private readonly onAligned: (barrier: CheckpointBarrier) => void,
  ) {
    this.arrived = new Uint8Array(channels);
    this.ended = new Uint8Array(channels);
  }

  barrier(input: SubtaskInput, channel: number, barrier: CheckpointBarrier, router: RecordRouter): void {
    if (barrier.id <= this.lastId) return;
    if (this.current !== undefined && barrier.id > this.current.id) this.abandon();
    if (this.current === undefined) this.start(barrier);
    if (this.arrived[channel] === 0) {
      this.arrived[channel] = 1;
      this.arrivedCount++;
    }
    if (this.arrivedCount >= this.channels) {
      this.complete();
      return;
    }
    const buffer = new ChannelBuffer(
      input,
      channel,
      router,
      () => this.overflow(barrier.id),
      MAX_BUFFERED_PER_CHANNEL,
    );
    router.holdTarget(buffer);
    this.buffers.push(buffer);
  }

  /** A channel ended: it will send no barrier, so it counts as aligned from now on. */
  channelEnded(channel: number): void {
    this.ended[channel] = 1;
    if (this.current === undefined || this.arrived[channel] === 1) return;
    this.arrived[channel] = 1;
    this.arrivedCount++;
    if (this.arrivedCount >= this.channels) this.complete();
  }

  /** The coordinator gave up on a checkpoint: stop holding channels back for it. */
  abort(checkpointId: number): void {
    if (this.current !== undefined && this.current.id === checkpointId) this.abandon();
    if (checkpointId > this.lastId) this.lastId = checkpointId;
  }

  private overflow(checkpointId: number): void {
    if (this.current?.id !== checkpointId) return;
    process.emitWarning(
      `checkpoint ${checkpointId}: a channel buffered over ${MAX_BUFFERED_PER_CHANNEL} records while aligning; giving up this checkpoint here`,
    );
    this.abort(checkpointId);
  }

  get aligning(): boolean {
    return this.current !== undefined;
  }

  private start(barrier: CheckpointBarrier): void {
    this.current = barrier;
    this.arrived.set(this.ended);
    this.arrivedCount = 0;
    for (let i = 0; i < this.channels; i++) this.arrivedCount += this.ended[i]!;
  }

  private complete(): void {
    const barrier = this.current!;
    this.finishAlignment();
    this.onAligned(barrier);
    this.releaseAll();
  }

  private abandon(): void {
    this.finishAlignment();
    this.releaseAll();
  }

  private finishAlignment(): void {
    this.lastId = Math.max(this.lastId, this.current!.id);
    this.current = undefined;
  }

  private releaseAll(): void {
    const held = this.buffers;
    this.buffers = [];
    for (const buffer of held) buffer.release();
  }
}
