// Routers: how one producer subtask hands records, watermarks and end-of-input to consumer subtasks, per partitioner.
import type { KeySelector } from '../core/functions.ts';
import { keyGroupFor, normalizeKey } from '../state/key-hash.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';

/**
 * Where a router hands records: a {@link ChannelWriter}, or the consumer's input itself when the channel between
 * them can never hold records back (see {@link RecordRouter.deliverRecords}).
 */
export interface RecordWriter {
  process(value: unknown, timestamp: number): void;
  /** A record whose key the hash exchange already extracted with `selector` (a local consumer reuses it). */
  processKeyed(value: unknown, timestamp: number, key: unknown, selector: (value: any) => unknown): void;
}

/**
 * What a router writes into: the consumer's input channel when both subtasks share a thread, or an
 * `OutboundChannel` that batches the events for a consumer on another thread. Each call is synchronous.
 */
export interface ChannelWriter extends RecordWriter {
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
  /** Where records for each consumer subtask go: its channel, or its input where the channel never blocks. */
  protected readonly records: RecordWriter[];
  constructor(
    /** This producer's channel into each consumer subtask on this edge, by consumer subtask index. */
    protected readonly targets: readonly ChannelWriter[],
  ) {
    this.records = [...targets];
  }

  abstract route(value: unknown, timestamp: number): void;

  /**
   * Hands the records for consumer subtask `index` straight to `writer`, the consumer's input, skipping its
   * channel. Only for a channel that can never block (its consumer has no other channel, so no barrier alignment):
   * then the channel passes records on unchanged, and watermarks, idleness, end of input and barriers, which still
   * go through it, keep their place among the records because every call is synchronous.
   */
  deliverRecords(index: number, writer: RecordWriter): void {
    this.records[index] = writer;
  }

  /** The one writer every record of this router goes to (forward edges), for an output to call it directly. */
  // Stryker disable next-line BlockStatement: an empty body returns undefined as well
  directWriter(): RecordWriter | undefined {
    return undefined;
  }

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
  private target: RecordWriter;
  constructor(target: ChannelWriter) {
    super([target]);
    this.target = target;
  }
  route(value: unknown, timestamp: number): void {
    this.target.process(value, timestamp);
  }
  override deliverRecords(index: number, writer: RecordWriter): void {
    super.deliverRecords(index, writer);
    this.target = writer;
  }
  override directWriter(): RecordWriter {
    return this.target;
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
    // Stryker disable next-line EqualityOperator: a typed array ignores a write one past its end
    for (let keyGroup = 0; keyGroup < maxParallelism; keyGroup++) {
      this.targetOfKeyGroup[keyGroup] = Math.floor((keyGroup * targets.length) / maxParallelism);
    }
  }
  route(value: unknown, timestamp: number): void {
    const key = this.keySelector(value);
    // The key travels with the record, so a keyed consumer need not extract it a second time.
    // Stryker disable next-line BlockStatement,ConditionalExpression: with one channel the key group picks channel 0 as well; this only skips the hashing
    if (this.records.length === 1) {
      this.records[0]!.processKeyed(value, timestamp, key, this.keySelector);
      return;
    }
    const keyGroup = keyGroupFor(normalizeKey(key), this.maxParallelism);
    this.records[this.targetOfKeyGroup[keyGroup]!]!.processKeyed(value, timestamp, key, this.keySelector);
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
    const target = this.records[this.next]!;
    this.next = this.next + 1 === this.records.length ? 0 : this.next + 1;
    target.process(value, timestamp);
  }
}

/** Every record to every consumer subtask. */
export class BroadcastRouter extends RecordRouter {
  route(value: unknown, timestamp: number): void {
    for (const target of this.records) target.process(value, timestamp);
  }
}

/** Every record to consumer subtask 0; watermarks still reach all. */
export class GlobalRouter extends RecordRouter {
  route(value: unknown, timestamp: number): void {
    this.records[0]!.process(value, timestamp);
  }
}
