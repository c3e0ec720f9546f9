// Routers: how one producer subtask hands records, watermarks and end-of-input to consumer subtasks, per partitioner.
import type { KeySelector } from '../core/functions.ts';
import { keyGroupFor, normalizeKey } from '../state/key-hash.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';

/**
 * What a router writes into: the consumer's {@link ChannelWriter} when both subtasks share a thread, or an
 * `OutboundChannel` that batches the events for a consumer on another thread. Each call is synchronous.
 */
export interface ChannelWriter {
  process(value: unknown, timestamp: number): void;
  /** A record whose key the hash exchange already extracted with `selector` (a local consumer reuses it). */
  processKeyed(value: unknown, timestamp: number, key: unknown, selector: (value: any) => unknown): void;
  watermark(watermark: number): void;
  status(idle: boolean): void;
  endOfInput(): void;
  barrier(barrier: CheckpointBarrier): void;
}

/**
 * Delivers a producer subtask's output along one edge, into the consumer subtasks' input channels of this
 * producer. Every call is synchronous: between subtasks on one thread an exchange is a direct call; towards another
 * thread it appends to a batch (see OutboundChannel). The consumer decides what happens at its end (process now, or buffer while a checkpoint barrier aligns); the router
 * never changes for it.
 */
export abstract class RecordRouter {
  constructor(
    /** This producer's channel into each consumer subtask on this edge, by consumer subtask index. */
    protected readonly targets: readonly ChannelWriter[],
  ) {}

  abstract route(value: unknown, timestamp: number): void;

  /** The channels this producer is connected to (forward: one; otherwise all). */
  protected connected(): readonly ChannelWriter[] {
    return this.targets;
  }

  watermark(watermark: number): void {
    for (const target of this.connected()) target.watermark(watermark);
  }

  status(idle: boolean): void {
    for (const target of this.connected()) target.status(idle);
  }

  endOfInput(): void {
    for (const target of this.connected()) target.endOfInput();
  }

  /** Sends a checkpoint barrier down every connected channel (barriers are broadcast, whatever the partitioning). */
  barrier(barrier: CheckpointBarrier): void {
    for (const target of this.connected()) target.barrier(barrier);
  }
}

/** Subtask i → subtask i: the chained case. Its one channel is the only target. */
export class ForwardRouter extends RecordRouter {
  private readonly target: ChannelWriter;
  constructor(target: ChannelWriter) {
    super([target]);
    this.target = target;
  }
  route(value: unknown, timestamp: number): void {
    this.target.process(value, timestamp);
  }
}

/** By key group: the key selects a key group, the key group a subtask (`floor(kg * p / maxP)`). */
export class HashRouter extends RecordRouter {
  /** The consumer subtask of each key group, computed once: a lookup instead of a division per record. */
  private readonly targetOfKeyGroup: Uint16Array;
  constructor(
    targets: readonly ChannelWriter[],
    private readonly keySelector: KeySelector<any, unknown>,
    private readonly maxParallelism: number,
  ) {
    super(targets);
    this.targetOfKeyGroup = new Uint16Array(maxParallelism);
    for (let keyGroup = 0; keyGroup < maxParallelism; keyGroup++) {
      this.targetOfKeyGroup[keyGroup] = Math.floor((keyGroup * targets.length) / maxParallelism);
    }
  }
  route(value: unknown, timestamp: number): void {
    const key = this.keySelector(value);
    // The key travels with the record, so a keyed consumer need not extract it a second time.
    // Stryker disable next-line BlockStatement: with one channel the key group picks channel 0 as well; this only skips the hashing
    if (this.targets.length === 1) {
      this.targets[0]!.processKeyed(value, timestamp, key, this.keySelector);
      return;
    }
    const keyGroup = keyGroupFor(normalizeKey(key), this.maxParallelism);
    this.targets[this.targetOfKeyGroup[keyGroup]!]!.processKeyed(value, timestamp, key, this.keySelector);
  }
}

/** Round-robin, starting at the producer's own index so runs are deterministic. */
export class RebalanceRouter extends RecordRouter {
  private next: number;
  constructor(targets: readonly ChannelWriter[], producerIndex: number) {
    super(targets);
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
