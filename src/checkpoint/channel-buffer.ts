// ChannelBuffer: holds back one input channel of a subtask while it aligns checkpoint barriers.
import type { RecordRouter } from '../runtime/record-router.ts';
import { SubtaskInput } from '../runtime/subtask-input.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';

/** A buffer overrides every entry point, so its base input never delivers. */
const NO_OPERATOR = { processElement(): void {} };

/** One held-back event of a channel, in arrival order. */
type BufferedEvent =
  | { kind: 0; value: unknown; timestamp: number }
  | { kind: 1; watermark: number }
  | { kind: 2; idle: boolean }
  | { kind: 3 }
  | { kind: 4; barrier: CheckpointBarrier };

/**
 * Stands in for a subtask's input in one producer's router after that channel delivered barrier n and others have
 * not yet: records, watermarks, idleness, end-of-input and later barriers wait here, in order, and are replayed
 * into the real input when alignment completes. Only a channel that is ahead is ever buffered, so the buffer holds
 * at most what that producer emitted between two barriers.
 */
export class ChannelBuffer extends SubtaskInput {
  private events: BufferedEvent[] = [];

  constructor(
    readonly input: SubtaskInput,
    readonly channel: number,
    readonly router: RecordRouter,
    /** Called when the buffer outgrows its bound (nothing pushes back on a producer here: no backpressure). */
    private readonly onOverflow: () => void = () => {},
    private readonly maxEvents = Number.POSITIVE_INFINITY,
  ) {
    super(input.subtask, NO_OPERATOR, 0, undefined, undefined);
  }

  override process(value: unknown, timestamp: number): void {
    this.events.push({ kind: 0, value, timestamp });
    if (this.events.length > this.maxEvents) this.onOverflow();
  }

  override watermark(_channel: number, watermark: number): void {
    this.events.push({ kind: 1, watermark });
  }

  override status(_channel: number, idle: boolean): void {
    this.events.push({ kind: 2, idle });
  }

  override endOfInput(_channel: number): void {
    this.events.push({ kind: 3 });
  }

  override barrier(_channel: number, barrier: CheckpointBarrier): void {
    this.events.push({ kind: 4, barrier });
  }

  get size(): number {
    return this.events.length;
  }

  /**
   * Puts the real input back into the router and replays the held events through the router's current slot, which
   * a replayed barrier may have replaced with a new buffer (a later checkpoint already aligning).
   */
  release(): void {
    const events = this.events;
    this.events = [];
    this.router.restoreTarget(this);
    for (const e of events) {
      const target = this.router.targetOf(this.input.subtask.index);
      switch (e.kind) {
        case 0:
          target.process(e.value, e.timestamp);
          break;
        case 1:
          target.watermark(this.channel, e.watermark);
          break;
        case 2:
          target.status(this.channel, e.idle);
          break;
        case 3:
          target.endOfInput(this.channel);
          break;
        default:
          target.barrier(this.channel, e.barrier, this.router);
      }
    }
  }
}
