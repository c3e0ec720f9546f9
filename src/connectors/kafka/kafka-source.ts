// KafkaSource: Flink's KafkaSource: topic partitions as splits, offsets in checkpoints, bounded or unbounded.
import { ConfigurationError } from '../../core/errors.ts';
import type { OutputTag } from '../../core/output-tag.ts';
import type {
  Source,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '../../core/source.ts';
import { splitOwner } from './kafka-partition-split.ts';
import type { KafkaProperties } from './kafka-client.ts';
import { KafkaClientBuilder } from './kafka-client-builder.ts';
import { KafkaSourceReader, type KafkaSplitPosition } from './kafka-source-reader.ts';
import type { DeserializationSchema, KafkaRecordDeserializationSchema } from './kafka-record-deserializer.ts';
import type { MalformedKafkaRecord } from './malformed-kafka-record.ts';
import { OffsetsInitializer } from './offsets-initializer.ts';

/** The configuration a built source hands to its readers. */
export interface KafkaSourceConfig<T> {
  readonly properties: KafkaProperties;
  readonly topics: readonly string[] | undefined;
  readonly topicPattern: RegExp | undefined;
  readonly groupId: string | undefined;
  readonly startingOffsets: OffsetsInitializer;
  readonly stoppingOffsets: OffsetsInitializer | undefined;
  /** Turns a record into a value; exactly one of the two is set. */
  readonly deserializer: KafkaRecordDeserializationSchema<T> | undefined;
  readonly valueDeserializer: DeserializationSchema<T> | undefined;
  readonly malformed: OutputTag<MalformedKafkaRecord> | undefined;
  /** Milliseconds between checks for new partitions (and topics matching the pattern); 0 disables. */
  readonly partitionDiscoveryIntervalMs: number;
  readonly commitOffsetsOnCheckpoint: boolean;
  /** Records per poll at most. */
  readonly batchSize: number;
}

/** Flink's default `partition.discovery.interval.ms` for an unbounded source: five minutes. */
const DEFAULT_DISCOVERY_INTERVAL_MS = 300_000;

/**
 * Reads Kafka topics (Flink's KafkaSource). Each partition is a split owned by one source subtask (Flink's
 * assignment: round-robin from a subtask chosen by the topic's hash); a subtask reads its partitions with one
 * consumer and manual assignment, no consumer-group rebalancing. The next offset of every partition is
 * checkpointed as the reader's splits, and a restore resumes exactly there, also at another parallelism: each
 * partition goes to the subtask that owns it under the new parallelism. Offsets are committed to the
 * consumer group when a checkpoint completes, for monitoring only; correctness never depends on them.
 *
 * Event time is tracked per partition inside the reader: the watermark strategy given to `env.fromSource` runs
 * once per partition, the subtask emits the minimum over its partitions, and a partition idle longer than the
 * strategy's idleness timeout does not hold it back. A record's Kafka timestamp is its default event time.
 *
 * Records are read with `isolation.level=read_committed` unless the properties say otherwise, so a Weir job
 * downstream of an exactly-once producer sees only committed records.
 *
 * @example
 * const source = KafkaSource.builder<Order>()
 *   .setBootstrapServers('localhost:9092')
 *   .setTopics('orders')
 *   .setGroupId('order-totals')
 *   .setStartingOffsets(OffsetsInitializer.committedOffsets('earliest'))
 *   .setValueOnlyDeserializer(Deserializers.json<Order>())
 *   .build();
 * const orders = env.fromSource(
 *   source,
 *   WatermarkStrategy.forBoundedOutOfOrderness<Order>(5_000).withIdleness(60_000),
 *   'orders',
 * );
 */
export class KafkaSource<T> implements Source<T, KafkaSplitPosition> {
  readonly boundedness: 'bounded' | 'unbounded';
  /**
   * librdkafka's Node binding is not context-aware: it loads on one thread of a process only. In worker mode the
   * readers therefore run on the main thread, beside the job's other Kafka clients, and their records cross to the
   * workers.
   */
  readonly runsOnMainThread = true;

  /** @internal Use {@link KafkaSource.builder}. */
  constructor(/** @internal */ readonly config: KafkaSourceConfig<T>) {
    this.boundedness = config.stoppingOffsets === undefined ? 'unbounded' : 'bounded';
  }

  /** A builder; `T` is the type the deserializer produces. */
  static builder<T>(): KafkaSourceBuilder<T> {
    return new KafkaSourceBuilder<T>();
  }

  /**
   * Readers discover the partitions themselves (no initial splits); a restored partition goes to the subtask
   * that would discover it, Flink's split owner.
   */
  createEnumerator(context: SplitEnumeratorContext): SplitEnumerator<KafkaSplitPosition> {
    return {
      initialSplits: () => [],
      assign: (split) => splitOwner(split.topic, split.partition, context.parallelism),
    };
  }

  createReader(context: SourceReaderContext): SourceReader<T, KafkaSplitPosition> {
    return new KafkaSourceReader(this.config, context);
  }
}

/** Configures a {@link KafkaSource}; `build()` validates everything at once. */
export class KafkaSourceBuilder<T> extends KafkaClientBuilder {
  private topics: string[] | undefined = undefined;
  private topicPattern: RegExp | undefined = undefined;
  private groupId: string | undefined = undefined;
  private startingOffsets: OffsetsInitializer = OffsetsInitializer.earliest();
  private stoppingOffsets: OffsetsInitializer | undefined = undefined;
  private deserializer: KafkaRecordDeserializationSchema<T> | undefined = undefined;
  private valueDeserializer: DeserializationSchema<T> | undefined = undefined;
  private malformed: OutputTag<MalformedKafkaRecord> | undefined = undefined;
  private discoveryIntervalMs: number | undefined = undefined;
  private commitOffsetsOnCheckpoint = true;
  private batchSize = 2_000;

  /** The topics to read (all partitions of each). */
  setTopics(...topics: string[]): this {
    this.topics = topics.flat();
    return this;
  }

  /** Reads every topic whose name matches; with discovery, topics created later are picked up too. */
  setTopicPattern(pattern: RegExp): this {
    this.topicPattern = pattern;
    return this;
  }

  /** The consumer group whose offsets are committed on checkpoints and read by `committedOffsets()`. */
  setGroupId(groupId: string): this {
    this.groupId = groupId;
    return this;
  }

  /** Where to start reading partitions that no checkpoint covers (default: earliest). */
  setStartingOffsets(initializer: OffsetsInitializer): this {
    this.startingOffsets = initializer;
    return this;
  }

  /**
   * Makes the source bounded: each partition is read up to the offset the initializer gives (resolved once, when
   * the job first starts, and kept in checkpoints), then the source ends. `OffsetsInitializer.latest()` reads
   * what the topic holds at start-up, for batch-style jobs and tests.
   */
  setBounded(stoppingOffsets: OffsetsInitializer): this {
    this.stoppingOffsets = stoppingOffsets;
    return this;
  }

  /** A deserializer of the whole record: key, value, headers, topic, partition, offset, timestamp. */
  setDeserializer(deserializer: KafkaRecordDeserializationSchema<T>): this {
    this.deserializer = deserializer;
    return this;
  }

  /** A deserializer of the record's value bytes only, e.g. `Deserializers.json<Event>()`. */
  setValueOnlyDeserializer(deserializer: DeserializationSchema<T>): this {
    this.valueDeserializer = deserializer;
    return this;
  }

  /**
   * Records that fail to deserialize go to this side output (with topic, partition, offset and the error)
   * instead of failing the job. Without it, such a record fails the job with an error naming its topic,
   * partition and offset.
   */
  setMalformedRecords(tag: OutputTag<MalformedKafkaRecord>): this {
    this.malformed = tag;
    return this;
  }

  /** How often to look for new partitions and topics (ms; 0 disables). Default: 5 minutes when unbounded. */
  setPartitionDiscoveryInterval(ms: number): this {
    this.discoveryIntervalMs = ms;
    return this;
  }

  /** Whether offsets are committed to the group when a checkpoint completes (default true, needs a group id). */
  setCommitOffsetsOnCheckpoint(commit: boolean): this {
    this.commitOffsetsOnCheckpoint = commit;
    return this;
  }

  /** Records handed to the job per poll at most (default 2,000). */
  setBatchSize(records: number): this {
    this.batchSize = records;
    return this;
  }

  build(): KafkaSource<T> {
    const fail = (why: string): never => {
      throw new ConfigurationError(`KafkaSource: ${why}`);
    };
    const properties = this.clientProperties('KafkaSource');
    if ((this.topics === undefined) === (this.topicPattern === undefined))
      fail('set either the topics (setTopics) or a topic pattern (setTopicPattern)');
    if (
      this.topics !== undefined &&
      (this.topics.length === 0 || this.topics.some((t) => typeof t !== 'string' || t === ''))
    )
      fail(`the topics must be non-empty names, got ${JSON.stringify(this.topics)}`);
    if ((this.deserializer === undefined) === (this.valueDeserializer === undefined))
      fail('set exactly one deserializer (setDeserializer or setValueOnlyDeserializer)');
    const interval =
      this.discoveryIntervalMs ?? (this.stoppingOffsets === undefined ? DEFAULT_DISCOVERY_INTERVAL_MS : 0);
    if (!(Number.isFinite(interval) && interval >= 0))
      fail(`the partition discovery interval must be >= 0 ms, got ${interval}`);
    if (!(Number.isSafeInteger(this.batchSize) && this.batchSize >= 1))
      fail(`the batch size must be a positive integer, got ${this.batchSize}`);
    if (properties['group.id'] !== undefined) {
      this.groupId ??= String(properties['group.id']);
      delete properties['group.id'];
    }
    return new KafkaSource<T>({
      properties,
      topics: this.topics === undefined ? undefined : [...this.topics],
      topicPattern: this.topicPattern,
      groupId: this.groupId,
      startingOffsets: this.startingOffsets,
      stoppingOffsets: this.stoppingOffsets,
      deserializer: this.deserializer,
      valueDeserializer: this.valueDeserializer,
      malformed: this.malformed,
      partitionDiscoveryIntervalMs: interval,
      commitOffsetsOnCheckpoint: this.commitOffsetsOnCheckpoint,
      batchSize: this.batchSize,
    });
  }
}
