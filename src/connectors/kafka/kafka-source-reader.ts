// KafkaSourceReader: one source subtask: reads the partitions it owns with manual assignment, batch by batch.
import { defaultLogger } from '../../core/logger.ts';
import { ConfigurationError, WeirError } from '../../core/errors.ts';
import { SystemClock, type ProcessingTimeClock } from '../../core/clock.ts';
import type {
  PollResult,
  ReaderOutput,
  SourceReader,
  SourceReaderContext,
  SplitOutput,
} from '../../core/source.ts';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type KafkaProperties,
  type TopicPartition,
} from './kafka-client.ts';
import { splitId, splitOwner } from './kafka-partition-split.ts';
import type { KafkaConsumerRecord } from './kafka-record-deserializer.ts';
import type { KafkaSourceConfig } from './kafka-source.ts';
import { OffsetsInitializer } from './offsets-initializer.ts';

/** How long connecting and metadata requests may take before the reader fails with a clear error. */
const CONNECT_TIMEOUT_MS = 30_000;
/** How long one poll waits for records before returning (and letting barriers and timers through). */
const CONSUME_TIMEOUT_MS = 50;
const EMPTY = Buffer.alloc(0);

/** A record of one partition could not be deserialized; names topic, partition and offset. */
export class KafkaDeserializationError extends WeirError {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly offset: number,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Kafka record ${topic}-${partition}@${offset} could not be deserialized: ${reason}`, { cause });
  }
}

/** What a checkpoint holds per partition: the next offset to read and, when bounded, where to stop. */
export interface KafkaSplitPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly stop?: number;
}

/** The state of one owned partition. */
class PartitionState<T> {
  finished = false;
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly id: string,
    /** The next offset to emit. */
    public next: number,
    /** The first offset not to read (Infinity when unbounded). */
    readonly stop: number,
    readonly output: SplitOutput<T>,
  ) {}
}

export class KafkaSourceReader<T> implements SourceReader<T, KafkaSplitPosition> {
  private consumer: ClientConsumer | undefined = undefined;
  private output: ReaderOutput<T> | undefined = undefined;
  /** Owned partitions by topic, indexed by partition number: one array index per record, no string built. */
  private readonly byTopic = new Map<string, (PartitionState<T> | undefined)[]>();
  private readonly partitions: PartitionState<T>[] = [];
  private restored: Map<string, KafkaSplitPosition> | undefined = undefined;
  private readonly snapshots = new Map<number, { topic: string; partition: number; offset: number }[]>();
  private readonly clock: ProcessingTimeClock;
  private nextDiscovery = Number.POSITIVE_INFINITY;
  private fatal: Error | undefined = undefined;
  private started = false;
  private closed = false;
  /** The next batch, asked for while the last full one was processed. */
  private prefetched: Promise<ClientMessage[]> | undefined = undefined;

  constructor(
    private readonly config: KafkaSourceConfig<T>,
    private readonly context: SourceReaderContext,
  ) {
    this.clock = context.clock ?? new SystemClock();
  }

  /** The partitions restored for this subtask, with their offsets (before the first poll). */
  addSplits(splits: KafkaSplitPosition[]): void {
    const restored = (this.restored ??= new Map<string, KafkaSplitPosition>());
    for (const s of splits) {
      const split = s as Partial<KafkaSplitPosition> | undefined;
      if (
        typeof split?.topic !== 'string' ||
        !Number.isSafeInteger(split.partition) ||
        !Number.isSafeInteger(split.offset)
      ) {
        throw new ConfigurationError(
          `KafkaSource '${this.context.sourceName}': not a partition split: ${JSON.stringify(s)}; expected { topic, partition, offset, stop? }`,
        );
      }
      restored.set(splitId(s.topic, s.partition), s);
    }
  }

  async pollNext(output: ReaderOutput<T>): Promise<PollResult> {
    if (this.closed) return 'end';
    if (!this.started) await this.start(output);
    if (this.fatal !== undefined) throw this.fatal;
    if (this.clock.now() >= this.nextDiscovery) await this.discover();
    const bounded = this.config.stoppingOffsets !== undefined;
    if (bounded && this.partitions.every((p) => p.finished)) return 'end';
    if (this.partitions.length === 0) {
      // Owns nothing (yet): wait for discovery without spinning.
      await new Promise<void>((resolve) => setTimeout(resolve, CONSUME_TIMEOUT_MS));
      return 'more';
    }
    const messages = await (this.prefetched ?? this.consume());
    this.prefetched = undefined;
    if (this.closed) return 'end';
    // A full batch means more is fetched already: the client's thread takes the next batch off its queue while
    // this one is processed. (A short batch is the end of what is there, where a bounded partition may finish.)
    if (messages.length === this.config.batchSize) {
      this.prefetched = this.consume();
      this.prefetched.catch(() => {});
    }
    this.emit(messages);
    if (bounded && messages.length < this.config.batchSize) this.finishCaughtUp();
    return bounded && this.partitions.every((p) => p.finished) ? 'end' : 'more';
  }

  /** One batch from the client: up to `batchSize` records, waiting up to the poll timeout for the first. */
  private consume(): Promise<ClientMessage[]> {
    const consumer = this.consumer!;
    return call<ClientMessage[]>(`reading from ${this.describeAssignment()}`, (cb) =>
      consumer.consume(this.config.batchSize, cb),
    );
  }

  /** The hot loop: one array lookup, one deserializer call and one collect per record. */
  private emit(messages: ClientMessage[]): void {
    const { malformed, deserializer, valueDeserializer } = this.config;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      const state = this.byTopic.get(m.topic)?.[m.partition];
      if (state === undefined || state.finished || m.offset < state.next) continue;
      if (m.offset >= state.stop) {
        this.finish(state);
        continue;
      }
      let value: T;
      try {
        value =
          valueDeserializer !== undefined ? valueDeserializer(m.value ?? EMPTY) : deserializer!(toRecord(m));
      } catch (error) {
        if (malformed === undefined)
          throw new KafkaDeserializationError(m.topic, m.partition, m.offset, error);
        state.next = m.offset + 1;
        this.output!.collectSide(malformed, {
          topic: m.topic,
          partition: m.partition,
          offset: m.offset,
          timestamp: timestampOf(m),
          key: toBuffer(m.key),
          value: m.value,
          error: error instanceof Error ? error.message : String(error),
        });
        if (state.next >= state.stop) this.finish(state);
        continue;
      }
      // Advance before emitting, so a snapshot taken downstream of this record never replays it.
      state.next = m.offset + 1;
      state.output.collect(value, timestampOf(m));
      if (state.next >= state.stop) this.finish(state);
    }
  }

  /**
   * A bounded partition may end in records a read_committed consumer never sees (transaction markers, aborted
   * records): once the consumer's position passes the stopping offset, the partition is done.
   */
  private finishCaughtUp(): void {
    const open = this.partitions.filter((p) => !p.finished);
    if (open.length === 0) return;
    const positions = this.consumer!.position(open.map((p) => ({ topic: p.topic, partition: p.partition })));
    for (const pos of positions) {
      const state = this.byTopic.get(pos.topic)?.[pos.partition];
      if (state !== undefined && !state.finished && pos.offset >= state.stop) {
        state.next = Math.max(state.next, state.stop);
        this.finish(state);
      }
    }
  }

  private finish(state: PartitionState<T>): void {
    state.finished = true;
    this.output!.releaseOutputForSplit?.(state.id);
  }

  /** Every partition owned, with its next offset (and stopping offset when bounded). */
  snapshotState(checkpointId?: number): KafkaSplitPosition[] {
    const splits: KafkaSplitPosition[] = [];
    for (const p of this.partitions) {
      splits.push(
        p.stop === Number.POSITIVE_INFINITY
          ? { topic: p.topic, partition: p.partition, offset: p.next }
          : { topic: p.topic, partition: p.partition, offset: p.next, stop: p.stop },
      );
    }
    // Before the reader started, what it was restored with is still its position.
    if (!this.started && this.restored !== undefined) splits.push(...this.restored.values());
    if (
      checkpointId !== undefined &&
      this.config.groupId !== undefined &&
      this.config.commitOffsetsOnCheckpoint
    ) {
      this.snapshots.set(
        checkpointId,
        splits.map((s) => ({ topic: s.topic, partition: s.partition, offset: s.offset })),
      );
    }
    return splits;
  }

  /** Commits the offsets of a completed checkpoint to the group (Flink: for monitoring, not for recovery). */
  notifyCheckpointComplete(checkpointId: number): void {
    const offsets = this.snapshots.get(checkpointId);
    for (const id of [...this.snapshots.keys()]) if (id <= checkpointId) this.snapshots.delete(id);
    if (offsets === undefined || offsets.length === 0 || this.consumer === undefined || this.closed) return;
    try {
      this.consumer.commit(offsets);
    } catch (error) {
      // A failed monitoring commit must not fail the job (Flink logs it too); the next checkpoint retries.
      (this.context.logger ?? defaultLogger()).warn(
        { operator: this.context.sourceName, checkpointId },
        `KafkaSource '${this.context.sourceName}' could not commit offsets of checkpoint ${checkpointId}: ${(error as Error).message}`,
      );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const consumer = this.consumer;
    this.consumer = undefined;
    await this.prefetched?.catch(() => {});
    if (consumer?.isConnected()) await call('disconnecting the consumer', (cb) => consumer.disconnect(cb));
  }

  private async start(output: ReaderOutput<T>): Promise<void> {
    this.started = true;
    this.output = output;
    const { KafkaConsumer } = kafkaClient();
    const properties: KafkaProperties = {
      'isolation.level': 'read_committed',
      'client.id': `weir-${this.context.sourceName}-${this.context.subtaskIndex}`,
      ...this.config.properties,
      // The reader owns positions: no automatic commits or offset stores, no group rebalancing (manual assign).
      'group.id': this.config.groupId ?? `weir-${this.context.sourceName}`,
      'enable.auto.commit': false,
      'enable.auto.offset.store': false,
      'enable.partition.eof': false,
    };
    const consumer = new KafkaConsumer(properties, { 'auto.offset.reset': 'earliest' });
    consumer.on('event.error', (error) => {
      if (error.isFatal === true)
        this.fatal = new WeirError(
          `KafkaSource '${this.context.sourceName}': fatal client error: ${error.message}`,
          {
            cause: error,
          },
        );
    });
    await call(
      `connecting to ${String(this.config.properties['bootstrap.servers'])} (source '${this.context.sourceName}')`,
      (cb) => consumer.connect({ timeout: CONNECT_TIMEOUT_MS }, cb),
    );
    consumer.setDefaultConsumeTimeout(CONSUME_TIMEOUT_MS);
    // The client's default waits up to the timeout for each record of a batch, so a trickle of records waited
    // for a whole batch of arrivals (about a second at 2,000 records per poll); a poll returns what is there.
    consumer.setDefaultIsTimeoutOnlyForFirstMessage(true);
    this.consumer = consumer;
    const partitions = await this.listPartitions();
    const fresh = this.context.restored !== true;
    await this.addPartitions(partitions, fresh ? this.config.startingOffsets : OffsetsInitializer.earliest());
    if (this.config.stoppingOffsets === undefined && this.config.partitionDiscoveryIntervalMs > 0) {
      this.nextDiscovery = this.clock.now() + this.config.partitionDiscoveryIntervalMs;
    }
  }

  /** Picks up partitions (and pattern topics) created since the last look; they start at the earliest offset. */
  private async discover(): Promise<void> {
    this.nextDiscovery = this.clock.now() + this.config.partitionDiscoveryIntervalMs;
    try {
      await this.addPartitions(await this.listPartitions(), OffsetsInitializer.earliest());
    } catch (error) {
      // A partition just created may have no leader yet: try again at the next interval, as Flink does.
      (this.context.logger ?? defaultLogger()).warn(
        { operator: this.context.sourceName },
        `KafkaSource '${this.context.sourceName}': partition discovery failed, retrying in ${this.config.partitionDiscoveryIntervalMs} ms: ${(error as Error).message}`,
      );
    }
  }

  /** All partitions of the configured topics, or of the topics matching the pattern. */
  private async listPartitions(): Promise<TopicPartition[]> {
    const consumer = this.consumer!;
    const result: TopicPartition[] = [];
    if (this.config.topicPattern !== undefined) {
      const pattern = this.config.topicPattern;
      const metadata = await call<ClientMetadata>('listing topics', (cb) =>
        consumer.getMetadata({ allTopics: true, timeout: CONNECT_TIMEOUT_MS }, cb),
      );
      for (const t of metadata.topics) {
        pattern.lastIndex = 0;
        if (!t.name.startsWith('__') && pattern.test(t.name))
          for (const p of t.partitions) result.push({ topic: t.name, partition: p.id });
      }
    } else {
      for (const topic of this.config.topics!) {
        const metadata = await call<ClientMetadata>(`reading the metadata of topic '${topic}'`, (cb) =>
          consumer.getMetadata({ topic, timeout: CONNECT_TIMEOUT_MS }, cb),
        );
        const t = metadata.topics.find((x) => x.name === topic);
        if (t === undefined || t.partitions.length === 0) {
          throw new ConfigurationError(
            `KafkaSource '${this.context.sourceName}': topic '${topic}' does not exist on ${String(this.config.properties['bootstrap.servers'])}`,
          );
        }
        for (const p of t.partitions) result.push({ topic, partition: p.id });
      }
    }
    return result;
  }

  /** Takes the partitions this subtask owns that it does not read yet; restored offsets win over `initializer`. */
  private async addPartitions(
    all: readonly TopicPartition[],
    initializer: OffsetsInitializer,
  ): Promise<void> {
    const { subtaskIndex, parallelism } = this.context;
    const added = all.filter(
      (p) =>
        splitOwner(p.topic, p.partition, parallelism) === subtaskIndex &&
        this.byTopic.get(p.topic)?.[p.partition] === undefined,
    );
    if (added.length === 0) return;
    const consumer = this.consumer!;
    const needStart = added.filter((p) => this.restored?.get(splitId(p.topic, p.partition)) === undefined);
    const starts =
      needStart.length > 0 ? await initializer.resolve(needStart, consumer) : new Map<string, number>();
    const stopping = this.config.stoppingOffsets;
    const needStop =
      stopping === undefined
        ? []
        : added.filter((p) => this.restored?.get(splitId(p.topic, p.partition))?.stop === undefined);
    const stops =
      stopping !== undefined && needStop.length > 0
        ? await stopping.resolve(needStop, consumer)
        : new Map<string, number>();
    for (const p of added) {
      const id = splitId(p.topic, p.partition);
      const restored = this.restored?.get(id);
      const next = restored?.offset ?? starts.get(id)!;
      const stop = stopping === undefined ? Number.POSITIVE_INFINITY : (restored?.stop ?? stops.get(id)!);
      const output = this.output!.createOutputForSplit?.(id) ?? this.output!;
      const state = new PartitionState<T>(p.topic, p.partition, id, next, stop, output);
      let list = this.byTopic.get(p.topic);
      if (list === undefined) this.byTopic.set(p.topic, (list = []));
      list[p.partition] = state;
      this.partitions.push(state);
      if (next >= stop) this.finish(state);
    }
    // Reassign everything still open (librdkafka's assign replaces the assignment), each at its next offset.
    const open = this.partitions.filter((p) => !p.finished);
    consumer.assign(open.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.next })));
  }

  private describeAssignment(): string {
    const ids = this.partitions.filter((p) => !p.finished).map((p) => p.id);
    return ids.length <= 4 ? ids.join(', ') : `${ids.slice(0, 4).join(', ')} and ${ids.length - 4} more`;
  }
}

function timestampOf(m: ClientMessage): number | undefined {
  return m.timestamp !== undefined && m.timestamp >= 0 ? m.timestamp : undefined;
}

function toBuffer(key: Buffer | string | null | undefined): Buffer | null {
  return key === undefined || key === null ? null : typeof key === 'string' ? Buffer.from(key) : key;
}

function toRecord(m: ClientMessage): KafkaConsumerRecord {
  const headers: { key: string; value: Buffer }[] = [];
  if (m.headers !== undefined) {
    for (const header of m.headers)
      for (const key of Object.keys(header)) {
        const v = header[key]!;
        headers.push({ key, value: typeof v === 'string' ? Buffer.from(v) : v });
      }
  }
  return {
    topic: m.topic,
    partition: m.partition,
    offset: m.offset,
    timestamp: timestampOf(m),
    key: toBuffer(m.key),
    value: m.value,
    headers,
  };
}
