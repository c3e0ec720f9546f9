// KafkaSinkWriter: one sink subtask with delivery guarantee NONE or AT_LEAST_ONCE: sends as records arrive.
import type { SinkWriter, SinkWriterContext } from '../../core/sink.ts';
import { DeliveryGuarantee } from '../../core/delivery-guarantee.ts';
import {
  call,
  kafkaClient,
  KafkaError,
  type ClientMetadata,
  type ClientProducer,
  type LibrdKafkaError,
} from './kafka-client.ts';
import type { KafkaSinkConfig } from './kafka-sink.ts';
import { send, storeRecord, type StoredRecord } from './stored-record.ts';
import { restoredRecords, StoredRecordBatchBuilder, type StoredRecordBatch } from './stored-record-batch.ts';

const CONNECT_TIMEOUT_MS = 30_000;
const FLUSH_TIMEOUT_MS = 120_000;

/**
 * Records go to librdkafka as they are written (it batches them per partition). Every record carries a sequence
 * number; delivery reports clear it. With AT_LEAST_ONCE, the records not yet acknowledged at a checkpoint barrier
 * go into the checkpoint and are sent again first after a restore, so the barrier never waits for the broker.
 * More than `maxInFlightRecords` unacknowledged records pause the sources upstream until half have been.
 */
export class KafkaSinkWriter<T> implements SinkWriter<T> {
  private producer: ClientProducer | undefined = undefined;
  private readonly ready: Promise<void>;
  /** Records waiting for the producer to connect or for librdkafka's queue to drain. */
  private backlog: StoredRecord[] = [];
  private draining: Promise<void> | undefined = undefined;
  /** Unacknowledged records by sequence number - `base` (AT_LEAST_ONCE only). */
  private readonly inFlight: (StoredRecord | undefined)[] = [];
  private base = 0;
  /** Index in `inFlight` of the oldest record that may still be unacknowledged. */
  private head = 0;
  private nextSequence = 0;
  private unacknowledged = 0;
  private blocked = false;
  private failure: Error | undefined = undefined;
  private readonly keepRecords: boolean;
  /** Where a checkpoint's unacknowledged records are encoded; its buffer is kept from one checkpoint to the next. */
  private readonly snapshotRecords = new StoredRecordBatchBuilder();

  constructor(
    private readonly config: KafkaSinkConfig<T>,
    private readonly context: SinkWriterContext,
  ) {
    this.keepRecords = config.deliveryGuarantee === DeliveryGuarantee.AT_LEAST_ONCE;
    const restored = this.keepRecords ? context.restoredState : undefined;
    // Unacknowledged records of the restored checkpoint go out before anything new.
    if (Array.isArray(restored)) this.backlog = restoredRecords(restored);
    this.setBlocked(true);
    this.ready = this.connect();
    this.ready.catch((error) => this.fail(error));
  }

  write(value: T, timestamp: number | undefined): void {
    if (this.failure !== undefined) throw this.failure;
    const record = storeRecord(
      this.config.serializer(value, timestamp),
      this.config.defaultTopic,
      timestamp,
      this.context.sinkName,
    );
    if (this.producer === undefined || this.draining !== undefined) this.backlog.push(record);
    else this.sendOne(record);
  }

  /**
   * The records not known to be acknowledged, as one batch of bytes (a structured clone and v8.serialize copy it
   * whole) in an array: the sink redistributes writer states as arrays, concatenating those of old subtasks.
   */
  snapshotState(): StoredRecordBatch[] | undefined {
    if (!this.keepRecords) return undefined;
    const records = this.snapshotRecords;
    for (const r of this.inFlight) if (r !== undefined) records.addStored(r);
    for (const r of this.backlog) records.addStored(r);
    return records.count === 0 ? [] : [records.seal()];
  }

  async endOfInput(): Promise<void> {
    await this.flush();
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer !== undefined)
      await call('disconnecting the producer', (cb) => producer.disconnect(10_000, cb));
  }

  /** Sends the backlog and waits until librdkafka has every record acknowledged. */
  private async flush(): Promise<void> {
    await this.ready;
    while (this.backlog.length > 0 || this.draining !== undefined) await (this.draining ?? this.drain());
    const producer = this.producer!;
    await call(`flushing to Kafka (sink '${this.context.sinkName}')`, (cb) =>
      producer.flush(FLUSH_TIMEOUT_MS, cb),
    );
    if (this.failure !== undefined) throw this.failure;
  }

  private async connect(): Promise<void> {
    const { Producer } = kafkaClient();
    const producer = new Producer({
      'client.id': `weir-${this.context.sinkName}-${this.context.subtaskIndex}`,
      'linger.ms': 5,
      ...this.config.properties,
      dr_cb: true,
    });
    producer.on('delivery-report', (error, report) =>
      this.onDelivery(error, (report as { opaque?: number }).opaque),
    );
    producer.on('event.error', (error) => {
      if (error.isFatal === true)
        this.fail(new KafkaError(`KafkaSink '${this.context.sinkName}': ${error.message}`, { cause: error }));
    });
    await call<ClientMetadata>(
      `connecting to ${String(this.config.properties['bootstrap.servers'])} (sink '${this.context.sinkName}')`,
      (cb) => producer.connect({ timeout: CONNECT_TIMEOUT_MS }, cb),
    );
    producer.setPollInterval(10);
    this.producer = producer;
    await this.drain();
  }

  /** Sends the backlog in order; a full local queue makes it wait and go on. */
  private drain(): Promise<void> {
    const run = async (): Promise<void> => {
      while (this.backlog.length > 0) {
        const batch = this.backlog;
        this.backlog = [];
        for (let i = 0; i < batch.length; i++) {
          const waiting = this.sendOne(batch[i]!);
          if (waiting !== undefined) {
            await waiting;
          }
        }
      }
    };
    this.draining = run().finally(() => {
      this.draining = undefined;
      if (this.unacknowledged < this.config.maxInFlightRecords) this.setBlocked(false);
    });
    return this.draining;
  }

  private sendOne(record: StoredRecord): Promise<void> | undefined {
    const sequence = this.nextSequence++;
    if (this.keepRecords) this.inFlight.push(record);
    this.unacknowledged++;
    if (this.unacknowledged >= this.config.maxInFlightRecords) this.setBlocked(true);
    const waiting = send(this.producer!, record, sequence);
    if (waiting === undefined) return undefined;
    this.setBlocked(true);
    return waiting;
  }

  private onDelivery(error: LibrdKafkaError | null | undefined, sequence: number | undefined): void {
    if (error) {
      this.fail(
        new KafkaError(`KafkaSink '${this.context.sinkName}': a record was not delivered: ${error.message}`, {
          cause: error,
        }),
      );
      return;
    }
    this.unacknowledged--;
    if (this.keepRecords && sequence !== undefined) {
      this.inFlight[sequence - this.base] = undefined;
      // Move past the acknowledged prefix and drop it in chunks: amortised O(1) per record.
      while (this.head < this.inFlight.length && this.inFlight[this.head] === undefined) this.head++;
      if (this.head >= 1024 || this.head === this.inFlight.length) {
        this.inFlight.splice(0, this.head);
        this.base += this.head;
        this.head = 0;
      }
    }
    if (
      this.blocked &&
      this.draining === undefined &&
      this.producer !== undefined &&
      this.unacknowledged <= this.config.maxInFlightRecords / 2
    )
      this.setBlocked(false);
  }

  private setBlocked(blocked: boolean): void {
    if (this.blocked === blocked || this.context.setBackpressure === undefined) return;
    this.blocked = blocked;
    this.context.setBackpressure(blocked);
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error instanceof Error ? error : new KafkaError(String(error));
    this.context.failJob?.(this.failure, 'writing to Kafka');
  }
}
