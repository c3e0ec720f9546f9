// RepartitionReader: the consuming side of a repartition exchange: records in order, and the merged watermark.
import { DEFAULT_MAX_PARALLELISM } from '../../state/key-group-range.ts';
import {
  call,
  kafkaClient,
  KafkaError,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type KafkaProperties,
} from './kafka-client.ts';
import { KafkaDeserializationError } from './kafka-source-reader.ts';
import { MergedWatermark, type MergedWatermarkState } from './merged-watermark.ts';
import { msgpackCodec, type RepartitionCodec } from './repartition-codec.ts';
import { decodeMarker, decodeTimestamp, MARKER_HEADER, MARKER_VERSION } from './repartition-marker.ts';
import { checkRepartitionTopic } from './repartition-partitioner.ts';

const TIMEOUT_MS = 60_000;
/** How long one poll waits for messages before returning, so its caller can checkpoint or stop. */
const CONSUME_TIMEOUT_MS = 50;
/** The pause between two tries of a metadata request that failed with a retriable error. */
const RETRY_MS = 100;
/** Kafka's UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE and NOT_LEADER_OR_FOLLOWER: a new topic settling. */
const NO_LEADER_YET = [3, 5, 6];

/** Where a {@link RepartitionReader} emits: records, the merged watermark and idleness, in read order. */
export interface RepartitionOutput<T> {
  /** A record, with the timestamp its producer wrote (undefined: it had none). */
  collect(value: T, timestamp: number | undefined): void;
  /** The merged watermark rose. */
  emitWatermark(watermark: number): void;
  /** Every producer is idle or ended (true), or one is active again (false). */
  markIdle(idle: boolean): void;
}

/** What a {@link RepartitionReader} needs. */
export interface RepartitionReaderOptions<T> {
  /** `host:port[,host:port...]` of the brokers. */
  readonly bootstrapServers: string;
  /** The repartition topic. */
  readonly topic: string;
  /** The partitions this consumer task reads (one in the task model; several work too). */
  readonly partitions: readonly number[];
  /**
   * The producers to hear from before any watermark is emitted: the upstream tasks (their ids as the writers
   * name themselves). Producers not listed join when their first marker is read.
   */
  readonly producers: readonly string[];
  /** The job's max parallelism; every producer's markers must agree (default 128). */
  readonly maxParallelism?: number;
  /** Record values from bytes (default msgpackr; the producers' codec). */
  readonly codec?: RepartitionCodec<T>;
  /** Where to start in each partition (by partition number); the partition's first offset when absent. */
  readonly startingOffsets?: ReadonlyMap<number, number>;
  /** The consumer group offsets are sent to in transactions (default `weir-repartition-<topic>`). */
  readonly groupId?: string;
  /** Messages per poll at most (default 2,000). */
  readonly batchSize?: number;
  /**
   * How long a poll waits for messages (default 50 ms). It holds a thread of libuv's pool meanwhile (4 by
   * default, shared with every other Kafka call of the process); 0 returns at once with what was fetched.
   */
  readonly pollTimeoutMs?: number;
  /** Any other librdkafka consumer property (`isolation.level` is read_committed unless set here). */
  readonly properties?: KafkaProperties;
}

/**
 * Reads its partitions of a repartition topic with manual assignment (the group's coordination assigns tasks,
 * not the client's rebalancing) and read_committed isolation, so records and markers of an aborted
 * transaction are never seen. Each message is handled in partition order: a record is decoded and emitted, a
 * marker updates its producer's channel in {@link MergedWatermark}, which emits the merged watermark (or
 * idleness) as soon as it changes. `poll` ends ('end') once every producer ended in every partition read.
 */
export class RepartitionReader<T> {
  private readonly slotOf: number[] = [];
  private readonly next: number[];
  private readonly merged: MergedWatermark;
  private output: RepartitionOutput<T> | undefined = undefined;
  private readonly codec: RepartitionCodec<T>;
  private readonly batchSize: number;
  private fatal: Error | undefined = undefined;
  /** Channel state to restore at the first poll (when there is an output to emit to). */
  private restoring: MergedWatermarkState | undefined = undefined;

  private constructor(
    private readonly consumer: ClientConsumer,
    /** The topic read. */
    readonly topic: string,
    /** The partitions read, by number. */
    readonly partitions: readonly number[],
    starts: readonly number[],
    private readonly count: number,
    private readonly maxParallelism: number,
    options: RepartitionReaderOptions<T>,
  ) {
    partitions.forEach((p, slot) => (this.slotOf[p] = slot));
    this.next = [...starts];
    this.codec = options.codec ?? msgpackCodec<T>();
    this.batchSize = options.batchSize ?? 2_000;
    // The merge calls back into whichever output the current poll passed.
    this.merged = new MergedWatermark(partitions.length, options.producers, {
      emitWatermark: (w) => this.output!.emitWatermark(w),
      markIdle: (idle) => this.output!.markIdle(idle),
    });
    consumer.on('event.error', (error) => {
      if (error.isFatal === true)
        this.fatal = new KafkaError(`Repartition topic '${topic}': fatal client error: ${error.message}`, {
          cause: error,
        });
    });
  }

  /** Connects, checks the topic, and assigns the partitions at their starting offsets. */
  static async open<T>(options: RepartitionReaderOptions<T>): Promise<RepartitionReader<T>> {
    const { KafkaConsumer } = kafkaClient();
    const maxParallelism = options.maxParallelism ?? DEFAULT_MAX_PARALLELISM;
    const consumer = new KafkaConsumer(
      {
        'isolation.level': 'read_committed',
        ...options.properties,
        'bootstrap.servers': options.bootstrapServers,
        'group.id': options.groupId ?? `weir-repartition-${options.topic}`,
        'enable.auto.commit': false,
        'enable.auto.offset.store': false,
        'enable.partition.eof': false,
      },
      { 'auto.offset.reset': 'earliest' },
    );
    await call<ClientMetadata>(
      `connecting to ${options.bootstrapServers} (repartition topic '${options.topic}')`,
      (cb) => consumer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    try {
      const metadata = await call<ClientMetadata>(`reading the metadata of topic '${options.topic}'`, (cb) =>
        consumer.getMetadata({ topic: options.topic, timeout: TIMEOUT_MS }, cb),
      );
      const count = metadata.topics.find((t) => t.name === options.topic)?.partitions.length ?? 0;
      if (count === 0)
        throw new KafkaError(
          `Repartition topic '${options.topic}' does not exist on ${options.bootstrapServers}`,
        );
      checkRepartitionTopic(options.topic, count, maxParallelism);
      for (const p of options.partitions)
        if (!Number.isInteger(p) || p < 0 || p >= count)
          throw new KafkaError(
            `Repartition topic '${options.topic}' has no partition ${p} (it has ${count})`,
          );
      const starts: number[] = [];
      for (const p of options.partitions) {
        let start = options.startingOffsets?.get(p);
        if (start === undefined) start = await firstOffset(consumer, options.topic, p);
        starts.push(start);
      }
      consumer.setDefaultConsumeTimeout(options.pollTimeoutMs ?? CONSUME_TIMEOUT_MS);
      // A poll returns the records already fetched instead of waiting the timeout for each one of a batch.
      consumer.setDefaultIsTimeoutOnlyForFirstMessage(true);
      consumer.assign(
        options.partitions.map((partition, i) => ({ topic: options.topic, partition, offset: starts[i]! })),
      );
      return new RepartitionReader<T>(
        consumer,
        options.topic,
        options.partitions,
        starts,
        count,
        maxParallelism,
        options,
      );
    } catch (error) {
      await call('disconnecting the consumer', (cb) => consumer.disconnect(cb)).catch(() => {});
      throw error;
    }
  }

  /** The number of partitions of the topic. */
  get partitionCount(): number {
    return this.count;
  }

  /** The merged watermark emitted last (-Infinity before the first). */
  get currentWatermark(): number {
    return this.merged.current;
  }

  /** The producers known so far: the expected ones and those heard from. */
  get knownProducers(): string[] {
    return this.merged.knownProducers;
  }

  /**
   * Reads one batch (waiting up to 50 ms for it) and emits it; 'end' once every producer has ended in every
   * partition read.
   */
  async poll(output: RepartitionOutput<T>): Promise<'more' | 'end'> {
    if (this.fatal !== undefined) throw this.fatal;
    if (this.merged.isEnded) return 'end';
    this.output = output;
    if (this.restoring !== undefined) {
      const state = this.restoring;
      this.restoring = undefined;
      this.merged.restore(state);
      if (this.merged.isEnded) return 'end';
    }
    const messages = await call<ClientMessage[]>(`reading repartition topic '${this.topic}'`, (cb) =>
      this.consumer.consume(this.batchSize, cb),
    );
    this.output = output;
    for (let i = 0; i < messages.length; i++) this.handle(messages[i]!, output);
    return this.merged.isEnded ? 'end' : 'more';
  }

  /**
   * The next offset to read in each partition: past every message handled and, once the consumer has moved
   * past them, past transaction markers. What a task commits with its transaction, and restarts from.
   */
  positions(): { readonly partition: number; readonly offset: number }[] {
    const reported = this.consumer.position(
      this.partitions.map((partition) => ({ topic: this.topic, partition })),
    );
    return this.partitions.map((partition, slot) => {
      const at = reported.find((r) => r.partition === partition)?.offset ?? -1;
      return { partition, offset: Math.max(this.next[slot]!, at) };
    });
  }

  /** The merged watermark's channels (what the markers read so far said), to commit with {@link positions}. */
  channelState(): MergedWatermarkState {
    return this.merged.snapshot();
  }

  /**
   * Resumes the channels as {@link channelState} returned them when the positions this reader started at were
   * committed; the merged watermark they give is emitted at the next poll.
   */
  restoreChannels(state: MergedWatermarkState): void {
    this.restoring = state;
  }

  /** Disconnects the consumer. */
  async close(): Promise<void> {
    if (this.consumer.isConnected())
      await call('disconnecting the consumer', (cb) => this.consumer.disconnect(cb));
  }

  private handle(m: ClientMessage, output: RepartitionOutput<T>): void {
    const slot = this.slotOf[m.partition];
    if (slot === undefined || m.topic !== this.topic || m.offset < this.next[slot]!) return;
    this.next[slot] = m.offset + 1;
    const headers = m.headers;
    if (headers === undefined || headers.length === 0) {
      let value: T;
      try {
        value = this.codec.decode(m.value ?? Buffer.alloc(0));
      } catch (error) {
        throw new KafkaDeserializationError(m.topic, m.partition, m.offset, error);
      }
      output.collect(value, decodeTimestamp(m.key, `${m.topic}-${m.partition}@${m.offset}`));
      return;
    }
    const where = `${m.topic}-${m.partition}@${m.offset}`;
    const version = headers[0]![MARKER_HEADER];
    if (version === undefined || version.toString() !== MARKER_VERSION)
      throw new KafkaError(
        `Repartition topic message at ${where} has headers but is not a version ${MARKER_VERSION} marker ` +
          `(headers: ${headers.map((h) => Object.keys(h).join(',')).join(', ')})`,
      );
    const marker = decodeMarker(m.value, where);
    if (marker.partitions !== this.count || marker.maxParallelism !== this.maxParallelism)
      throw new KafkaError(
        `Repartition marker at ${where}: producer '${marker.producer}' writes for ${marker.partitions} partitions and ` +
          `max parallelism ${marker.maxParallelism}, this consumer reads ${this.count} partitions with max ` +
          `parallelism ${this.maxParallelism}; every task of the job must use the same`,
      );
    if (marker.kind === 'watermark') this.merged.onWatermark(slot, marker.producer, marker.watermark!);
    else if (marker.kind === 'idle') this.merged.onIdle(slot, marker.producer);
    else this.merged.onEnd(slot, marker.producer);
  }
}

/**
 * The first offset of a partition. Right after a topic is created its partitions may have no leader yet
 * (a retriable error), so the query is retried for up to the timeout.
 */
async function firstOffset(consumer: ClientConsumer, topic: string, partition: number): Promise<number> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    try {
      const range = await call<{ lowOffset: number; highOffset: number }>(
        `reading the first offset of ${topic}-${partition}`,
        (cb) => consumer.queryWatermarkOffsets(topic, partition, TIMEOUT_MS, cb),
      );
      return range.lowOffset;
    } catch (error) {
      const cause = (error as { cause?: { isRetriable?: boolean; code?: number } }).cause;
      const retriable = cause?.isRetriable === true || NO_LEADER_YET.includes(cause?.code ?? 0);
      if (!retriable || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
