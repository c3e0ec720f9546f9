// Routers: how one producer subtask hands records, watermarks and end-of-input to consumer subtasks, per partitioner.
import type { KeySelector } from '../api/functions.ts';
import { keyGroupFor, normalizeKey } from '../state/key-hash.ts';
import type { ChannelBuffer } from '../checkpoint/channel-buffer.ts';
import type { CheckpointBarrier } from '../checkpoint/checkpoint-barrier.ts';
import type { SubtaskInput } from './subtask-input.ts';

/**
 * Delivers a producer subtask's output along one edge. Every call is synchronous: with all subtasks on one event
 * loop an exchange is a direct call, and backpressure is the call stack itself (the producer continues only when
 * the consumer returned). The interface is the seam where a buffered, cross-thread exchange can slot in.
 */
export abstract class RecordRouter {
  /** The consumer subtasks' inputs on this edge, by subtask index (this router's own copy: see holdTarget). */
  protected readonly targets: SubtaskInput[];
  constructor(
    targets: readonly SubtaskInput[],
    /** This producer's channel index at each connected target. */
    protected readonly channel: number,
  ) {
    this.targets = [...targets];
  }

  abstract route(value: unknown, timestamp: number): void;

  /** The targets this producer is connected to (forward: one; otherwise all). */
  protected connected(): readonly SubtaskInput[] {
    return this.targets;
  }

  watermark(watermark: number): void {
    for (const target of this.connected()) target.watermark(this.channel, watermark);
  }

  status(idle: boolean): void {
    for (const target of this.connected()) target.status(this.channel, idle);
  }

  endOfInput(): void {
    for (const target of this.connected()) target.endOfInput(this.channel);
  }

  /** Sends a checkpoint barrier down every connected channel (barriers are broadcast, whatever the partitioning). */
  barrier(barrier: CheckpointBarrier): void {
    for (const target of [...this.connected()]) target.barrier(this.channel, barrier, this);
  }

  /** The current slot for a consumer subtask: its input, or a ChannelBuffer while that channel is held back. */
  targetOf(subtaskIndex: number): SubtaskInput {
    return this.targets[subtaskIndex]!;
  }

  /** Holds this channel back at one consumer during barrier alignment: its records go to `buffer` instead. */
  holdTarget(buffer: ChannelBuffer): void {
    this.targets[buffer.input.subtask.index] = buffer;
  }

  /** Ends a hold: the consumer's real input takes its slot back. */
  restoreTarget(buffer: ChannelBuffer): void {
    if (this.targets[buffer.input.subtask.index] === buffer)
      this.targets[buffer.input.subtask.index] = buffer.input;
  }
}

/** Subtask i → subtask i: the chained case. */
export class ForwardRouter extends RecordRouter {
  private target: SubtaskInput;
  private only: readonly SubtaskInput[];
  constructor(
    targets: readonly SubtaskInput[],
    channel: number,
    private readonly producerIndex: number,
  ) {
    super(targets, channel);
    this.target = targets[producerIndex]!;
    this.only = [this.target];
  }
  route(value: unknown, timestamp: number): void {
    this.target.process(value, timestamp);
  }
  protected override connected(): readonly SubtaskInput[] {
    return this.only;
  }
  override holdTarget(buffer: ChannelBuffer): void {
    super.holdTarget(buffer);
    this.sync();
  }
  override restoreTarget(buffer: ChannelBuffer): void {
    super.restoreTarget(buffer);
    this.sync();
  }
  private sync(): void {
    this.target = this.targets[this.producerIndex]!;
    this.only = [this.target];
  }
}

/** By key group: the key selects a key group, the key group a subtask (`floor(kg * p / maxP)`). */
export class HashRouter extends RecordRouter {
  constructor(
    targets: readonly SubtaskInput[],
    channel: number,
    private readonly keySelector: KeySelector<any, unknown>,
    private readonly maxParallelism: number,
  ) {
    super(targets, channel);
  }
  route(value: unknown, timestamp: number): void {
    const key = this.keySelector(value);
    // The key travels with the record, so a keyed consumer need not extract it a second time.
    if (this.targets.length === 1) {
      this.targets[0]!.processKeyed(value, timestamp, key, this.keySelector);
      return;
    }
    const keyGroup = keyGroupFor(normalizeKey(key), this.maxParallelism);
    const index = Math.floor((keyGroup * this.targets.length) / this.maxParallelism);
    this.targets[index]!.processKeyed(value, timestamp, key, this.keySelector);
  }
}

/** Round-robin, starting at the producer's own index so runs are deterministic. */
export class RebalanceRouter extends RecordRouter {
  private next: number;
  constructor(targets: readonly SubtaskInput[], channel: number, producerIndex: number) {
    super(targets, channel);
    this.next = producerIndex % targets.length;
  }
  route(value: unknown, timestamp: number): void {
    const target = this.targets[this.next]!;
    this.next = this.next + 1 === this.targets.length ? 0 : this.next + 1;
    target.process(value, timestamp);
  }
}

/** Every record to every consumer subtask. */
export class BroadcastRouter extends RecordRouter {
  route(value: unknown, timestamp: number): void {
    for (const target of this.targets) target.process(value, timestamp);
  }
}

/** Every record to consumer subtask 0; watermarks still reach all. */
export class GlobalRouter extends RecordRouter {
  route(value: unknown, timestamp: number): void {
    this.targets[0]!.process(value, timestamp);
  }
}
