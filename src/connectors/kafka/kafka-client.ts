// The part of @confluentinc/kafka-javascript (librdkafka) the connector uses, loaded lazily and typed here.
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { ConfigurationError, WeirError } from '../../core/errors.ts';

/**
 * The client library. It is an optional peer dependency of Weir: only `weir/kafka` loads it, and only when a
 * Kafka source or sink opens, so `import 'weir'` (and type-checking Weir) never needs it.
 */
export const KAFKA_CLIENT_PACKAGE = '@confluentinc/kafka-javascript';

/** An error reported by librdkafka. */
export interface LibrdKafkaError extends Error {
  readonly code: number;
  readonly isFatal?: boolean;
  readonly isRetriable?: boolean;
  readonly isTxnRequiresAbort?: boolean;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface TopicPartitionOffset extends TopicPartition {
  offset: number;
  /** The text committed with the offset (Kafka's offset metadata), when there is one. */
  metadata?: string;
}

/** A consumed record as librdkafka hands it over. */
export interface ClientMessage {
  readonly value: Buffer | null;
  readonly key?: Buffer | string | null;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp?: number;
  readonly headers?: { [key: string]: string | Buffer }[];
}

export interface ClientMetadata {
  readonly topics: { readonly name: string; readonly partitions: { readonly id: number }[] }[];
}

type Callback<R = void> = (error: LibrdKafkaError | null | undefined, result: R) => void;

export interface ClientConsumer {
  connect(options: { timeout?: number }, cb: Callback<ClientMetadata>): void;
  disconnect(cb: Callback<unknown>): void;
  isConnected(): boolean;
  getMetadata(
    options: { topic?: string; allTopics?: boolean; timeout?: number },
    cb: Callback<ClientMetadata>,
  ): void;
  queryWatermarkOffsets(
    topic: string,
    partition: number,
    timeout: number,
    cb: Callback<{ lowOffset: number; highOffset: number }>,
  ): void;
  offsetsForTimes(
    partitions: TopicPartitionOffset[],
    timeout: number,
    cb: Callback<TopicPartitionOffset[]>,
  ): void;
  committed(partitions: TopicPartition[], timeout: number, cb: Callback<TopicPartitionOffset[]>): void;
  assign(assignments: TopicPartitionOffset[]): void;
  unassign(): void;
  position(partitions?: TopicPartition[]): TopicPartitionOffset[];
  consume(count: number, cb: Callback<ClientMessage[]>): void;
  setDefaultConsumeTimeout(ms: number): void;
  /**
   * True: `consume(n)` waits up to the timeout for the first record only and returns what is already fetched
   * after it. False (the client's default): it waits up to the timeout for each of the n records.
   */
  setDefaultIsTimeoutOnlyForFirstMessage(only: boolean): void;
  commit(offsets: TopicPartitionOffset[]): void;
  /** Joins the consumer group's subscription to these topics (the group assigns their partitions). */
  subscribe(topics: string[]): void;
  /** Leaves the subscription: the assignment is revoked through the rebalance callback, then the group is left. */
  unsubscribe(): void;
  /** Cooperative rebalancing: adds partitions to the assignment (from the rebalance callback's assign event). */
  incrementalAssign(assignments: TopicPartition[]): void;
  /** Cooperative rebalancing: removes partitions from the assignment (acknowledges a revoke event). */
  incrementalUnassign(assignments: TopicPartition[]): void;
  /** In a revoke event: whether the group already gave the partitions away (the session expired). */
  assignmentLost(): boolean;
  /** 'COOPERATIVE', 'EAGER', or 'NONE' before the first rebalance. */
  rebalanceProtocol(): string;
  on(event: 'event.error', listener: (error: LibrdKafkaError) => void): void;
}

/** librdkafka's rebalance callback: an assign or revoke event and the partitions it concerns. */
export type RebalanceCallback = (error: LibrdKafkaError | undefined, assignment: TopicPartition[]) => void;

/** The configuration of a consumer: properties, and the rebalance callback of a group member. */
export type ClientConsumerConfig = Record<string, string | number | boolean | RebalanceCallback>;

/** librdkafka's codes of the two rebalance events (ERR__ASSIGN_PARTITIONS, ERR__REVOKE_PARTITIONS). */
export const ASSIGN_PARTITIONS = -175;
export const REVOKE_PARTITIONS = -174;

export interface ClientProducer {
  connect(options: { timeout?: number }, cb: Callback<ClientMetadata>): void;
  disconnect(timeout: number, cb: Callback<unknown>): void;
  getMetadata(
    options: { topic?: string; allTopics?: boolean; timeout?: number },
    cb: Callback<ClientMetadata>,
  ): void;
  produce(
    topic: string,
    partition: number | null,
    value: Buffer | null,
    key?: Buffer | string | null,
    timestamp?: number | null,
    opaque?: unknown,
    headers?: { [key: string]: string | Buffer }[],
  ): unknown;
  flush(timeout: number, cb: Callback<void>): void;
  poll(): void;
  setPollInterval(ms: number): void;
  initTransactions(timeout: number, cb: Callback<void>): void;
  beginTransaction(cb: Callback<void>): void;
  commitTransaction(timeout: number, cb: Callback<void>): void;
  abortTransaction(timeout: number, cb: Callback<void>): void;
  sendOffsetsToTransaction(
    offsets: TopicPartitionOffset[],
    consumer: ClientConsumer,
    timeout: number,
    cb: Callback<void>,
  ): void;
  on(
    event: 'delivery-report',
    listener: (error: LibrdKafkaError | null, report: TopicPartitionOffset) => void,
  ): void;
  on(event: 'event.error', listener: (error: LibrdKafkaError) => void): void;
}

export interface ClientAdmin {
  createTopic(
    topic: {
      topic: string;
      num_partitions: number;
      replication_factor: number;
      config?: Record<string, string>;
    },
    timeout: number,
    cb: (error: LibrdKafkaError | null | undefined) => void,
  ): void;
  createPartitions(
    topic: string,
    total: number,
    timeout: number,
    cb: (error: LibrdKafkaError | null | undefined) => void,
  ): void;
  deleteTopic(topic: string, timeout: number, cb: (error: LibrdKafkaError | null | undefined) => void): void;
  describeGroups(
    groupIds: string[],
    options: { timeout?: number },
    cb: (error: LibrdKafkaError | null | undefined, result: { groups: ClientGroupDescription[] }) => void,
  ): void;
  disconnect(): void;
}

/** A consumer group as DescribeGroups shows it (classic protocol: the assignment decoded from the consumer protocol). */
export interface ClientGroupDescription {
  readonly groupId: string;
  readonly error?: LibrdKafkaError;
  /** librdkafka's ConsumerGroupStates: 3 is Stable (no rebalance under way). */
  readonly state: number;
  readonly members: readonly {
    readonly memberId: string;
    readonly clientId: string;
    readonly assignment: { readonly topicPartitions: readonly TopicPartition[] } | null;
  }[];
}

/** Client properties: librdkafka's configuration names (`bootstrap.servers`, `security.protocol`, ...). */
export type KafkaProperties = Record<string, string | number | boolean>;

interface ClientModule {
  KafkaConsumer: new (config: ClientConsumerConfig, topicConfig?: KafkaProperties) => ClientConsumer;
  Producer: new (config: KafkaProperties, topicConfig?: KafkaProperties) => ClientProducer;
  AdminClient: { create(config: KafkaProperties): ClientAdmin };
  CODES: { ERRORS: Record<string, number> };
}

let loaded: ClientModule | undefined;

/** Loads the client on first use, with an error that says how to install it when it is missing. */
export function kafkaClient(): ClientModule {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  try {
    loaded = require(KAFKA_CLIENT_PACKAGE) as ClientModule;
  } catch (error) {
    // The addon is not context-aware: once one thread of the process has it, another cannot load it.
    if (!isMainThread && /did not self-register/.test((error as Error).message))
      throw new ConfigurationError(
        `The Kafka client ${KAFKA_CLIENT_PACKAGE} loads on one thread of a process, and this is a worker thread: ` +
          'in worker mode Weir runs Kafka sources and sinks on the main thread; open a Kafka client of your own ' +
          'there too (behind `StreamExecutionEnvironment.isJobWorker()`)',
        { cause: error },
      );
    throw new ConfigurationError(
      `weir/kafka needs the Kafka client ${KAFKA_CLIENT_PACKAGE}, which could not be loaded: install it with ` +
        `\`npm install ${KAFKA_CLIENT_PACKAGE}\` (${(error as Error).message.split('\n')[0]})`,
      { cause: error },
    );
  }
  return loaded;
}

/** A Kafka operation failed; names what was attempted and on which topic or transaction. */
export class KafkaError extends WeirError {}

/** Turns a librdkafka callback into a promise whose error says what was being done. */
export function call<R>(what: string, run: (cb: Callback<R>) => void): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    run((error, result) => {
      if (error) reject(new KafkaError(`Kafka: ${what} failed: ${error.message}`, { cause: error }));
      else resolve(result);
    });
  });
}

/**
 * Kafka's error codes that mean a coordinator or a partition leader is moving (a broker died or came back), or a
 * request timed out on the way: the same request succeeds once the cluster has settled. UNKNOWN_TOPIC_OR_PARTITION
 * (3), LEADER_NOT_AVAILABLE (5), NOT_LEADER_OR_FOLLOWER (6), REQUEST_TIMED_OUT (7), COORDINATOR_LOAD_IN_PROGRESS
 * (14), COORDINATOR_NOT_AVAILABLE (15), NOT_COORDINATOR (16), NOT_ENOUGH_REPLICAS (19, 20), and librdkafka's own
 * timed out (-185) and transport failure (-195).
 */
const MOVING = new Set([3, 5, 6, 7, 14, 15, 16, 19, 20, -185, -195]);

/** Whether a failed call may simply be made again: librdkafka says so, or a coordinator or leader is moving. */
/** The client's error code of a failed call (the error itself, or the client error that {@link call} wraps). */
function codeOf(error: unknown): number | undefined {
  const cause = (error as { cause?: Partial<LibrdKafkaError> } | undefined)?.cause ?? error;
  return (cause as Partial<LibrdKafkaError> | undefined)?.code;
}

export function isRetriable(error: unknown): boolean {
  const cause = (error as { cause?: Partial<LibrdKafkaError> } | undefined)?.cause ?? error;
  const { isRetriable, code, isFatal, isTxnRequiresAbort } = (cause ?? {}) as Partial<LibrdKafkaError>;
  if (isFatal === true || isTxnRequiresAbort === true) return false;
  return isRetriable === true || (code !== undefined && MOVING.has(code));
}

/** librdkafka's `ERR__TIMED_OUT`: a call that did not complete within the timeout it was given. */
export const TIMED_OUT = -185;

/**
 * {@link call}, made again after `retryMs` while it fails with a {@link isRetriable retriable} error, until
 * `timeoutMs` have passed since the first try (then the last error is thrown). For the calls a task makes when it
 * starts or commits: a broker that dies moves the group and transaction coordinators and partition leaders it
 * held, and until the controller has fenced it (seconds), those calls fail with NOT_COORDINATOR and the like.
 * With `retryTimedOut` false, a call that used up its own timeout ({@link TIMED_OUT}) is not made again: its
 * caller gives up on the client instead (one stuck waiting for a coordinator that moved stays stuck).
 */

export async function callRetrying<R>(
  what: string,
  run: (cb: Callback<R>) => void,
  timeoutMs: number,
  retryMs = 200,
  retryTimedOut = true,
): Promise<R> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call(what, run);
    } catch (error) {
      if (!isRetriable(error) || Date.now() + retryMs > deadline) throw error;
      if (!retryTimedOut && codeOf(error) === TIMED_OUT) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}

/**
 * The error the Kafka client itself reported, found along `error`'s causes (an operator or a transaction wraps
 * it), or undefined when the failure did not come from the client (user code, a malformed marker, a
 * configuration): the failures a task survives by starting again on a fresh client.
 */
export function clientErrorIn(error: unknown): LibrdKafkaError | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 16; depth++) {
    const candidate = e as Partial<LibrdKafkaError> & { errno?: unknown; origin?: unknown };
    if (
      typeof candidate.code === 'number' &&
      typeof candidate.errno === 'number' &&
      typeof candidate.origin === 'string'
    )
      return candidate as LibrdKafkaError;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** librdkafka's logical offset for "no committed offset". */
export const OFFSET_INVALID = -1001;
