// ClusterJob: a job run as one of several processes that share its tasks through Kafka (docs/scale-out.md).
import { ConfigurationError, WeirError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { ProcessingTimeClock } from '../../core/clock.ts';
import type { StreamGraph, StreamNode } from '../../graph/stream-graph.ts';
import { cutIntoSubTopologies, type TaskTopology } from '../../graph/sub-topologies.ts';
import type { WatermarkEmission } from '../../time/watermark-emission.ts';
import type { StateBackend } from '../../state/state-backend.ts';
import {
  call,
  callRetrying,
  kafkaClient,
  clientErrorIn,
  KafkaError,
  type ClientMetadata,
  type ClientProducer,
  type LibrdKafkaError,
} from '../../connectors/kafka/kafka-client.ts';
import { KafkaSource } from '../../connectors/kafka/kafka-source.ts';
import { TaskMembership } from '../../connectors/kafka/task-membership.ts';
import type { JobExecutionResult } from '../job-execution-result.ts';
import type { ClusterOptions } from './cluster-options.ts';
import { ClusterTask, type ClusterTaskContext } from './cluster-task.ts';
import { StandbyReplicas } from './standby-replicas.ts';
import { changelogTopicConfig, changelogTopics } from './task-changelog.ts';
import { StuckClientError } from './task-transaction.ts';
import { JobStoreLock, jobStoreDirectory } from './task-local-store.ts';

const TIMEOUT_MS = 60_000;
/** How long one request to create a topic may wait before it is made again. */
const CREATE_TRY_MS = 10_000;
/** Kafka's TOPIC_ALREADY_EXISTS: another process of the job created the topic first. */
const TOPIC_ALREADY_EXISTS = 36;
/**
 * A task whose Kafka client failed starts again after this long, doubled on each failure that follows without a
 * commit between, up to {@link RESTART_MAX_DELAY_MS}; the failure after {@link TASK_RESTARTS} such starts fails
 * the process.
 */
const RESTART_DELAY_MS = 500;
const RESTART_MAX_DELAY_MS = 8_000;
const TASK_RESTARTS = 8;
/** How long leaving waits for the clients of stopped tasks to close before it reports those still open. */
const CLIENTS_CLOSE_WAIT_MS = 30_000;

/** What running a job in cluster mode needs from its environment. */
export interface ClusterJobSettings {
  readonly jobName: string;
  readonly graph: StreamGraph;
  readonly cluster: ClusterOptions;
  readonly clock: ProcessingTimeClock;
  readonly logger: Logger;
  readonly emission: WatermarkEmission;
  /** The environment's state backend (default: heap), for every task's keyed operators. */
  readonly stateBackend?: StateBackend;
}

/**
 * One process of a job in cluster mode. It cuts the job into sub-topologies and tasks, creates the repartition
 * topics, joins the job's consumer group, and runs the tasks the group assigns it, each as a {@link ClusterTask};
 * a revoked task commits and stops (or, lost, just stops). It runs until {@link close} (SIGTERM and SIGINT close
 * it), which hands every task back to the group.
 *
 * A task whose Kafka client fails (its producer fenced by a new owner, a transaction the broker aborted, a
 * delivery that failed) stops without committing and, while the group still gives it to this process, starts
 * again from its last commit: its open transaction is aborted, so nothing it wrote since is seen, and exactly
 * once holds. Any other task failure (user code, bad data), or a client failure that recurs
 * {@link TASK_RESTARTS} times without a commit between, closes the process and is its result.
 */
export class ClusterJob {
  private readonly tasks = new Map<number, ClusterTask>();
  /** Clients of stopped tasks still closing (after a call to the brokers returns): the process waits for them. */
  private readonly closingClients = new Set<Promise<void>>();
  private membership: TaskMembership | undefined = undefined;
  /** The standby replicas this process keeps (with `standbyReplicas` > 0). */
  private standbys: StandbyReplicas | undefined = undefined;
  /** This process's hold on the job's kept task stores (with an on-disk state backend). */
  private storeLock: JobStoreLock | undefined = undefined;
  private failure: unknown = undefined;
  private closing: Promise<void> | undefined = undefined;
  /** Per task index, the client failures since its last commit (see {@link taskFailed}). */
  private readonly restarts = new Map<number, number>();
  private context!: ClusterTaskContext;
  private readonly started = Date.now();
  private settle!: { resolve: () => void; reject: (error: unknown) => void };
  /** Settles when the process has left the group: rejects with the first task failure. */
  readonly result: Promise<JobExecutionResult>;

  private constructor(
    private readonly settings: ClusterJobSettings,
    /** The job's tasks and topics, as every process of the job cuts it. */
    readonly topology: TaskTopology,
  ) {
    const done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    this.result = done.then(() => ({
      jobName: settings.jobName,
      netRuntimeMs: Date.now() - this.started,
      workerStartupMs: 0,
      metrics: [],
    }));
  }

  /** Validates the job for cluster mode, creates its topics and joins its group. */
  static async start(settings: ClusterJobSettings): Promise<ClusterJob> {
    const { graph, cluster } = settings;
    checkStandbyReplicas(cluster, settings.stateBackend);
    // One client reads every topic's metadata at start-up (a joining process checks all of them).
    const metadata = await TopicMetadata.open(cluster);
    let topology: TaskTopology;
    try {
      const partitions = await sourcePartitions(graph, metadata);
      topology = cutIntoSubTopologies(graph, {
        jobId: cluster.jobId,
        sourcePartitions: (node) => partitions.get(node.id),
      });
      checkSupported(topology);
      warnAboutThreadPool(topology, settings);
      for (const topic of topology.repartitionTopics)
        await ensureTopic(metadata, 'repartition', topic.name, topic.partitions);
      // Compacted, with small segments: only the last value of each key group is needed to restore a task.
      const changelogConfig = changelogTopicConfig(cluster.changelogTopicConfig);
      for (const topic of changelogTopics(topology, cluster.jobId))
        await ensureTopic(metadata, 'changelog', topic.name, topic.partitions, changelogConfig);
    } finally {
      await metadata.close();
    }
    const job = new ClusterJob(settings, topology);
    const stores = settings.stateBackend?.localStores;
    const localStoreDirectory =
      stores === undefined ? undefined : jobStoreDirectory(stores.root, cluster.jobId);
    if (localStoreDirectory !== undefined)
      job.storeLock = JobStoreLock.acquire(localStoreDirectory, cluster.jobId);
    const context: ClusterTaskContext = {
      jobId: cluster.jobId,
      bootstrapServers: cluster.bootstrapServers,
      properties: cluster.properties ?? {},
      topology,
      commitIntervalMs: cluster.commitIntervalMs ?? 100,
      clock: settings.clock,
      logger: settings.logger,
      emission: settings.emission,
      ...(settings.stateBackend === undefined ? {} : { stateBackend: settings.stateBackend }),
      ...(localStoreDirectory === undefined ? {} : { localStoreDirectory }),
      closingInBackground: (closing) => {
        job.closingClients.add(closing);
        void closing.finally(() => job.closingClients.delete(closing)).catch(() => {});
      },
    };
    job.context = context;
    settings.logger.info(
      { job: cluster.jobId },
      `joining job '${cluster.jobId}' (${topology.tasks.length} tasks: ${topology.tasks.join(', ')})`,
    );
    try {
      job.membership = await TaskMembership.join({
        bootstrapServers: cluster.bootstrapServers,
        jobId: cluster.jobId,
        taskCount: topology.tasks.length,
        ...(cluster.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: cluster.sessionTimeoutMs }),
        ...(cluster.heartbeatIntervalMs === undefined
          ? {}
          : { heartbeatIntervalMs: cluster.heartbeatIntervalMs }),
        ...(cluster.replicationFactor === undefined ? {} : { replicationFactor: cluster.replicationFactor }),
        ...(cluster.clientId === undefined ? {} : { clientId: cluster.clientId }),
        ...(cluster.properties === undefined ? {} : { properties: cluster.properties }),
        listener: {
          onAssigned: async (indexes) => {
            // A standby of a task is stopped before the task starts: one writer per store.
            await job.standbys?.release(indexes);
            job.standbys?.poke();
            // Started together: each opens its clients and fences its previous owner before it reads.
            await Promise.all(
              indexes.map(async (index) => {
                const task = job.newTask(index);
                settings.logger.info({ job: cluster.jobId, task: task.id }, `task ${task.id} assigned`);
                await job.startTask(index, task);
              }),
            );
          },
          onRevoked: async (indexes, lost) => {
            await Promise.all(
              indexes.map(async (index) => {
                const task = job.tasks.get(index);
                job.tasks.delete(index);
                settings.logger.info(
                  { job: cluster.jobId, task: task?.id },
                  `task ${task?.id} revoked${lost ? ' (lost)' : ''}`,
                );
                await task?.stop(lost);
                settings.logger.info({ job: cluster.jobId, task: task?.id }, `task ${task?.id} stopped`);
              }),
            );
            job.standbys?.poke();
          },
        },
        onError: (error) => job.fail(undefined, error),
      });
    } catch (error) {
      job.storeLock?.release();
      throw error;
    }
    const replicas = cluster.standbyReplicas ?? 0;
    if (replicas > 0 && stores !== undefined) {
      job.standbys = new StandbyReplicas(replicas, context, stores, job.membership);
      job.standbys.start();
    }
    return job;
  }

  /** The ids of the tasks this process keeps standby replicas of now. */
  get standbyTasks(): string[] {
    return (this.standbys?.tasks ?? []).map((i) => this.topology.tasks[i]!);
  }

  /** The ids of the tasks this process runs now. */
  get runningTasks(): string[] {
    return [...this.tasks.keys()].sort((a, b) => a - b).map((i) => this.topology.tasks[i]!);
  }

  /** Hands every task back to the group (each commits and stops) and leaves it; `result` then settles. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.standbys?.close();
      } catch (error) {
        this.failure ??= error;
      }
      try {
        await this.membership?.close();
      } catch (error) {
        this.failure ??= error;
      }
      // Every task stops (and commits) even if another's stop failed; the first failure is the result.
      for (const task of this.tasks.values())
        try {
          await task.stop(false);
        } catch (error) {
          this.failure ??= error;
        }
      this.tasks.clear();
      await this.clientsClosed();
      try {
        this.storeLock?.release();
      } catch (error) {
        this.failure ??= error;
      }
      if (this.failure === undefined) this.settle.resolve();
      else this.settle.reject(this.failure);
    })();
    return this.closing;
  }

  /**
   * Waits for the clients of stopped tasks still closing, for at most {@link CLIENTS_CLOSE_WAIT_MS}: a client
   * stuck in a call closes only when the call returns (see StuckClientError), and the process stays up until then.
   */
  private async clientsClosed(): Promise<void> {
    if (this.closingClients.size === 0) return;
    let timer: NodeJS.Timeout | undefined = undefined;
    const waited = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), CLIENTS_CLOSE_WAIT_MS);
    });
    const closed = await Promise.race([Promise.all(this.closingClients).then(() => true), waited]);
    clearTimeout(timer);
    if (!closed)
      this.settings.logger.warn(
        { job: this.settings.cluster.jobId },
        `${this.closingClients.size} client(s) of stopped tasks still wait on a call to the brokers after ` +
          `${CLIENTS_CLOSE_WAIT_MS} ms; they close when it returns, and the process exits after that`,
      );
  }

  /** A task for `index`, now this process's. */
  private newTask(index: number): ClusterTask {
    const task = new ClusterTask(this.topology.tasks[index]!, this.context, (t, error) =>
      this.taskFailed(index, t, error),
    );
    this.tasks.set(index, task);
    return task;
  }

  private async startTask(index: number, task: ClusterTask): Promise<void> {
    try {
      await task.start();
    } catch (error) {
      this.taskFailed(index, task, error);
      return;
    }
    this.settings.logger.info({ job: this.settings.cluster.jobId, task: task.id }, `task ${task.id} started`);
  }

  /**
   * A task failed while starting or running. A failure its Kafka client reported stops the task without a
   * commit and starts it again (see the class comment); while the process leaves, it only stops it (the next
   * owner resumes at the last commit). Any other failure fails the process.
   */
  private taskFailed(index: number, task: ClusterTask, error: unknown): void {
    if (this.failure !== undefined) return;
    // A client that reported the failure, or one stuck in a call (StuckClientError): a fresh client may do.
    const client = clientErrorIn(error) ?? (error instanceof StuckClientError ? error : undefined);
    const jobId = this.settings.cluster.jobId;
    const failures = (task.commits > 0 ? 0 : (this.restarts.get(index) ?? 0)) + 1;
    if (client === undefined || failures > TASK_RESTARTS) {
      this.fail(
        task,
        client === undefined
          ? error
          : new WeirError(
              `Task '${task.id}' of job '${jobId}' failed ${failures} times in a row without a commit, ` +
                `the last time: ${(error as Error)?.message ?? String(error)}`,
              { cause: error },
            ),
      );
      return;
    }
    const message = (error as Error)?.message ?? String(error);
    if (this.closing !== undefined || this.tasks.get(index) !== task) {
      // Revoked meanwhile (its stop's commit failed: a new owner fenced it), or this process leaves.
      this.settings.logger.warn(
        { job: jobId, task: task.id },
        `task ${task.id} failed as it stopped (${message}); its next owner resumes at its last commit`,
      );
      void task.stop(true);
      return;
    }
    this.restarts.set(index, failures);
    const delayMs = Math.min(RESTART_DELAY_MS * 2 ** (failures - 1), RESTART_MAX_DELAY_MS);
    this.settings.logger.warn(
      { job: jobId, task: task.id },
      `task ${task.id} failed (${message}); stopping it without a commit and starting it again in ${delayMs} ms ` +
        `if this process still owns it (restart ${failures} of at most ${TASK_RESTARTS} without a commit)`,
    );
    void this.restart(index, task, delayMs);
  }

  /**
   * Stops a failed task without a commit and, after `delayMs`, starts it again, in turn with the rebalance
   * events, unless it was revoked meanwhile or the process leaves.
   */
  private async restart(index: number, failed: ClusterTask, delayMs: number): Promise<void> {
    await failed.stop(true);
    // Unreferenced: a process that leaves meanwhile exits without waiting for it.
    await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    const membership = this.membership!;
    await membership.inTurn(async () => {
      if (this.closing !== undefined || this.tasks.get(index) !== failed || !membership.owns(index)) return;
      const task = this.newTask(index);
      this.settings.logger.info(
        { job: this.settings.cluster.jobId, task: task.id },
        `task ${task.id} restarting`,
      );
      await this.startTask(index, task);
    });
  }

  private fail(task: ClusterTask | undefined, error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure =
      task === undefined || error instanceof WeirError
        ? error
        : new WeirError(
            `Task '${task.id}' of job '${this.settings.cluster.jobId}' failed: ${String(error)}`,
            {
              cause: error,
            },
          );
    this.settings.logger.error(
      { job: this.settings.cluster.jobId, task: task?.id },
      `cluster job failed: ${(error as Error)?.message ?? String(error)}; leaving the group`,
    );
    void this.close();
  }
}

/**
 * Runs a job in cluster mode until SIGTERM or SIGINT (which hand this process's tasks to the others) or a task
 * failure: what `execute()` does when the environment has a `cluster` option.
 */
export async function executeOnCluster(settings: ClusterJobSettings): Promise<JobExecutionResult> {
  const job = await ClusterJob.start(settings);
  const stop = (): void => void job.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    return await job.result;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}

/**
 * Asks for a topic (one that exists already counts as created). A try waits {@link CREATE_TRY_MS}: while a broker
 * is down, a request sent to it ends in a transport failure or a timeout, and the next try goes to one that answers.
 */
async function createTopic(
  cluster: ClusterOptions,
  topic: string,
  partitions: number,
  config: Record<string, string>,
): Promise<void> {
  const admin = kafkaClient().AdminClient.create({
    ...cluster.properties,
    'bootstrap.servers': cluster.bootstrapServers,
  });
  try {
    await callRetrying(
      `creating topic '${topic}' of cluster job '${cluster.jobId}'`,
      (cb) =>
        admin.createTopic(
          { topic, num_partitions: partitions, replication_factor: cluster.replicationFactor ?? -1, config },
          CREATE_TRY_MS,
          (error: LibrdKafkaError | null | undefined) =>
            cb(error?.code === TOPIC_ALREADY_EXISTS ? undefined : error, undefined),
        ),
      TIMEOUT_MS,
    );
  } finally {
    admin.disconnect();
  }
}

/** The partition count of the topic each Kafka source reads; cluster mode reads nothing else. */
async function sourcePartitions(graph: StreamGraph, metadata: TopicMetadata): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  const sources = graph.nodes.filter((n) => n.transformation.kind === 'source');
  for (const node of sources) {
    const source = node.transformation.source;
    if (!(source instanceof KafkaSource))
      throw new ConfigurationError(
        `Cluster mode: source '${node.name}' is not a KafkaSource; a job in cluster mode reads Kafka topics only`,
      );
    const { topics, stoppingOffsets } = source.config;
    if (topics === undefined || topics.length !== 1)
      throw new ConfigurationError(
        `Cluster mode: KafkaSource '${node.name}' must read exactly one topic (setTopics with one name), ` +
          `it reads ${topics === undefined ? 'a topic pattern' : JSON.stringify(topics)}`,
      );
    if (stoppingOffsets !== undefined)
      throw new ConfigurationError(
        `Cluster mode: KafkaSource '${node.name}' is bounded (setBounded); a job in cluster mode runs until stopped`,
      );
    const count = await metadata.partitionCount(topics[0]!);
    if (count === 0)
      throw new KafkaError(
        `Cluster mode: topic '${topics[0]}' does not exist on ${metadata.cluster.bootstrapServers}`,
      );
    counts.set(node.id, count);
  }
  return counts;
}

/** `standbyReplicas` is a count, and a standby is a local store: the backend must keep stores on disk. */
function checkStandbyReplicas(cluster: ClusterOptions, backend: StateBackend | undefined): void {
  const replicas = cluster.standbyReplicas ?? 0;
  if (!Number.isInteger(replicas) || replicas < 0)
    throw new ConfigurationError(
      `Cluster mode: standbyReplicas must be a non-negative integer, not ${String(replicas)}`,
    );
  if (replicas > 0 && backend?.localStores === undefined)
    throw new ConfigurationError(
      `Cluster mode: standbyReplicas ${replicas} needs a state backend that keeps stores on disk ` +
        `(LmdbStateBackend); the state backend is ${backend?.name ?? 'heap'}`,
    );
}

/** What this version of the task runtime runs: one input per sub-topology, keyBy edges between them. */
function checkSupported(topology: TaskTopology): void {
  for (const sub of topology.subTopologies) {
    const sources = sub.nodes.filter((n) => n.transformation.kind === 'source');
    if (sources.length + sub.inputTopics.length !== 1)
      throw new ConfigurationError(
        `Cluster mode: sub-topology ${sub.id} (${describe(sub.nodes)}) reads ${sources.length} source(s) and ` +
          `${sub.inputTopics.length} repartition topic(s); a task reads exactly one input in this version`,
      );
  }
  for (const topic of topology.repartitionTopics)
    for (const edge of topic.edges)
      if (edge.partitioning.kind !== 'hash')
        throw new ConfigurationError(
          `Cluster mode: the ${edge.partitioning.kind} edge from '${edge.source.name}' to '${edge.target.name}' ` +
            `is not supported yet; only keyBy edges cross between tasks`,
        );
}

/**
 * librdkafka's blocking calls (reads, transaction commits, the group's polls) each hold a thread of libuv's pool
 * while they wait; with the default 4 threads, a process running 8 tasks never finished a rebalance round in
 * the tests. The pool's size is read when the process starts, so it can only be said here.
 */
function warnAboutThreadPool(topology: TaskTopology, settings: ClusterJobSettings): void {
  const needed = 2 * topology.tasks.length + 4;
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  if (size >= needed) return;
  settings.logger.warn(
    { job: settings.cluster.jobId },
    `Cluster mode: libuv's thread pool has ${size} threads (UV_THREADPOOL_SIZE); a process that may run all ` +
      `${topology.tasks.length} tasks needs ${needed} (2 per task and 4), or its Kafka calls can starve the ` +
      `group's rebalances: start it with UV_THREADPOOL_SIZE=${needed} or more`,
  );
}

function describe(nodes: readonly StreamNode[]): string {
  return nodes.map((n) => `'${n.name}'`).join(', ');
}

/** A client for topic metadata, which any broker serves: the partition counts the job's start-up checks. */
class TopicMetadata {
  private constructor(
    readonly cluster: ClusterOptions,
    private readonly producer: ClientProducer,
  ) {}

  static async open(cluster: ClusterOptions): Promise<TopicMetadata> {
    const { Producer } = kafkaClient();
    const producer = new Producer({ ...cluster.properties, 'bootstrap.servers': cluster.bootstrapServers });
    await call<ClientMetadata>(`connecting to ${cluster.bootstrapServers}`, (cb) =>
      producer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    return new TopicMetadata(cluster, producer);
  }

  /** The topic's partition count; 0 when it does not exist. */
  async partitionCount(topic: string): Promise<number> {
    const metadata = await call<ClientMetadata>(`reading the metadata of topic '${topic}'`, (cb) =>
      this.producer.getMetadata({ topic, timeout: TIMEOUT_MS }, cb),
    );
    return metadata.topics.find((t) => t.name === topic)?.partitions.length ?? 0;
  }

  async close(): Promise<void> {
    await call('disconnecting', (cb) => this.producer.disconnect(10_000, cb)).catch(() => {});
  }
}

async function ensureTopic(
  metadata: TopicMetadata,
  kind: 'repartition' | 'changelog',
  topic: string,
  partitions: number,
  config: Record<string, string> = {},
): Promise<void> {
  // A process that joins a running job finds its topics in the metadata, which any broker serves, and asks the
  // controller for nothing.
  if ((await metadata.partitionCount(topic).catch(() => 0)) === 0)
    await createTopic(metadata.cluster, topic, partitions, config);
  for (const deadline = Date.now() + TIMEOUT_MS; ;) {
    const count = await metadata.partitionCount(topic).catch(() => 0);
    if (count === partitions) return;
    if (count > 0)
      throw new ConfigurationError(
        `Cluster mode: ${kind} topic '${topic}' has ${count} partitions, the job needs ${partitions}; ` +
          `delete it or give the job another id (every process must cut the job into the same tasks)`,
      );
    if (Date.now() > deadline) throw new KafkaError(`Cluster mode: topic '${topic}' did not appear`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
