// TaskTransaction: one task's transactional producer: its output, repartition writes and input offsets, committed together.
import { WeirError } from '../../core/errors.ts';
import {
  call,
  callRetrying,
  kafkaClient,
  KafkaError,
  OFFSET_INVALID,
  type ClientConsumer,
  type ClientMetadata,
  type ClientProducer,
  type KafkaProperties,
  type TopicPartitionOffset,
} from '../../connectors/kafka/kafka-client.ts';
import { send, type StoredRecord } from '../../connectors/kafka/stored-record.ts';

const TIMEOUT_MS = 60_000;
/**
 * How long each of a commit's two calls may take, tries included. A commit takes milliseconds; while a broker's
 * coordinators and leaderships move it waits seconds; a client that waited longer is taken as stuck: the commit
 * fails, and the task starts again on a fresh client, which looks every coordinator up again.
 *
 * Why a fresh client: librdkafka (2.x) looks up the coordinator of the offsets' group once per client and caches
 * it; when that coordinator's broker dies and drops out of the cluster's metadata, a `sendOffsetsToTransaction`
 * waiting for it is woken only by a broker of that client going up or down, and may wait, past its own timeout,
 * until the dead broker is back. So the bound is kept here, in JS ({@link StuckClientError} after three times this), a
 * try that times out is not made again on the same client, and the stuck client is closed once its call returns.
 */
const COMMIT_TRY_MS = 10_000;
/** A commit whose calls have not returned after this many times {@link COMMIT_TRY_MS} gives its client up. */
const STUCK_TRIES = 3;

/**
 * A call of a task's client that did not return within its bound: the task starts again on a fresh client (as
 * after a failure the client reports), and the stuck one is closed once the call returns.
 */
export class StuckClientError extends KafkaError {}

/**
 * The producer of one task, `<job id>-task-<task id>`, with a transaction always open while the task runs.
 * Everything the task writes (its Kafka sinks' records, its repartition records and markers) goes through
 * {@link send}, in order; {@link commit} adds the task's input position (offsets for the consumer group of the
 * same name) and commits, so the input read, the records written downstream and the output are one unit.
 *
 * Opening initialises the transactional id, which aborts a transaction a previous owner left open and fences
 * that owner: a process that lost the task (and does not know it yet) fails its next commit.
 */
export class TaskTransaction {
  /** Messages waiting behind one librdkafka could not take (its local queue was full), in order. */
  private held: StoredRecord[] = [];
  private draining: Promise<void> | undefined = undefined;
  /**
   * True from the start of a commit until the next transaction has begun. The task runs on while a commit waits
   * for the broker (a periodic watermark, a processing-time timer), and librdkafka refuses a message outside an
   * open transaction ("Erroneous state"): what is sent meanwhile is held and goes into the next transaction.
   */
  private committing = false;
  private failure: Error | undefined = undefined;
  private closing: Promise<void> | undefined = undefined;
  /** A call of the commit's still running in the client (maybe past its bound): the producer closes after it. */
  private inCall: Promise<void> | undefined = undefined;
  /** Messages sent since the last commit (a commit with nothing new read or written is skipped). */
  sentSinceCommit = 0;
  /** Transactions committed. */
  commits = 0;
  /**
   * Per topic whose offsets are tracked (the task's changelog topics, one partition each), the offset after the
   * last message delivered there. A delivery report may come after its transaction's commit returned, so after a
   * commit this is at most the partition's end, never past a message the commit did not decide.
   */
  readonly delivered = new Map<string, number>();
  /** Messages sent to tracked topics whose delivery report has not come yet, and who waits for them. */
  private unreported = 0;
  private reportWaiters: (() => void)[] = [];

  private constructor(
    /** The transactional id, also the consumer group of the task's input offsets. */
    readonly id: string,
    private readonly producer: ClientProducer,
    private readonly offsets: ClientConsumer,
    private readonly commitTryMs: number,
  ) {}

  /**
   * Connects the producer and the consumer of the task's offset group, initialises the transactional id
   * (fencing an earlier owner) and begins the first transaction.
   */
  static async open(
    id: string,
    bootstrapServers: string,
    properties: KafkaProperties,
    transactionTimeoutMs: number,
    /** How long one try of a commit's calls may take before the client is taken as stuck. */
    commitTryMs = COMMIT_TRY_MS,
  ): Promise<TaskTransaction> {
    const { KafkaConsumer, Producer } = kafkaClient();
    const producer = new Producer({
      'client.id': `weir-${id}`,
      'linger.ms': 5,
      'queue.buffering.max.messages': 1_000_000,
      // A task writes into a partition right after its previous commit, whose markers the coordinator may not
      // have written yet: it answers CONCURRENT_TRANSACTIONS, and librdkafka tries again after this backoff
      // (100 ms by default, which then bounds a task's commit rate). Kafka's Java producer retries that case
      // after 20 ms (its TransactionManager's ADD_PARTITIONS_RETRY_BACKOFF_MS).
      'retry.backoff.ms': 20,
      // A connection idle this long closes, and a broker going down wakes librdkafka's lookups waiting for a
      // coordinator: one that waits on a broker that died (see COMMIT_TRY_MS) then looks the coordinator up again
      // within seconds instead of when the dead broker returns. A task's connections are busy while it runs.
      'connections.max.idle.ms': 5_000,
      ...properties,
      'bootstrap.servers': bootstrapServers,
      'transactional.id': id,
      'transaction.timeout.ms': transactionTimeoutMs,
      dr_cb: true,
    });
    const offsets = new KafkaConsumer(
      {
        ...properties,
        'bootstrap.servers': bootstrapServers,
        'group.id': id,
        'enable.auto.commit': false,
        'isolation.level': 'read_committed',
      },
      {},
    );
    let transaction: TaskTransaction | undefined = undefined;
    producer.on('delivery-report', (error, report) => {
      if (transaction !== undefined) transaction.reported(report, !error);
      if (error && transaction !== undefined)
        transaction.failure ??= new KafkaError(
          `Task '${id}': a message was not delivered: ${error.message}`,
          {
            cause: error,
          },
        );
    });
    // A fatal error (a newer owner fenced the producer, or the broker aborted a transaction past its timeout)
    // comes here with librdkafka's reason; the calls that fail after it only say "Fatal error".
    producer.on('event.error', (error) => {
      if (error.isFatal === true && transaction !== undefined)
        transaction.failure ??= new KafkaError(`Task '${id}': its producer failed: ${error.message}`, {
          cause: error,
        });
    });
    await call<ClientMetadata>(`connecting the producer of task '${id}' to ${bootstrapServers}`, (cb) =>
      producer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    producer.setPollInterval(10);
    try {
      await call<ClientMetadata>(`connecting the offset consumer of task '${id}'`, (cb) =>
        offsets.connect({ timeout: TIMEOUT_MS }, cb),
      );
      await callRetrying(
        `initialising transactional id '${id}' (fences the task's previous owner)`,
        (cb) => producer.initTransactions(TIMEOUT_MS, cb),
        TIMEOUT_MS,
      );
      await call(`beginning a transaction of task '${id}'`, (cb) => producer.beginTransaction(cb));
    } catch (error) {
      await disconnect(producer, offsets);
      throw error;
    }
    transaction = new TaskTransaction(id, producer, offsets, commitTryMs);
    return transaction;
  }

  /**
   * The committed next offset of a topic partition for this task's group (undefined when none is), and the
   * metadata committed with it.
   */
  async committedOffset(
    topic: string,
    partition: number,
  ): Promise<{ readonly offset: number | undefined; readonly metadata: string | undefined }> {
    const committed = await callRetrying<TopicPartitionOffset[]>(
      `reading the committed offset of ${topic}-${partition} for task '${this.id}'`,
      (cb) => this.offsets.committed([{ topic, partition }], TIMEOUT_MS, cb),
      TIMEOUT_MS,
    );
    const offset = committed[0]?.offset;
    const metadata = committed[0]?.metadata;
    return {
      offset: offset === undefined || offset === OFFSET_INVALID || offset < 0 ? undefined : offset,
      metadata: metadata === undefined || metadata === '' ? undefined : metadata,
    };
  }

  /** Tracks the offsets delivered to `topic` from `offset` on (see {@link delivered}). */
  trackOffsets(topic: string, offset: number): void {
    this.delivered.set(topic, offset);
  }

  /**
   * Resolves once every message sent to a tracked topic so far has its delivery report (after a commit they all
   * come, within librdkafka's next poll): {@link delivered} then holds the end of the committed messages.
   */
  whenDelivered(): Promise<void> {
    if (this.unreported === 0) return Promise.resolve();
    return new Promise((resolve) => this.reportWaiters.push(resolve));
  }

  /** A delivery report: a message not delivered (which fails the transaction) counts, with no offset. */
  private reported(report: TopicPartitionOffset | undefined, delivered: boolean): void {
    if (report === undefined || !this.delivered.has(report.topic)) return;
    if (delivered && report.offset >= this.delivered.get(report.topic)!)
      this.delivered.set(report.topic, report.offset + 1);
    if (--this.unreported > 0) return;
    const waiters = this.reportWaiters;
    this.reportWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * Hands one message to the producer, inside the open transaction, after every message handed earlier. When
   * librdkafka's queue is full it is held (with what follows) until the queue drains: {@link drained}.
   */
  send(record: StoredRecord): void {
    if (this.failure !== undefined) throw this.failure;
    this.sentSinceCommit++;
    if (this.delivered.size > 0 && this.delivered.has(record.topic)) this.unreported++;
    if (this.draining !== undefined || this.committing) {
      this.held.push(record);
      return;
    }
    const waiting = send(this.producer, record, undefined);
    if (waiting !== undefined) this.drainAfter(waiting);
  }

  /** Resolves once every message handed over is in librdkafka's queue (the task's backpressure). */
  async drained(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Commits the open transaction with the task's input position (`offsets`: the next offset to read of each
   * input partition, with the metadata to commit along) and begins the next one. A fenced producer (the task moved on) fails here: nothing of this
   * transaction becomes visible.
   */
  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    await this.drained();
    const what = `transaction ${this.commits + 1} of task '${this.id}'`;
    this.committing = true;
    const calls = this.commitCalls(offsets, what);
    // The client is closed only once these calls returned, even after the commit gave them up.
    const settled = calls.then(
      () => {},
      () => {},
    );
    this.inCall = settled;
    void settled.then(() => {
      if (this.inCall === settled) this.inCall = undefined;
    });
    const limitMs = STUCK_TRIES * this.commitTryMs;
    let timer: NodeJS.Timeout | undefined = undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StuckClientError(
              `Task '${this.id}': ${what} did not return within ${limitMs} ms; the task starts again on a fresh client`,
            ),
          ),
        limitMs,
      );
    });
    try {
      await Promise.race([calls, stuck]);
    } catch (error) {
      this.failure ??= error instanceof Error ? error : new WeirError(String(error));
      throw error;
    } finally {
      clearTimeout(timer);
      this.committing = false;
    }
    if (this.held.length > 0) this.drainAfter(Promise.resolve());
  }

  /** Whether the task waits on the brokers: a commit in the client, or a full producer queue. */
  get busy(): boolean {
    return this.inCall !== undefined || this.draining !== undefined;
  }

  /**
   * The commit's calls to the client. Each is made again while it fails retriably, for up to {@link commitTryMs}
   * (librdkafka lets both be made again after a retriable error, a coordinator that moved: the transaction stays
   * open meanwhile, and an error that needs an abort is not retriable), and never after a try that timed out.
   */
  private async commitCalls(offsets: readonly TopicPartitionOffset[], what: string): Promise<void> {
    if (offsets.length > 0)
      await callRetrying(
        `adding the input offsets to ${what}`,
        (cb) => this.producer.sendOffsetsToTransaction([...offsets], this.offsets, this.commitTryMs, cb),
        this.commitTryMs,
        undefined,
        false,
      );
    await callRetrying(
      `committing ${what}`,
      (cb) => this.producer.commitTransaction(this.commitTryMs, cb),
      this.commitTryMs,
      undefined,
      false,
    );
    // Given up meanwhile (a StuckClientError), or closing: no next transaction on this client.
    if (this.failure !== undefined) throw this.failure;
    this.commits++;
    // What was held during the commit belongs to the next transaction.
    this.sentSinceCommit = this.held.length;
    if (this.closing !== undefined) return;
    await call(`beginning the transaction after ${what}`, (cb) => this.producer.beginTransaction(cb));
  }

  /**
   * Disconnects (once; a later call waits for the first), after the commit in progress returned (a client is not
   * closed under a call). Nothing is flushed: what was not committed is left, in the open transaction, to be
   * aborted by the broker or by the task's next owner.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.inCall;
      await disconnect(this.producer, this.offsets);
    })();
    return this.closing;
  }

  private drainAfter(waiting: Promise<void>): void {
    const run = async (): Promise<void> => {
      await waiting;
      // A closing transaction sends nothing more: the client may be closed under a send.
      while (this.held.length > 0 && this.closing === undefined) {
        const batch = this.held;
        this.held = [];
        for (let i = 0; i < batch.length && this.closing === undefined; i++) {
          const next = send(this.producer, batch[i]!, undefined);
          if (next !== undefined) {
            this.held = [...batch.slice(i + 1), ...this.held];
            await next;
            break;
          }
        }
      }
    };
    const draining = run().then(
      () => {
        if (this.draining === draining) this.draining = undefined;
      },
      (error: unknown) => {
        this.failure ??= error instanceof Error ? error : new WeirError(String(error));
        if (this.draining === draining) this.draining = undefined;
      },
    );
    this.draining = draining;
  }
}

async function disconnect(producer: ClientProducer, consumer: ClientConsumer): Promise<void> {
  await call('disconnecting a task producer', (cb) => producer.disconnect(0, cb)).catch(() => {});
  if (consumer.isConnected())
    await call('disconnecting a task offset consumer', (cb) => consumer.disconnect(cb)).catch(() => {});
}
