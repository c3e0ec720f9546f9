// RepartitionWriter: the producing side of a repartition exchange: records by key group, markers into every partition.
import type { KeySelector } from '../../core/functions.ts';
import { MIN_WATERMARK } from '../../core/time-domain.ts';
import { DEFAULT_MAX_PARALLELISM } from '../../state/key-group-range.ts';
import {
  call,
  kafkaClient,
  KafkaError,
  type ClientMetadata,
  type ClientProducer,
  type KafkaProperties,
} from './kafka-client.ts';
import { msgpackCodec, type RepartitionCodec } from './repartition-codec.ts';
import {
  encodeMarker,
  encodeTimestamp,
  MARKER_HEADER,
  MARKER_VERSION,
  type RepartitionMarker,
} from './repartition-marker.ts';
import { checkRepartitionTopic, partitionForKey } from './repartition-partitioner.ts';
import { send, type StoredRecord } from './stored-record.ts';

const TIMEOUT_MS = 60_000;

/** What a {@link RepartitionWriter} needs. */
export interface RepartitionWriterOptions<T> {
  /** `host:port[,host:port...]` of the brokers. */
  readonly bootstrapServers: string;
  /** The repartition topic; it must exist, with at most `maxParallelism` partitions. */
  readonly topic: string;
  /**
   * This producer's id, unique among the producers into the topic and stable across restarts (the upstream
   * task's id: the operator and its input partition), so consumers can tell whose watermark a marker is.
   */
  readonly producerId: string;
  /** The key of a record, as the keyBy's key selector. */
  readonly keySelector: KeySelector<T, unknown>;
  /** The job's max parallelism: the number of key groups (default 128). */
  readonly maxParallelism?: number;
  /** Record values to bytes (default msgpackr). */
  readonly codec?: RepartitionCodec<T>;
  /**
   * Write inside Kafka transactions under this transactional id (begin, commit and abort them with the
   * writer's methods); a consumer reading with read_committed then sees a transaction's records and markers
   * together or not at all. Without it the producer is idempotent (no duplicates, order kept per partition).
   */
  readonly transactionalId?: string;
  /** Any other librdkafka producer property. */
  readonly properties?: KafkaProperties;
}

/**
 * Writes a keyed stream into a repartition topic. A record goes to the partition of its key group
 * (`partitionForKeyGroup`), its value encoded by the codec and its timestamp in the key (8 bytes; the Kafka
 * timestamp stays the write time, so the topic's retention counts from when it was written, not from event
 * time). Watermarks, idleness and end of input go as markers into every partition, so each partition carries
 * this producer's event time in order with its records there.
 *
 * `write`, `emitWatermark`, `markIdle` and `end` are synchronous unless librdkafka's local queue is full: then
 * they return a Promise, and nothing else may be written until it settles (it is the writer's backpressure).
 *
 * @example
 * const writer = await RepartitionWriter.open<Order>({
 *   bootstrapServers: 'broker:9092', topic: 'orders-by-customer', producerId: 'parse-orders/0',
 *   keySelector: (o) => o.customer,
 * });
 * writer.write(order, order.ts);
 * writer.emitWatermark(order.ts - 5_000);
 * await writer.flush();
 */
export class RepartitionWriter<T> {
  private watermark = MIN_WATERMARK;
  private idle = false;
  private ended = false;
  private failure: Error | undefined = undefined;
  private readonly codec: RepartitionCodec<T>;
  private readonly keySelector: KeySelector<T, unknown>;
  /** Hands one message to the producer: librdkafka directly, or the shared producer of a task (see `attach`). */
  private readonly send: (record: StoredRecord) => void | Promise<void>;

  private constructor(
    private readonly producer: ClientProducer | undefined,
    /** The topic written. */
    readonly topic: string,
    /** This producer's id, in every marker it writes. */
    readonly producerId: string,
    /** The number of partitions of the topic. */
    readonly partitions: number,
    /** The number of key groups. */
    readonly maxParallelism: number,
    private readonly transactional: boolean,
    options: RepartitionWriterOptions<T>,
    sender?: (record: StoredRecord) => void,
  ) {
    this.codec = options.codec ?? msgpackCodec<T>();
    this.keySelector = options.keySelector;
    this.send = sender ?? ((record) => send(producer!, record, undefined));
  }

  /**
   * A writer over a producer it does not own: every message goes to `sender` in order (a task's transactional
   * producer, which also carries other writers and the task's output, and whose transactions the task begins
   * and commits). The topic is not looked up: `partitions` is its partition count. The producer is announced at
   * once (a watermark -Infinity marker in every partition); the transaction methods, `flush` and `close` are not
   * the writer's to call.
   *
   * @internal The task runtime's (cluster mode).
   */
  static attach<T>(
    options: Omit<RepartitionWriterOptions<T>, 'bootstrapServers' | 'transactionalId' | 'properties'> & {
      readonly partitions: number;
    },
    sender: (record: StoredRecord) => void,
  ): RepartitionWriter<T> {
    const maxParallelism = options.maxParallelism ?? DEFAULT_MAX_PARALLELISM;
    checkRepartitionTopic(options.topic, options.partitions, maxParallelism);
    const writer = new RepartitionWriter<T>(
      undefined,
      options.topic,
      options.producerId,
      options.partitions,
      maxParallelism,
      false,
      { ...options, bootstrapServers: '' },
      sender,
    );
    writer.announced = true;
    void writer.marker('watermark', MIN_WATERMARK);
    return writer;
  }

  /**
   * Connects, reads the topic's partition count, and (with a transactional id) initialises transactions, which
   * aborts what an earlier producer with that id left open and fences it. Then, outside a transaction it
   * announces the producer with a first marker (watermark -Infinity) in every partition, so consumers know of it
   * before its first record; with transactions, the first transaction begins with that marker.
   */
  static async open<T>(options: RepartitionWriterOptions<T>): Promise<RepartitionWriter<T>> {
    const { Producer } = kafkaClient();
    const maxParallelism = options.maxParallelism ?? DEFAULT_MAX_PARALLELISM;
    const transactional = options.transactionalId !== undefined;
    const producer = new Producer({
      'client.id': `weir-repartition-${options.producerId}`,
      'linger.ms': 5,
      'enable.idempotence': true,
      'queue.buffering.max.messages': 1_000_000,
      ...options.properties,
      'bootstrap.servers': options.bootstrapServers,
      ...(transactional
        ? { 'transactional.id': options.transactionalId!, 'transaction.timeout.ms': TIMEOUT_MS }
        : {}),
      dr_cb: true,
    });
    let writer: RepartitionWriter<T> | undefined;
    producer.on('delivery-report', (error) => {
      if (error && writer !== undefined)
        writer.failure ??= new KafkaError(
          `Repartition topic '${options.topic}': a message of producer '${options.producerId}' was not delivered: ${error.message}`,
          { cause: error },
        );
    });
    const metadata = await call<ClientMetadata>(
      `connecting to ${options.bootstrapServers} (repartition producer '${options.producerId}')`,
      (cb) => producer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    producer.setPollInterval(10);
    try {
      const described = await call<ClientMetadata>(`reading the metadata of topic '${options.topic}'`, (cb) =>
        producer.getMetadata({ topic: options.topic, timeout: TIMEOUT_MS }, cb),
      );
      const topic = (described.topics.length > 0 ? described : metadata).topics.find(
        (t) => t.name === options.topic,
      );
      if (topic === undefined || topic.partitions.length === 0)
        throw new KafkaError(
          `Repartition topic '${options.topic}' does not exist on ${options.bootstrapServers}; create it first`,
        );
      checkRepartitionTopic(options.topic, topic.partitions.length, maxParallelism);
      if (transactional)
        await call(
          `initialising transactional id '${options.transactionalId}' (fences any earlier producer with this id)`,
          (cb) => producer.initTransactions(TIMEOUT_MS, cb),
        );
      writer = new RepartitionWriter<T>(
        producer,
        options.topic,
        options.producerId,
        topic.partitions.length,
        maxParallelism,
        transactional,
        options,
      );
    } catch (error) {
      await call('disconnecting the producer', (cb) => producer.disconnect(10_000, cb)).catch(() => {});
      throw error;
    }
    if (!transactional) await writer.announce();
    return writer;
  }

  /**
   * Writes one record into the partition of its key's key group. A producer that was idle first says it is
   * active again (a watermark marker), so the record never reaches a consumer that has set this producer aside.
   */
  write(value: T, timestamp?: number): void | Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (this.ended)
      throw new KafkaError(`Repartition producer '${this.producerId}' wrote a record after its end of input`);
    if (this.idle) {
      const waiting = this.marker('watermark', this.watermark);
      if (waiting !== undefined) return waiting.then(() => this.write(value, timestamp));
    }
    const partition = partitionForKey(this.keySelector(value), this.maxParallelism, this.partitions);
    const record: StoredRecord = {
      topic: this.topic,
      partition,
      key: encodeTimestamp(timestamp),
      value: this.codec.encode(value),
      timestamp: -1,
      headers: null,
    };
    return this.send(record);
  }

  /** Writes a watermark marker into every partition, if it is above the last one (watermarks only rise). */
  emitWatermark(watermark: number): void | Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (watermark <= this.watermark && !this.idle) return;
    if (watermark > this.watermark) this.watermark = watermark;
    return this.marker('watermark', this.watermark);
  }

  /** Writes an idle marker into every partition: this producer stops holding the consumers' watermark back. */
  markIdle(): void | Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (this.idle || this.ended) return;
    return this.marker('idle', undefined);
  }

  /**
   * Writes an end marker into every partition: nothing more follows from this producer. Consumers stop counting
   * it (as Flink counts a finished channel at the final watermark); once every producer ended, they emit the
   * final watermark.
   */
  end(): void | Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (this.ended) return;
    this.ended = true;
    return this.marker('end', undefined);
  }

  /** Begins a transaction; the first one also announces this producer (a watermark marker in every partition). */
  async beginTransaction(): Promise<void> {
    this.requireTransactional('beginTransaction');
    await call(`beginning a transaction of repartition producer '${this.producerId}'`, (cb) =>
      this.owned().beginTransaction(cb),
    );
    if (!this.announced) await this.announce();
  }

  /** Commits the open transaction: its records and markers become visible to read_committed consumers at once. */
  async commitTransaction(): Promise<void> {
    this.requireTransactional('commitTransaction');
    await call(`committing a transaction of repartition producer '${this.producerId}'`, (cb) =>
      this.owned().commitTransaction(TIMEOUT_MS, cb),
    );
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Aborts the open transaction: read_committed consumers never see its records or markers. The writer's own
   * view of its watermark and idleness is not rolled back: the next marker it writes restates them.
   */
  async abortTransaction(): Promise<void> {
    this.requireTransactional('abortTransaction');
    await call(`aborting a transaction of repartition producer '${this.producerId}'`, (cb) =>
      this.owned().abortTransaction(TIMEOUT_MS, cb),
    );
  }

  /** Waits until the broker acknowledged everything written (outside transactions: the durability point). */
  async flush(): Promise<void> {
    await call(`flushing repartition producer '${this.producerId}'`, (cb) =>
      this.owned().flush(TIMEOUT_MS, cb),
    );
    if (this.failure !== undefined) throw this.failure;
  }

  /** Disconnects the producer (flushing what is queued first). */
  async close(): Promise<void> {
    await call('disconnecting the producer', (cb) => this.owned().disconnect(10_000, cb));
  }

  private announced = false;

  private async announce(): Promise<void> {
    this.announced = true;
    const waiting = this.marker('watermark', MIN_WATERMARK);
    if (waiting !== undefined) await waiting;
  }

  /** One marker into every partition, in partition order; sets the idleness it implies. */
  private marker(kind: RepartitionMarker['kind'], watermark: number | undefined): void | Promise<void> {
    this.idle = kind === 'idle';
    const value = encodeMarker({
      producer: this.producerId,
      kind,
      ...(watermark === undefined ? {} : { watermark }),
      partitions: this.partitions,
      maxParallelism: this.maxParallelism,
    });
    const headers = [{ key: MARKER_HEADER, value: MARKER_VERSION }];
    const from = (partition: number): void | Promise<void> => {
      for (let p = partition; p < this.partitions; p++) {
        const record: StoredRecord = {
          topic: this.topic,
          partition: p,
          key: null,
          value,
          timestamp: -1,
          headers,
        };
        const waiting = this.send(record);
        if (waiting !== undefined) return waiting.then(() => from(p + 1));
      }
    };
    return from(0);
  }

  private owned(): ClientProducer {
    if (this.producer === undefined)
      throw new KafkaError(
        `Repartition producer '${this.producerId}' writes through a producer it does not own (attach)`,
      );
    return this.producer;
  }

  private requireTransactional(method: string): void {
    if (!this.transactional)
      throw new KafkaError(
        `Repartition producer '${this.producerId}': ${method}() needs a transactionalId in the writer's options`,
      );
  }
}
