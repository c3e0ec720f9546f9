// TaskInput: the one input partition a task reads (a partition of the job's Kafka topic or of a repartition topic).
import type { PollResult, ReaderOutput, Source, SourceReader } from '../../core/source.ts';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type KafkaProperties,
  type TopicPartitionOffset,
} from '../../connectors/kafka/kafka-client.ts';
import { KafkaDeserializationError } from '../../connectors/kafka/kafka-source-reader.ts';
import type { KafkaSourceConfig } from '../../connectors/kafka/kafka-source.ts';
import type { KafkaConsumerRecord } from '../../connectors/kafka/kafka-record-deserializer.ts';
import type { RepartitionCodec } from '../../connectors/kafka/repartition-codec.ts';
import { RepartitionReader } from '../../connectors/kafka/repartition-reader.ts';
import type { MergedWatermarkState } from '../../connectors/kafka/merged-watermark.ts';

const TIMEOUT_MS = 60_000;
/**
 * How long a read that found nothing waits before the next. Reads never wait inside librdkafka: a waiting read
 * holds a thread of libuv's pool (4 by default), and a process with many tasks would hold them all, starving
 * its group membership's polls (seen as a rebalance that never completes).
 */
const IDLE_WAIT_MS = 20;
const EMPTY = Buffer.alloc(0);

/** Where a task's reads go: the source's output, records with their timestamps, and watermarks. */
type InputOutput = ReaderOutput<unknown>;

/** One input partition of a task, read from the task's committed position. */
export interface TaskInputReader {
  /** The topic partition read. */
  readonly topic: string;
  readonly partition: number;
  /** Connects and starts at `offset` (undefined: where the input starts without a committed position). */
  open(offset: number | undefined): Promise<void>;
  /** Reads what is fetched already (without waiting) and emits it. */
  poll(output: InputOutput): Promise<PollResult>;
  /** The next offset to read: what the task commits. */
  position(): TopicPartitionOffset;
  /**
   * What the input read before {@link position} left that later reads need (a repartition topic's channel
   * watermarks), as plain data to commit with the position; undefined when there is none.
   */
  inputState(): unknown;
  /** Resumes that state, read back from the changelog, before the first read. */
  restoreInputState(state: unknown): void;
  close(): Promise<void>;
}

/**
 * What runs around each read: the task commits (when due) or stops there, between two batches, when every record
 * read before has gone through the task's operators into its transaction.
 */
export interface TaskInputDriver {
  /** Called before each read; resolves 'stop' when the task stops (the source then reads no more). */
  beforeRead(input: TaskInputReader): Promise<'read' | 'stop'>;
}

/**
 * The source of a task: reads its input partition and lets the task commit between batches. Unbounded for a Kafka
 * topic; a repartition topic's reader ends once every producer ended.
 */
export class TaskInputSource implements Source<unknown> {
  readonly boundedness = 'unbounded' as const;

  constructor(
    private readonly input: TaskInputReader,
    private readonly driver: TaskInputDriver,
  ) {}

  createReader(): SourceReader<unknown> {
    const { input, driver } = this;
    let stopped = false;
    return {
      async pollNext(output): Promise<PollResult> {
        if (stopped || (await driver.beforeRead(input)) === 'stop') {
          stopped = true;
          // The task cancels its run: nothing more is read.
          await idle();
          return 'more';
        }
        const before = input.position().offset;
        const result = await input.poll(output);
        if (result === 'more' && input.position().offset === before) await idle();
        return result;
      },
      close: () => input.close(),
    };
  }
}

/** One partition of the topic a job's {@link KafkaSource} reads, deserialized as the source does. */
export class KafkaPartitionInput implements TaskInputReader {
  private consumer: ClientConsumer | undefined = undefined;
  private next = 0;

  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly config: KafkaSourceConfig<unknown>,
    private readonly bootstrapServers: string,
    private readonly groupId: string,
  ) {}

  async open(offset: number | undefined): Promise<void> {
    const { KafkaConsumer } = kafkaClient();
    const properties: KafkaProperties = {
      'isolation.level': 'read_committed',
      ...this.config.properties,
      'bootstrap.servers': this.bootstrapServers,
      'group.id': this.groupId,
      'enable.auto.commit': false,
      'enable.auto.offset.store': false,
      'enable.partition.eof': false,
    };
    const consumer = new KafkaConsumer(properties, { 'auto.offset.reset': 'earliest' });
    await call<ClientMetadata>(
      `connecting to ${this.bootstrapServers} (${this.topic}-${this.partition})`,
      (cb) => consumer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    this.consumer = consumer;
    if (offset === undefined) {
      const key = `${this.topic}-${this.partition}`;
      const resolved = await this.config.startingOffsets.resolve(
        [{ topic: this.topic, partition: this.partition }],
        consumer,
      );
      offset = resolved.get(key) ?? 0;
    }
    this.next = offset;
    consumer.setDefaultConsumeTimeout(0);
    consumer.setDefaultIsTimeoutOnlyForFirstMessage(true);
    consumer.assign([{ topic: this.topic, partition: this.partition, offset }]);
  }

  async poll(output: InputOutput): Promise<PollResult> {
    const consumer = this.consumer!;
    const messages = await call<ClientMessage[]>(`reading ${this.topic}-${this.partition}`, (cb) =>
      consumer.consume(this.config.batchSize, cb),
    );
    const { deserializer, valueDeserializer, malformed } = this.config;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.offset < this.next) continue;
      this.next = m.offset + 1;
      let value: unknown;
      try {
        value =
          valueDeserializer !== undefined ? valueDeserializer(m.value ?? EMPTY) : deserializer!(toRecord(m));
      } catch (error) {
        if (malformed === undefined)
          throw new KafkaDeserializationError(m.topic, m.partition, m.offset, error);
        output.collectSide(malformed, {
          topic: m.topic,
          partition: m.partition,
          offset: m.offset,
          timestamp: timestampOf(m),
          key: toBuffer(m.key),
          value: m.value,
          error: error instanceof Error ? error.message : String(error),
        });
        continue;
      }
      output.collect(value, timestampOf(m));
    }
    return 'more';
  }

  position(): TopicPartitionOffset {
    // Past transaction markers too, once the consumer has moved past them.
    const reported =
      this.consumer?.position([{ topic: this.topic, partition: this.partition }])[0]?.offset ?? -1;
    return { topic: this.topic, partition: this.partition, offset: Math.max(this.next, reported) };
  }

  inputState(): unknown {
    return undefined;
  }

  restoreInputState(): void {}

  async close(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    if (consumer?.isConnected()) await call('disconnecting a task consumer', (cb) => consumer.disconnect(cb));
  }
}

/** One partition of a repartition topic, with the watermark merged over its producers. */
export class RepartitionPartitionInput implements TaskInputReader {
  private reader: RepartitionReader<unknown> | undefined = undefined;

  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly producers: readonly string[],
    private readonly maxParallelism: number,
    private readonly bootstrapServers: string,
    private readonly groupId: string,
    private readonly properties: KafkaProperties,
    private readonly codec?: RepartitionCodec<unknown>,
  ) {}

  async open(offset: number | undefined): Promise<void> {
    this.reader = await RepartitionReader.open<unknown>({
      bootstrapServers: this.bootstrapServers,
      topic: this.topic,
      partitions: [this.partition],
      producers: this.producers,
      maxParallelism: this.maxParallelism,
      groupId: this.groupId,
      properties: this.properties,
      pollTimeoutMs: 0,
      ...(offset === undefined ? {} : { startingOffsets: new Map([[this.partition, offset]]) }),
      ...(this.codec === undefined ? {} : { codec: this.codec }),
    });
  }

  async poll(output: InputOutput): Promise<PollResult> {
    return this.reader!.poll({
      collect: (value, timestamp) => output.collect(value, timestamp),
      emitWatermark: (watermark) => output.emitWatermark!(watermark),
      markIdle: (idle) => output.markIdle!(idle),
    });
  }

  position(): TopicPartitionOffset {
    const offset = this.reader!.positions()[0]!.offset;
    return { topic: this.topic, partition: this.partition, offset };
  }

  inputState(): MergedWatermarkState {
    return this.reader!.channelState();
  }

  restoreInputState(state: unknown): void {
    this.reader!.restoreChannels(state as MergedWatermarkState);
  }

  async close(): Promise<void> {
    await this.reader?.close();
    this.reader = undefined;
  }
}

function idle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, IDLE_WAIT_MS));
}

function timestampOf(m: ClientMessage): number | undefined {
  return m.timestamp !== undefined && m.timestamp >= 0 ? m.timestamp : undefined;
}

function toBuffer(key: Buffer | string | null | undefined): Buffer | null {
  return key === undefined || key === null ? null : typeof key === 'string' ? Buffer.from(key) : key;
}

function toRecord(m: ClientMessage): KafkaConsumerRecord {
  const headers: { key: string; value: Buffer }[] = [];
  for (const header of m.headers ?? [])
    for (const key of Object.keys(header)) {
      const v = header[key]!;
      headers.push({ key, value: typeof v === 'string' ? Buffer.from(v) : v });
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
