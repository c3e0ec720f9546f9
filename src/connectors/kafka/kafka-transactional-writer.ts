// KafkaTransactionalWriter: one sink subtask with EXACTLY_ONCE: a Kafka transaction per checkpoint interval.
import { WeirError } from '../../core/errors.ts';
import type { SinkWriter, SinkWriterContext } from '../../core/sink.ts';
import {
  call,
  kafkaClient,
  KafkaError,
  type ClientConsumer,
  type ClientMetadata,
  type ClientProducer,
  type TopicPartitionOffset,
} from './kafka-client.ts';
import type { KafkaSinkConfig } from './kafka-sink.ts';
import { send, trySend, type StoredRecord } from './stored-record.ts';
import {
  restoredBatch,
  StoredRecordBatchBuilder,
  StoredRecordReader,
  type StoredRecordBatch,
} from './stored-record-batch.ts';

const TIMEOUT_MS = 60_000;

/** The records of one checkpoint interval, sealed at its barrier (the pre-commit) and committed on completion. */
export interface SealedInterval {
  readonly checkpointId: number;
  /** The topic whose partition 0 carries the interval's marker offset (the first record's topic). */
  readonly markerTopic: string;
  /** As bytes: an interval can hold thousands of records, and every checkpoint until its commit copies it. */
  readonly records: StoredRecordBatch;
}

/** An interval as checkpoints held it before records were kept as bytes; still restored. */
interface SealedIntervalOfRecords {
  readonly checkpointId: number;
  readonly markerTopic: string;
  readonly records: StoredRecord[];
}

/** The writer's checkpointed state: the sealed intervals not known to be committed. */
export interface KafkaTransactionalWriterState {
  readonly pending: SealedInterval[];
  /** Intervals of old subtasks (by index) beyond the parallelism that this writer is still recovering. */
  readonly adopted?: Record<number, SealedInterval[]>;
}

/**
 * The transaction open on the writer's producer: it belongs to the next interval to commit, and librdkafka holds
 * the first `written` of that interval's records in it.
 */
interface OpenTransaction {
  /** The interval's records: sealed, or still being collected (then sealed into a batch at the barrier). */
  records: StoredRecordBatch | StoredRecordBatchBuilder;
  written: number;
  /** Whether records of the interval are handed to the producer as they are written (until its queue is full). */
  streaming: boolean;
}

/** The transactional id of subtask `subtask`, also the consumer group its commit markers go to. */
export function transactionalId(prefix: string, subtask: number): string {
  return `${prefix}-${subtask}`;
}

/**
 * Exactly once with Kafka transactions, without resuming a transaction across processes (librdkafka cannot: a
 * new producer's `initTransactions` aborts what an old one left open). So the records of an interval are kept
 * until its checkpoint completes (they are in that checkpoint: the pre-commit), then written and committed in one
 * transaction together with a marker offset (the checkpoint id, for group `<prefix>-<subtask>`). Recovery reads
 * the marker and writes again exactly the intervals that were not committed. Transactions stay open only while
 * they are written, so `transaction.timeout.ms` need not outlast a checkpoint interval (it must in Flink).
 *
 * To spread the writing over the interval (as Flink's producer does) rather than doing it all at commit time, the
 * writer keeps a transaction open for the next interval to commit and hands that interval's records to librdkafka
 * as they arrive; the commit then only adds the marker and commits. That transaction is disposable: the records
 * stay in memory and in the checkpoint as before, so recovery is unchanged (a successor's `initTransactions`
 * aborts it), and a transaction open for half of `transaction.timeout.ms` is aborted and its interval written at
 * commit time instead, so a long checkpoint interval never lets the broker abort a transaction under the writer.
 */
export class KafkaTransactionalWriter<T> implements SinkWriter<T> {
  /** The records since the last barrier. */
  private readonly current = new StoredRecordBatchBuilder();
  private pending: SealedInterval[] = [];
  /** Restored intervals of old subtasks beyond the parallelism, until recovery has committed them. */
  private readonly adopted = new Map<number, SealedInterval[]>();
  private readonly restoredOwn: readonly SealedInterval[];
  private producer: ClientProducer | undefined = undefined;
  private marker: ClientConsumer | undefined = undefined;
  private readonly ready: Promise<void>;
  private committing: Promise<void>;
  private readonly prefix: string;
  private openTransaction: OpenTransaction | undefined = undefined;
  /** False once a transaction had to be aborted for its age: later intervals are written at commit time. */
  private streams: boolean;
  private readonly openLimitMs: number;
  private closed = false;

  constructor(
    private readonly config: KafkaSinkConfig<T>,
    private readonly context: SinkWriterContext,
  ) {
    this.prefix = config.transactionalIdPrefix!;
    // Restored intervals stay in the state until recovery has committed them: a checkpoint taken meanwhile
    // must still hold them.
    for (const [owner, intervals] of restoredIntervals(context.restoredStates ?? [])) {
      if (owner === context.subtaskIndex) this.pending.push(...intervals);
      else if (context.subtaskIndex === 0 && owner >= context.parallelism) this.adopted.set(owner, intervals);
    }
    this.restoredOwn = [...this.pending];
    this.ready = this.recover();
    this.ready.catch((error) => context.failJob?.(error, 'recovering Kafka transactions'));
    // Without checkpointing the whole input is one transaction, too long to keep open while it is read.
    this.streams = context.checkpointingEnabled === true;
    this.openLimitMs = transactionTimeoutMs(config.properties) / 2;
    this.committing = this.ready.then(() => this.beginNext());
    this.committing.catch(() => {});
  }

  write(value: T, timestamp: number | undefined): void {
    this.current.add(
      this.config.serializer(value, timestamp),
      this.config.defaultTopic,
      timestamp,
      this.context.sinkName,
    );
    const open = this.openTransaction;
    if (open !== undefined && open.streaming && open.records === this.current) {
      // A full local queue stops the streaming of this interval: the commit writes the rest, waiting for room.
      if (trySend(this.producer!, this.current.lastRecord(), undefined)) open.written++;
      else open.streaming = false;
    }
  }

  /** Phase one: the interval's records become part of the checkpoint. */
  snapshotState(checkpointId: number): KafkaTransactionalWriterState {
    if (this.current.count > 0) {
      const records = this.current.seal();
      // The open transaction holding the interval's first records now belongs to the sealed batch.
      if (this.openTransaction?.records === this.current) this.openTransaction.records = records;
      this.pending.push({ checkpointId, markerTopic: records.topics[0]!, records });
    }
    if (this.adopted.size === 0) return { pending: this.pending };
    return { pending: this.pending, adopted: Object.fromEntries(this.adopted) };
  }

  /** Phase two: commits, in order, every sealed interval the completed checkpoint covers. */
  notifyCheckpointComplete(checkpointId: number): Promise<void> {
    this.committing = this.committing.then(async () => {
      await this.ready;
      while (this.pending.length > 0 && this.pending[0]!.checkpointId <= checkpointId) {
        await this.commit(this.producer!, this.marker!, this.pending[0]!);
        // Dropped only once committed: a checkpoint taken meanwhile still holds it, and the marker decides.
        this.pending.shift();
      }
      await this.beginNext();
    });
    return this.committing;
  }

  async endOfInput(): Promise<void> {
    // With checkpointing the final checkpoint commits; without, the end of input is the only commit point.
    if (this.context.checkpointingEnabled === true || this.current.count === 0) return;
    await this.ready;
    const records = this.current.seal();
    await this.commit(this.producer!, this.marker!, {
      checkpointId: 0,
      markerTopic: records.topics[0]!,
      records,
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.committing.catch(() => {});
    await this.ready.catch(() => {});
    // An open transaction would hold back read_committed consumers of its partitions until it timed out.
    if (this.openTransaction !== undefined && this.producer !== undefined) {
      this.openTransaction = undefined;
      const producer = this.producer;
      await call('aborting the open transaction', (cb) => producer.abortTransaction(TIMEOUT_MS, cb)).catch(
        () => {},
      );
    }
    await disconnect(this.producer, this.marker);
    this.producer = undefined;
    this.marker = undefined;
  }

  /**
   * Initialises this subtask's transactional id (aborting a transaction a predecessor left open, fencing it) and
   * finishes the intervals of the restored checkpoint; subtask 0 also does so for old subtasks beyond the current
   * parallelism, so a rescale loses nothing.
   */
  private async recover(): Promise<void> {
    const own = await this.open(this.context.subtaskIndex);
    this.producer = own.producer;
    this.marker = own.marker;
    // What was restored, not what was sealed since (recovery starts asynchronously).
    const restored = this.restoredOwn;
    await this.replay(own.producer, own.marker, this.context.subtaskIndex, restored);
    this.pending = this.pending.filter((i) => !restored.includes(i));
    if (this.context.subtaskIndex !== 0) return;
    // Old subtasks beyond the parallelism: their ids are initialised too (aborting what they left open).
    const owners = new Set<number>(this.adopted.keys());
    const states = this.context.restoredStates ?? [];
    for (let old = this.context.parallelism; old < states.length; old++) owners.add(old);
    for (const old of [...owners].sort((a, b) => a - b)) {
      const other = await this.open(old);
      try {
        await this.replay(other.producer, other.marker, old, this.adopted.get(old) ?? []);
      } finally {
        await disconnect(other.producer, other.marker);
      }
      this.adopted.delete(old);
    }
  }

  /** A transactional producer for subtask `subtask`'s id, initialised, and a consumer of its marker group. */
  private async open(subtask: number): Promise<{ producer: ClientProducer; marker: ClientConsumer }> {
    const { KafkaConsumer, Producer } = kafkaClient();
    const id = transactionalId(this.prefix, subtask);
    const servers = String(this.config.properties['bootstrap.servers']);
    const producer = new Producer({
      'client.id': `weir-${this.context.sinkName}-${subtask}`,
      'linger.ms': 5,
      'transaction.timeout.ms': TIMEOUT_MS,
      'queue.buffering.max.messages': 1_000_000,
      ...this.config.properties,
      'transactional.id': id,
    });
    const marker = new KafkaConsumer(
      {
        ...this.config.properties,
        'group.id': id,
        'enable.auto.commit': false,
        'isolation.level': 'read_committed',
      },
      {},
    );
    await call<ClientMetadata>(`connecting to ${servers} (sink '${this.context.sinkName}')`, (cb) =>
      producer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    producer.setPollInterval(50);
    await call<ClientMetadata>(`connecting the marker consumer of '${id}'`, (cb) =>
      marker.connect({ timeout: TIMEOUT_MS }, cb),
    );
    await call(`initialising transactional id '${id}' (fences any earlier producer with this id)`, (cb) =>
      producer.initTransactions(TIMEOUT_MS, cb),
    );
    return { producer, marker };
  }

  /** Writes again the restored intervals whose checkpoint id is above the committed marker. */
  private async replay(
    producer: ClientProducer,
    marker: ClientConsumer,
    subtask: number,
    intervals: readonly SealedInterval[],
  ): Promise<void> {
    const topics = [...new Set(intervals.map((i) => i.markerTopic))];
    if (topics.length === 0) return;
    const id = transactionalId(this.prefix, subtask);
    const committed = await call<TopicPartitionOffset[]>(`reading the commit markers of '${id}'`, (cb) =>
      marker.committed(
        topics.map((topic) => ({ topic, partition: 0 })),
        TIMEOUT_MS,
        cb,
      ),
    );
    let last = -1;
    for (const c of committed) if (c.offset > last) last = c.offset;
    for (const interval of [...intervals].sort((a, b) => a.checkpointId - b.checkpointId)) {
      if (interval.checkpointId > last) await this.commit(producer, marker, interval);
    }
  }

  /**
   * Opens a transaction for the next interval to commit (the oldest sealed one, or the one being collected) and
   * writes what it holds so far; the current interval's later records follow as they are written.
   */
  private async beginNext(): Promise<void> {
    if (!this.streams || this.closed || this.openTransaction !== undefined) return;
    const producer = this.producer!;
    await call(`beginning a transaction of sink '${this.context.sinkName}'`, (cb) =>
      producer.beginTransaction(cb),
    );
    const records = this.pending.length > 0 ? this.pending[0]!.records : this.current;
    const open: OpenTransaction = { records, written: 0, streaming: true };
    this.openTransaction = open;
    const reader =
      records instanceof StoredRecordBatchBuilder ? records.reader() : new StoredRecordReader(records);
    for (let record = reader.next(); record !== undefined; record = reader.next()) {
      if (!trySend(producer, record, undefined)) {
        open.streaming = false;
        break;
      }
      open.written++;
    }
    setTimeout(() => this.expire(open), this.openLimitMs).unref();
  }

  /**
   * A transaction open for half its timeout is aborted (its records stay kept), before the broker aborts it under
   * the writer; from then on intervals are written at commit time, as the checkpoints are too far apart.
   */
  private expire(open: OpenTransaction): void {
    if (this.openTransaction !== open || this.closed) return;
    this.streams = false;
    open.streaming = false;
    this.committing = this.committing.then(async () => {
      if (this.openTransaction !== open) return;
      this.openTransaction = undefined;
      const producer = this.producer!;
      await call(
        `aborting a transaction of sink '${this.context.sinkName}' open for ${this.openLimitMs} ms`,
        (cb) => producer.abortTransaction(TIMEOUT_MS, cb),
      );
    });
    this.committing.catch((error) => this.context.failJob?.(error, 'writing to Kafka'));
  }

  /** One transaction: the interval's records and its marker, committed together or not at all. */
  private async commit(
    producer: ClientProducer,
    marker: ClientConsumer,
    interval: SealedInterval,
  ): Promise<void> {
    const what = `checkpoint ${interval.checkpointId} of sink '${this.context.sinkName}'`;
    try {
      // The open transaction may already hold the first records of this interval (see beginNext).
      const open =
        producer === this.producer && this.openTransaction?.records === interval.records
          ? this.openTransaction
          : undefined;
      if (open !== undefined) this.openTransaction = undefined;
      else await call(`beginning the transaction of ${what}`, (cb) => producer.beginTransaction(cb));
      const records = new StoredRecordReader(interval.records);
      records.skip(open?.written ?? 0);
      for (let record = records.next(); record !== undefined; record = records.next()) {
        const waiting = send(producer, record, undefined);
        if (waiting !== undefined) await waiting;
      }
      if (interval.checkpointId > 0) {
        await call(`adding the commit marker of ${what}`, (cb) =>
          producer.sendOffsetsToTransaction(
            [{ topic: interval.markerTopic, partition: 0, offset: interval.checkpointId }],
            marker,
            TIMEOUT_MS,
            cb,
          ),
        );
      }
      await call(`committing the transaction of ${what} (${interval.records.count} records)`, (cb) =>
        producer.commitTransaction(TIMEOUT_MS, cb),
      );
    } catch (error) {
      // The job fails and restores; the new writer aborts this transaction and writes the interval again.
      throw error instanceof WeirError
        ? error
        : new KafkaError(`Kafka: ${what} failed: ${String(error)}`, { cause: error });
    }
  }
}

/** The producer's `transaction.timeout.ms`: the writer's default unless the sink's properties set one. */
function transactionTimeoutMs(properties: KafkaSinkConfig<unknown>['properties']): number {
  const set = Number(properties['transaction.timeout.ms']);
  return Number.isFinite(set) && set > 0 ? set : TIMEOUT_MS;
}

/** Every restored interval by the subtask whose transactional id must commit it, without duplicates. */
function restoredIntervals(states: readonly unknown[]): Map<number, SealedInterval[]> {
  const byOwner = new Map<number, Map<number, SealedInterval>>();
  const add = (owner: number, intervals: unknown) => {
    if (!Array.isArray(intervals)) return;
    let map = byOwner.get(owner);
    if (map === undefined) byOwner.set(owner, (map = new Map()));
    for (const i of intervals as (SealedInterval | SealedIntervalOfRecords)[])
      map.set(i.checkpointId, {
        checkpointId: i.checkpointId,
        markerTopic: i.markerTopic,
        records: restoredBatch(i.records),
      });
  };
  states.forEach((state, index) => {
    const s = state as Partial<KafkaTransactionalWriterState> | undefined;
    add(index, s?.pending);
    for (const [owner, intervals] of Object.entries(s?.adopted ?? {})) add(Number(owner), intervals);
  });
  const result = new Map<number, SealedInterval[]>();
  for (const [owner, map] of byOwner)
    result.set(
      owner,
      [...map.values()].sort((a, b) => a.checkpointId - b.checkpointId),
    );
  return result;
}

async function disconnect(
  producer: ClientProducer | undefined,
  marker: ClientConsumer | undefined,
): Promise<void> {
  if (producer !== undefined)
    await call('disconnecting the producer', (cb) => producer.disconnect(10_000, cb));
  if (marker?.isConnected()) await call('disconnecting the marker consumer', (cb) => marker.disconnect(cb));
}
