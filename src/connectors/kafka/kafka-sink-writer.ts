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
  TIMED_OUT,
} from './kafka-client.ts';
import type { KafkaSinkConfig } from './kafka-sink.ts';
import { storeRecord, trySend, type StoredRecord } from './stored-record.ts';
import { restoredRecords, StoredRecordBatchBuilder, type StoredRecordBatch } from './stored-record-batch.ts';

const CONNECT_TIMEOUT_MS = 30_000;
/**
 * How long one confirming flush waits before it is made again. A flush that times out is no failure (the records
 * stay unconfirmed and are flushed again); the bound is how long `close()` may wait behind it.
 */
const CONFIRM_TIMEOUT_MS = 1_000;

/**
 * Records go to librdkafka as they are written (it batches them per partition). It reports errors only
 * (`delivery.report.only.error`): the client hands delivery reports to JavaScript at most 100 per turn of the event
 * loop, one callback each, far slower than a busy job writes, so a report per record made every record look
 * unacknowledged long after the broker had it. Instead the writer learns acknowledgement for groups of records
 * from a flush of the producer (a confirmation), which ends once librdkafka holds no record any more (every one
 * acknowledged or reported failed): while it runs the writer hands librdkafka nothing new (new records wait in
 * the backlog), so the flush ends an acknowledgement round trip after it starts, and everything sent before it is
 * confirmed. A confirmation starts when a quarter of `maxInFlightRecords` have been sent since the last one, at a
 * checkpoint barrier (AT_LEAST_ONCE), when librdkafka's local queue is full, and at the end of input.
 *
 * With AT_LEAST_ONCE the records not yet confirmed at a checkpoint barrier go into the checkpoint and are sent
 * again first after a restore, so the barrier never waits for the broker. A record the broker refused fails the
 * job (naming the sink) before the confirmation covering it takes effect, so no checkpoint drops it. More than
 * `maxInFlightRecords` unconfirmed records pause the sources upstream until half have been confirmed.
 */
export class KafkaSinkWriter<T> implements SinkWriter<T> {
  private producer: ClientProducer | undefined = undefined;
  private readonly ready: Promise<void>;
  /** Records not yet handed to librdkafka: the producer is connecting, or a confirmation is running. */
  private backlog: StoredRecord[] = [];
  /** Records handed to librdkafka since the last confirmation started (AT_LEAST_ONCE keeps them; NONE counts). */
  private sent: StoredRecord[] = [];
  private sentCount = 0;
  /** The records the running confirmation covers. */
  private flushing: StoredRecord[] = [];
  private flushingCount = 0;
  /** Groups of records a confirmation covered, each kept until an error report for it would have arrived. */
  private readonly settling: StoredRecord[][] = [];
  private readonly settlingCounts: number[] = [];
  /** Records written and not yet confirmed, wherever they are: what the in-flight bound counts. */
  private unconfirmed = 0;
  private confirmation: Promise<void> | undefined = undefined;
  /** A checkpoint barrier came while a confirmation ran: confirm what follows it at once too. */
  private confirmRequested = false;
  private readonly confirmEvery: number;
  private blocked = false;
  private failure: Error | undefined = undefined;
  private readonly keepRecords: boolean;
  /** Where a checkpoint's unconfirmed records are encoded; its buffer is kept from one checkpoint to the next. */
  private readonly snapshotRecords = new StoredRecordBatchBuilder();

  constructor(
    private readonly config: KafkaSinkConfig<T>,
    private readonly context: SinkWriterContext,
  ) {
    this.keepRecords = config.deliveryGuarantee === DeliveryGuarantee.AT_LEAST_ONCE;
    this.confirmEvery = Math.max(1, Math.floor(config.maxInFlightRecords / 4));
    const restored = this.keepRecords ? context.restoredState : undefined;
    // Unconfirmed records of the restored checkpoint go out before anything new.
    if (Array.isArray(restored)) this.backlog = restoredRecords(restored);
    this.unconfirmed = this.backlog.length;
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
    if (++this.unconfirmed >= this.config.maxInFlightRecords) this.setBlocked(true);
    if (this.producer === undefined || this.confirmation !== undefined || !this.trySendOne(record))
      this.backlog.push(record);
    else if (this.sentCount >= this.confirmEvery) this.startConfirmation();
  }

  /**
   * The records not known to be acknowledged, as one batch of bytes (a structured clone and v8.serialize copy it
   * whole) in an array: the sink redistributes writer states as arrays, concatenating those of old subtasks. The
   * barrier starts a confirmation, so the next checkpoint holds none of these once the broker has them.
   */
  snapshotState(): StoredRecordBatch[] | undefined {
    if (!this.keepRecords) return undefined;
    const records = this.snapshotRecords;
    // In the order they were sent, which is the order a restore sends them again.
    for (const group of this.settling) for (const r of group) records.addStored(r);
    for (const r of this.flushing) records.addStored(r);
    for (const r of this.sent) records.addStored(r);
    for (const r of this.backlog) records.addStored(r);
    if (this.confirmation !== undefined) this.confirmRequested = true;
    else this.startConfirmation();
    return records.count === 0 ? [] : [records.seal()];
  }

  /** Sends everything and waits until the broker has acknowledged all of it (or a record was refused). */
  async endOfInput(): Promise<void> {
    await this.ready;
    while (this.failure === undefined) {
      if (this.confirmation === undefined) this.startConfirmation();
      if (this.confirmation === undefined) break;
      await this.confirmation;
    }
    await afterQueuedReports();
    if (this.failure !== undefined) throw this.failure;
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer !== undefined)
      await call('disconnecting the producer', (cb) => producer.disconnect(10_000, cb));
  }

  private async connect(): Promise<void> {
    const { Producer } = kafkaClient();
    const producer = new Producer({
      'client.id': `weir-${this.context.sinkName}-${this.context.subtaskIndex}`,
      'linger.ms': 5,
      ...this.config.properties,
      dr_cb: true,
      'delivery.report.only.error': true,
    });
    producer.on('delivery-report', (error) => {
      if (error)
        this.fail(
          new KafkaError(
            `KafkaSink '${this.context.sinkName}': a record was not delivered: ${error.message}`,
            {
              cause: error,
            },
          ),
        );
    });
    producer.on('event.error', (error) => {
      if (error.isFatal === true)
        this.fail(new KafkaError(`KafkaSink '${this.context.sinkName}': ${error.message}`, { cause: error }));
    });
    await call<ClientMetadata>(
      `connecting to ${String(this.config.properties['bootstrap.servers'])} (sink '${this.context.sinkName}')`,
      (cb) => producer.connect({ timeout: CONNECT_TIMEOUT_MS }, cb),
    );
    // Serves error reports while no confirmation's flush does.
    producer.setPollInterval(10);
    this.producer = producer;
    this.drain();
    this.releaseBackpressure();
  }

  /** Hands one record to librdkafka; false when its local queue is full, which starts a confirmation. */
  private trySendOne(record: StoredRecord): boolean {
    if (!trySend(this.producer!, record, undefined)) {
      this.startConfirmation();
      return false;
    }
    if (this.keepRecords) this.sent.push(record);
    this.sentCount++;
    return true;
  }

  /**
   * Hands the whole backlog to librdkafka in order (unless its local queue fills), then starts the next
   * confirmation if one is due: stopping at the threshold would send one confirmation's worth per round trip.
   */
  private drain(): void {
    const backlog = this.backlog;
    let i = 0;
    while (i < backlog.length && this.trySendOne(backlog[i]!)) i++;
    if (i === backlog.length) this.backlog = [];
    else if (i > 0) backlog.splice(0, i);
    if (this.sentCount >= this.confirmEvery || this.confirmRequested) this.startConfirmation();
  }

  /** Flushes what has been sent since the last confirmation, holding new records back until it has ended. */
  private startConfirmation(): void {
    if (this.confirmation !== undefined || this.producer === undefined || this.failure !== undefined) return;
    // With nothing sent since the last one there is nothing to confirm, unless records wait in the backlog (the
    // local queue was full): the flush then waits for the queue, and its end sends them.
    if (this.sentCount === 0 && this.backlog.length === 0) return;
    this.confirmRequested = false;
    this.flushing = this.sent;
    this.flushingCount = this.sentCount;
    this.sent = [];
    this.sentCount = 0;
    const producer = this.producer;
    this.confirmation = flushUntilEmpty(producer).then(
      () => this.confirmed(),
      (error: unknown) => {
        this.confirmation = undefined;
        // A flush cut short by close() is no failure of the job.
        if (this.producer === producer)
          this.fail(
            new KafkaError(`KafkaSink '${this.context.sinkName}': flushing to Kafka failed`, {
              cause: error,
            }),
          );
      },
    );
  }

  /**
   * The flush ended: every record sent before it is acknowledged or was reported failed. A failure's report is
   * already queued in the client, to be dispatched on a later turn of the loop; the group is dropped only once it
   * would have arrived, so a checkpoint taken before never lacks a refused record.
   */
  private confirmed(): void {
    const group = this.flushing;
    const count = this.flushingCount;
    this.flushing = [];
    this.flushingCount = 0;
    this.confirmation = undefined;
    this.settling.push(group);
    this.settlingCounts.push(count);
    void afterQueuedReports().then(() => this.settled());
    if (this.producer !== undefined) this.drain();
  }

  private settled(): void {
    // After a failure nothing is dropped: a refused record is in one of these groups.
    if (this.failure !== undefined) return;
    this.settling.shift();
    this.unconfirmed -= this.settlingCounts.shift()!;
    this.releaseBackpressure();
  }

  private releaseBackpressure(): void {
    if (this.producer !== undefined && this.unconfirmed <= this.config.maxInFlightRecords / 2)
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

/** Flushes until librdkafka holds no record; a flush that times out is made again. */
async function flushUntilEmpty(producer: ClientProducer): Promise<void> {
  for (;;) {
    const error = await new Promise<LibrdKafkaError | null | undefined>((resolve) => {
      try {
        producer.flush(CONFIRM_TIMEOUT_MS, (e) => resolve(e));
      } catch (thrown) {
        // The client throws at once when the producer has been disconnected.
        resolve(thrown as LibrdKafkaError);
      }
    });
    if (!error) return;
    if (error.code !== TIMED_OUT) throw error;
  }
}

/**
 * Resolves once the delivery reports the client had queued when it was called have reached JavaScript. The client
 * dispatches them on its own uv async handle, which the loop serves in a poll phase: one that may already be under
 * way (the handle passed over) when this is called, so the reports are surely in after the next one, which two
 * check phases (setImmediate) bracket.
 */
function afterQueuedReports(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
