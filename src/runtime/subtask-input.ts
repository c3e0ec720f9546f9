// SubtaskInput: one input of one subtask: sets the key context, calls the operator, and names the record on failure.
import type { KeySelector } from '../api/functions.ts';
import type { CheckpointBarrier } from '../checkpoint/checkpoint-barrier.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import type { RecordRouter } from './record-router.ts';
import type { Subtask } from './subtask.ts';

/** The record-processing entry points of an operator, by input. */
type ElementHandler = (value: unknown, timestamp: number) => void;

/**
 * The record path into an operator. For a keyed input the runtime sets the current key before the operator sees
 * the record (Flink's setKeyContextElement). A failure is wrapped once, at the innermost operator, into a
 * JobExecutionError naming operator, subtask and record; operators upstream pass it on untouched.
 */
export class SubtaskInput {
  recordsIn = 0;
  constructor(
    readonly subtask: Subtask,
    private readonly handler: ElementHandler,
    private readonly keySelector: KeySelector<any, unknown> | undefined,
    private readonly backend: KeyedStateBackend | undefined,
  ) {}

  /** A record whose key the hash exchange already extracted with `selector`. */
  processKeyed(value: unknown, timestamp: number, key: unknown, selector: KeySelector<any, unknown>): void {
    if (selector !== this.keySelector) {
      this.process(value, timestamp);
      return;
    }
    this.recordsIn++;
    try {
      this.backend!.setCurrentKey(key);
      this.handler(value, timestamp);
    } catch (error) {
      throw this.subtask.failure(error, { value, timestamp });
    }
  }

  process(value: unknown, timestamp: number): void {
    this.recordsIn++;
    try {
      if (this.keySelector !== undefined) this.backend!.setCurrentKey(this.keySelector(value));
      this.handler(value, timestamp);
    } catch (error) {
      throw this.subtask.failure(error, { value, timestamp });
    }
  }

  // Channel events go through the input (not straight to the subtask) so that, while checkpoint barriers align, a
  // ChannelBuffer standing in for this input can hold them back in order with the records.

  watermark(channel: number, watermark: number): void {
    this.subtask.processWatermark(channel, watermark);
  }

  status(channel: number, idle: boolean): void {
    this.subtask.processWatermarkStatus(channel, idle);
  }

  endOfInput(channel: number): void {
    this.subtask.endOfInput(channel);
  }

  barrier(channel: number, barrier: CheckpointBarrier, router: RecordRouter): void {
    this.subtask.processBarrier(this, channel, barrier, router);
  }
}
