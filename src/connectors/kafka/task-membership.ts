// TaskMembership: a process's seat in its job's consumer group, which tells it the tasks it owns as they move.
import { randomBytes } from 'node:crypto';
import { ConfigurationError } from '../../core/errors.ts';
import {
  ASSIGN_PARTITIONS,
  call,
  kafkaClient,
  type ClientAdmin,
  type ClientGroupDescription,
  KafkaError,
  REVOKE_PARTITIONS,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type KafkaProperties,
  type LibrdKafkaError,
  type TopicPartition,
} from './kafka-client.ts';

const TIMEOUT_MS = 60_000;
/**
 * How long one poll of the group waits. librdkafka runs the rebalance callback inside a poll, so the member
 * polls all the time; each poll holds a thread of libuv's pool (4 by default) for up to this long, so it is
 * short, which lets several members and other Kafka calls share one process.
 */
const POLL_TIMEOUT_MS = 100;
/** The pause after a failed poll or metadata request before the next try. */
const RETRY_MS = 100;
/** How long `close` waits for the group to revoke the tasks after leaving the subscription. */
const LEAVE_TIMEOUT_MS = 10_000;
/** Kafka's TOPIC_ALREADY_EXISTS: another process of the job created the task topic first. */
const TOPIC_ALREADY_EXISTS = 36;

/**
 * What a {@link TaskMembership} reports. Calls never overlap: each (and the Promise it returns) completes
 * before the next starts, in the order the group decided them.
 */
export interface TaskListener {
  /** This process now owns these tasks (ascending), in addition to those it owned already. */
  onAssigned(tasks: readonly number[]): void | Promise<void>;
  /**
   * This process gives up these tasks (ascending). The group hands them to another process only after the
   * returned Promise settles, so this is where a task commits or aborts its work. `lost` is true when they
   * are gone already (this process missed its session timeout and the group moved them): nothing of theirs may
   * be committed any more.
   */
  onRevoked(tasks: readonly number[], lost: boolean): void | Promise<void>;
}

/** What a {@link TaskMembership} needs. */
export interface TaskMembershipOptions {
  /** `host:port[,host:port...]` of the brokers. */
  readonly bootstrapServers: string;
  /** The job's id: the consumer group's id, and the task topic is `<jobId>-tasks`. */
  readonly jobId: string;
  /** The job's number of tasks: the task topic's partition count. */
  readonly taskCount: number;
  /** Told of every task assigned and revoked. */
  readonly listener: TaskListener;
  /**
   * How long the group waits for a silent process before it moves its tasks (`session.timeout.ms`; default
   * 45,000, Kafka's; the broker accepts 6,000 to 300,000 unless configured otherwise).
   */
  readonly sessionTimeoutMs?: number;
  /**
   * How often a process tells the group it lives, and learns that a rebalance started (`heartbeat.interval.ms`;
   * default 3,000, Kafka's): it bounds how fast the others react to a join or a leave. At most a third of the
   * session timeout.
   */
  readonly heartbeatIntervalMs?: number;
  /** Replicas of the task topic when it is created (default -1: the broker's default). */
  readonly replicationFactor?: number;
  /**
   * Names this process in the group (`client.id`), e.g. its host name; shown by Kafka's group tools, followed by
   * `-` and 8 hexadecimal digits unique to the membership (so {@link TaskMembership.describe} finds this process).
   */
  readonly clientId?: string;
  /** Any other librdkafka consumer property (TLS, SASL). The group settings above cannot be overridden. */
  readonly properties?: KafkaProperties;
  /**
   * A listener call threw, or the group reported an error. The membership goes on (the tasks were revoked or
   * assigned all the same); without this callback the first failure is thrown by `close`.
   */
  readonly onError?: (error: Error) => void;
}

/** The job's group as DescribeGroups showed it: who owns which tasks. */
export interface TaskGroupView {
  /** Whether the group was Stable: no rebalance under way, so every member's tasks are its last assignment. */
  readonly stable: boolean;
  /** This process's member id, when the description holds it (once it joined). */
  readonly self: string | undefined;
  /** Every member: its id and the tasks it was assigned, ascending. */
  readonly members: readonly { readonly memberId: string; readonly tasks: readonly number[] }[];
}

/** librdkafka's ConsumerGroupStates.STABLE. */
const GROUP_STABLE = 3;

/**
 * One process's membership in the consumer group of its job, as Kafka Streams has it: every process of job `J`
 * joins group `J` subscribed to the task topic `J-tasks`, which has one partition per task, with the
 * cooperative-sticky assignor. Owning partition `t` is owning task `t`; nothing is ever written to the topic.
 * Kafka detects dead processes (session timeout) and spreads the tasks; Weir has no coordinator of its own.
 *
 * Cooperative rebalancing moves only the tasks that change owner: when a process joins, the others are asked
 * to revoke just the tasks it takes, keep running the rest, and the newcomer is assigned them in a second
 * round, after every revoke was acknowledged. A revoke is acknowledged when the listener's `onRevoked`
 * settles, so a task is stopped in one process before it starts in another (unless its owner died or missed
 * its session timeout, when `lost` says so).
 *
 * @example
 * const membership = await TaskMembership.join({
 *   bootstrapServers: 'broker:9092',
 *   jobId: 'orders-job',
 *   taskCount: 12,
 *   listener: {
 *     onAssigned: (tasks) => console.log('start', tasks),
 *     onRevoked: async (tasks, lost) => console.log(lost ? 'drop' : 'commit and stop', tasks),
 *   },
 * });
 * // ... later: revokes this process's tasks (onRevoked), leaves the group, disconnects
 * await membership.close();
 */
export class TaskMembership {
  /** The task topic, `<jobId>-tasks`. */
  readonly topic: string;
  /** The consumer group, the job's id. */
  readonly groupId: string;
  /** The `client.id` of this membership: the configured name and a suffix unique to it. */
  readonly clientId: string;
  private readonly consumer: ClientConsumer;
  /** Describes the group (created at the first {@link describe}). */
  private admin: ClientAdmin | undefined = undefined;
  private readonly owned = new Set<number>();
  /** Rebalance events, handled one after the other (a listener call may be asynchronous). */
  private queue: Promise<void> = Promise.resolve();
  /** Resolvers waiting for the next rebalance event to be handled. */
  private handled: (() => void)[] = [];
  private polling = true;
  private pollLoop: Promise<void> = Promise.resolve();
  private leaving = false;
  private closing: Promise<void> | undefined = undefined;
  private firstFailure: Error | undefined = undefined;

  private constructor(private readonly options: TaskMembershipOptions) {
    this.groupId = options.jobId;
    this.topic = `${options.jobId}-tasks`;
    this.clientId = `${options.clientId ?? `weir-${options.jobId}`}-${randomBytes(4).toString('hex')}`;
    const { KafkaConsumer } = kafkaClient();
    this.consumer = new KafkaConsumer(
      {
        ...options.properties,
        'bootstrap.servers': options.bootstrapServers,
        'group.id': this.groupId,
        'group.protocol': 'classic',
        'partition.assignment.strategy': 'cooperative-sticky',
        'session.timeout.ms': options.sessionTimeoutMs ?? 45_000,
        'heartbeat.interval.ms': options.heartbeatIntervalMs ?? 3_000,
        'enable.auto.commit': false,
        'enable.auto.offset.store': false,
        'enable.partition.eof': false,
        'client.id': this.clientId,
        rebalance_cb: (error, assignment) => this.onRebalance(error, assignment),
      },
      {},
    );
    this.consumer.on('event.error', (error) => {
      if (error.isFatal === true)
        this.fail(new KafkaError(`Task group '${this.groupId}': fatal client error: ${error.message}`));
    });
  }

  /**
   * Joins the job's group: connects, creates the task topic if it is missing (with `taskCount` partitions; a
   * task topic with another partition count is a {@link ConfigurationError}) and subscribes. Resolves once
   * subscribed; the tasks arrive through the listener when the group has rebalanced.
   */
  static async join(options: TaskMembershipOptions): Promise<TaskMembership> {
    validate(options);
    const membership = new TaskMembership(options);
    const { consumer, topic } = membership;
    await call<ClientMetadata>(
      `connecting to ${options.bootstrapServers} (task group '${membership.groupId}')`,
      (cb) => consumer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    try {
      await ensureTaskTopic(consumer, options, topic);
      consumer.setDefaultConsumeTimeout(POLL_TIMEOUT_MS);
      consumer.setDefaultIsTimeoutOnlyForFirstMessage(true);
      consumer.subscribe([topic]);
    } catch (error) {
      await call('disconnecting the consumer', (cb) => consumer.disconnect(cb)).catch(() => {});
      throw error;
    }
    membership.pollLoop = membership.poll();
    return membership;
  }

  /** The tasks this process owns now, ascending (those assigned and not revoked since). */
  get tasks(): number[] {
    return [...this.owned].sort((a, b) => a - b);
  }

  /**
   * Runs `action` in turn with the rebalance events: no `onAssigned` or `onRevoked` runs meanwhile, and `owns`
   * tells within it whether the group still gives this process a task. For work on a task outside those calls
   * (a task started again after a failure) that must not cross its revoke.
   */
  inTurn(action: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => this.enqueue(() => action().then(resolve, reject)));
  }

  /** Whether this process owns `task` (assigned and not revoked since) and is not leaving the group. */
  owns(task: number): boolean {
    return !this.leaving && this.owned.has(task);
  }

  /**
   * Describes the job's group (DescribeGroups, which any client may send): each member's id and the tasks it was
   * assigned, and this process's member id (the member with this membership's `client.id`). librdkafka's consumer
   * tells a member only its own assignment; this is how a process learns the others'.
   */
  async describe(): Promise<TaskGroupView> {
    this.admin ??= kafkaClient().AdminClient.create({
      ...this.options.properties,
      'bootstrap.servers': this.options.bootstrapServers,
    });
    const admin = this.admin;
    const result = await call<{ groups: ClientGroupDescription[] }>(
      `describing task group '${this.groupId}'`,
      (cb) => admin.describeGroups([this.groupId], { timeout: TIMEOUT_MS }, cb),
    );
    const group = result.groups.find((g) => g.groupId === this.groupId);
    if (group === undefined || group.error !== undefined)
      throw new KafkaError(
        `Task group '${this.groupId}' could not be described: ${group?.error?.message ?? 'it is missing'}`,
      );
    const members = group.members.map((m) => ({
      memberId: m.memberId,
      tasks: (m.assignment?.topicPartitions ?? [])
        .filter((p) => p.topic === this.topic)
        .map((p) => p.partition)
        .sort((a, b) => a - b),
    }));
    return {
      stable: group.state === GROUP_STABLE,
      self: group.members.find((m) => m.clientId === this.clientId)?.memberId,
      members,
    };
  }

  /** The first failure reported (a listener call that threw, a group error), if any. */
  get failure(): Error | undefined {
    return this.firstFailure;
  }

  /**
   * Leaves the group cleanly: revokes every task of this process through the listener (`onRevoked`, not lost),
   * so the group moves them at once instead of after the session timeout, then disconnects. Throws the first
   * failure when no `onError` was given.
   */
  close(): Promise<void> {
    this.closing ??= this.leave();
    return this.closing;
  }

  private async leave(): Promise<void> {
    this.leaving = true;
    // Leaving the subscription makes librdkafka revoke the assignment through the rebalance callback (served
    // by the poll loop, so it keeps running) and then send the group a LeaveGroup.
    try {
      this.consumer.unsubscribe();
    } catch (error) {
      this.fail(new KafkaError(`Task group '${this.groupId}': leaving failed: ${(error as Error).message}`));
    }
    const deadline = Date.now() + LEAVE_TIMEOUT_MS;
    while (this.owned.size > 0 && Date.now() < deadline) await this.nextEvent(deadline - Date.now());
    await this.queue;
    this.polling = false;
    await this.pollLoop;
    if (this.owned.size > 0) {
      // The revoke never came (the broker is unreachable): the tasks stop here all the same.
      const tasks = this.tasks;
      this.owned.clear();
      await this.notify(() => this.options.listener.onRevoked(tasks, false), 'onRevoked', tasks);
    }
    this.admin?.disconnect();
    await call('disconnecting the consumer', (cb) => this.consumer.disconnect(cb));
    if (this.options.onError === undefined && this.firstFailure !== undefined) throw this.firstFailure;
  }

  /** Polls the group until closed: librdkafka runs heartbeats' outcomes and the rebalance callback in polls. */
  private async poll(): Promise<void> {
    while (this.polling) {
      try {
        // Nothing is ever written to the task topic; a message someone wrote there anyway is ignored.
        await call<ClientMessage[]>(`polling task group '${this.groupId}'`, (cb) =>
          this.consumer.consume(16, cb),
        );
      } catch (error) {
        if (!this.polling) break;
        this.fail(error as Error);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /**
   * librdkafka's rebalance callback. It must acknowledge each event (incremental assign or unassign), and a
   * revoke only after the listener stopped the tasks; both happen in the queue, in event order.
   */
  private onRebalance(error: LibrdKafkaError | undefined, assignment: TopicPartition[]): void {
    const tasks = assignment
      .filter((p) => p.topic === this.topic)
      .map((p) => p.partition)
      .sort((a, b) => a - b);
    if (error?.code === ASSIGN_PARTITIONS) {
      this.enqueue(() => this.assign(assignment, tasks));
    } else if (error?.code === REVOKE_PARTITIONS) {
      // Only meaningful while the callback runs: the flag is reset once the revoke is acknowledged.
      const lost = this.consumer.assignmentLost();
      this.enqueue(() => this.revoke(assignment, tasks, lost));
    } else {
      this.fail(
        new KafkaError(
          `Task group '${this.groupId}': rebalance failed: ${error?.message ?? 'unknown event'}`,
        ),
      );
    }
  }

  private async assign(assignment: TopicPartition[], tasks: number[]): Promise<void> {
    try {
      this.consumer.incrementalAssign(assignment);
    } catch (error) {
      // While leaving, librdkafka refuses new partitions; the group will not count them as this process's.
      if (!this.leaving)
        this.fail(
          new KafkaError(
            `Task group '${this.groupId}': assigning tasks ${tasks.join(',')} failed: ${(error as Error).message}`,
          ),
        );
      return;
    }
    const added = tasks.filter((t) => !this.owned.has(t));
    for (const t of added) this.owned.add(t);
    if (added.length > 0)
      await this.notify(() => this.options.listener.onAssigned(added), 'onAssigned', added);
  }

  private async revoke(assignment: TopicPartition[], tasks: number[], lost: boolean): Promise<void> {
    const removed = tasks.filter((t) => this.owned.has(t));
    if (removed.length > 0)
      await this.notify(() => this.options.listener.onRevoked(removed, lost), 'onRevoked', removed);
    for (const t of removed) this.owned.delete(t);
    try {
      this.consumer.incrementalUnassign(assignment);
    } catch (error) {
      this.fail(
        new KafkaError(
          `Task group '${this.groupId}': revoking tasks ${tasks.join(',')} failed: ${(error as Error).message}`,
        ),
      );
    }
  }

  private enqueue(handle: () => Promise<void>): void {
    this.queue = this.queue.then(handle).finally(() => {
      const waiting = this.handled;
      this.handled = [];
      for (const resolve of waiting) resolve();
    });
  }

  /** Resolves when the next rebalance event has been handled, or after `ms`. */
  private nextEvent(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.handled.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async notify(
    run: () => void | Promise<void>,
    what: string,
    tasks: readonly number[],
  ): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.fail(
        new KafkaError(
          `Task group '${this.groupId}': the listener's ${what}(${tasks.join(',')}) failed: ${(error as Error).message}`,
          { cause: error },
        ),
      );
    }
  }

  private fail(error: Error): void {
    this.firstFailure ??= error;
    this.options.onError?.(error);
  }
}

function validate(options: TaskMembershipOptions): void {
  const fail = (why: string): never => {
    throw new ConfigurationError(`TaskMembership: ${why}`);
  };
  if (typeof options.jobId !== 'string' || !/^[A-Za-z0-9._-]+$/.test(options.jobId))
    fail(
      `the job id ${JSON.stringify(options.jobId)} must be letters, digits, '.', '_' or '-' (a topic name)`,
    );
  if (!Number.isInteger(options.taskCount) || options.taskCount < 1)
    fail(`taskCount must be a positive integer, not ${options.taskCount}`);
  const session = options.sessionTimeoutMs ?? 45_000;
  const heartbeat = options.heartbeatIntervalMs ?? 3_000;
  if (!(heartbeat > 0 && heartbeat * 3 <= session))
    fail(
      `the heartbeat interval (${heartbeat} ms) must be positive and at most a third of the session timeout (${session} ms)`,
    );
}

/**
 * Creates the task topic with one partition per task unless it exists, then waits until the consumer's
 * metadata shows it: subscribing to a topic the client does not know yet would join the group with nothing to
 * assign and rebalance again once it appears. A process joining a running job finds the topic in the metadata
 * and creates nothing: creating a topic needs the controller, which a broker outage can keep from answering
 * for as long as the request's timeout, while reading metadata needs any one broker.
 */
async function ensureTaskTopic(
  consumer: ClientConsumer,
  options: TaskMembershipOptions,
  topic: string,
): Promise<void> {
  const partitionCount = async (): Promise<number> => {
    const metadata = await call<ClientMetadata>(`reading the metadata of task topic '${topic}'`, (cb) =>
      consumer.getMetadata({ topic, timeout: TIMEOUT_MS }, cb),
    ).catch(() => undefined);
    return metadata?.topics.find((t) => t.name === topic)?.partitions.length ?? 0;
  };
  if ((await partitionCount()) === 0) {
    const admin = kafkaClient().AdminClient.create({
      ...options.properties,
      'bootstrap.servers': options.bootstrapServers,
    });
    try {
      await call(`creating task topic '${topic}'`, (cb) =>
        admin.createTopic(
          { topic, num_partitions: options.taskCount, replication_factor: options.replicationFactor ?? -1 },
          TIMEOUT_MS,
          (e) => cb(e, undefined),
        ),
      ).catch((error: KafkaError) => {
        if ((error.cause as LibrdKafkaError | undefined)?.code !== TOPIC_ALREADY_EXISTS) throw error;
      });
    } finally {
      admin.disconnect();
    }
  }
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const count = await partitionCount();
    if (count > 0 && count !== options.taskCount)
      throw new ConfigurationError(
        `Task topic '${topic}' has ${count} partitions, but job '${options.jobId}' has ${options.taskCount} tasks: ` +
          `every process of a job must cut it into the same tasks (a job with another number of tasks needs ` +
          `another job id, or the topic deleted while no process of the job runs)`,
      );
    if (count === options.taskCount) return;
    if (Date.now() > deadline)
      throw new KafkaError(`Task topic '${topic}' did not appear in the metadata within ${TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
