// ClusterOptions: how a job joins the processes that share its tasks on Kafka (docs/scale-out.md).

/** Running a job as one of several processes that share its tasks through Kafka. */
export interface ClusterOptions {
  /** `host:port[,host:port...]` of the brokers. */
  readonly bootstrapServers: string;
  /**
   * The job's id, the same in every process of the job: the consumer group `<jobId>`, the task topic
   * `<jobId>-tasks`, the repartition topics `<jobId>-<uid>-repartition` and the transactional ids
   * `<jobId>-task-<task id>`.
   */
  readonly jobId: string;
  /** How often each task commits its transaction: input offsets, repartition writes and output (default 100 ms). */
  readonly commitIntervalMs?: number;
  /** How long the group waits for a silent process before moving its tasks (default 45,000 ms, Kafka's). */
  readonly sessionTimeoutMs?: number;
  /** How often a process tells the group it lives and learns of rebalances (default 3,000 ms, Kafka's). */
  readonly heartbeatIntervalMs?: number;
  /** Replicas of the topics the job creates (task, repartition and changelog topics; default: the broker's). */
  readonly replicationFactor?: number;
  /**
   * Topic configuration of the changelog topics the job creates, over Weir's defaults (`cleanup.policy=compact`,
   * `segment.bytes` 1 MiB, `segment.ms` 60 s, `min.cleanable.dirty.ratio` 0.1, `message.timestamp.type=CreateTime`;
   * docs/scale-out.md says why). Applied when a topic is created; a topic that exists keeps its configuration.
   */
  readonly changelogTopicConfig?: Readonly<Record<string, string>>;
  /**
   * Standby replicas of each task with keyed state (default 0), as Kafka Streams' `num.standby.replicas`: besides
   * the tasks it owns, each process keeps warm copies of the tasks owned by the `n` processes before it in the
   * group (by member id), in the local stores where it would run them, read from their changelogs every 10 commit
   * intervals. A task that fails over to a process with its standby reads only the changelog committed since the
   * last catch-up (docs/scale-out.md, "Standby replicas"). Needs a state backend that keeps stores on disk
   * (`LmdbStateBackend`); at most the number of other processes are used.
   */
  readonly standbyReplicas?: number;
  /** Names this process in the group (`client.id`, with a suffix unique to the process). */
  readonly clientId?: string;
  /** Any other librdkafka property of the job's clients (TLS, SASL). */
  readonly properties?: Readonly<Record<string, string | number | boolean>>;
}
