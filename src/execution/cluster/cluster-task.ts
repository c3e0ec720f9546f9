// ClusterTask: one task of a job in cluster mode, from its assignment to this process until it is revoked.
import { WeirError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { ProcessingTimeClock } from '../../core/clock.ts';
import type { SubTopology, TaskTopology } from '../../graph/sub-topologies.ts';
import { JobRuntime } from '../../runtime/job-runtime.ts';
import type { WatermarkEmission } from '../../time/watermark-emission.ts';
import type { StateBackend } from '../../state/state-backend.ts';
import type { Sink } from '../../core/sink.ts';
import type { StreamNode } from '../../graph/stream-graph.ts';
import { KafkaSink } from '../../connectors/kafka/kafka-sink.ts';
import type { KafkaSource } from '../../connectors/kafka/kafka-source.ts';
import { SourceOperator } from '../../operators/source-operator.ts';
import { buildTaskGraph } from './task-graph.ts';
import { decodeSourceWatermark, encodeSourceWatermark } from './source-watermark.ts';
import {
  KafkaPartitionInput,
  RepartitionPartitionInput,
  TaskInputSource,
  type TaskInputDriver,
  type TaskInputReader,
} from './task-input.ts';
import { TaskKafkaSink, TaskRepartitionSink } from './task-sinks.ts';
import { TaskTransaction } from './task-transaction.ts';
import {
  ChangelogWriter,
  changelogTopicsOf,
  restoreChangelog,
  type ChangelogTopicPlan,
} from './task-changelog.ts';

/** What every task of a job shares. */
export interface ClusterTaskContext {
  readonly jobId: string;
  readonly bootstrapServers: string;
  readonly properties: Readonly<Record<string, string | number | boolean>>;
  readonly topology: TaskTopology;
  readonly commitIntervalMs: number;
  readonly clock: ProcessingTimeClock;
  readonly logger: Logger;
  readonly emission: WatermarkEmission;
  /** The environment's state backend (default: heap). */
  readonly stateBackend?: StateBackend;
}

/** The reason a task's run is cancelled when the task stops (not a failure). */
class TaskStopped extends WeirError {}

/** The transaction timeout of a task's producer: a dead owner's open transaction is aborted after it at latest. */
const TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * Task `<sub-topology>_<partition>`: its sub-topology's operators over its input partition, in a job runtime of
 * its own on this thread, and its transaction, committed between two reads every commit interval. Stopping
 * commits (or, when the task was lost, does not) and closes everything; a later owner resumes at the committed
 * offsets.
 */
export class ClusterTask implements TaskInputDriver {
  private transaction: TaskTransaction | undefined = undefined;
  private runtime: JobRuntime | undefined = undefined;
  private running: Promise<void> | undefined = undefined;
  private stopRequest: { lost: boolean; acknowledge: () => void } | undefined = undefined;
  private lastCommitAt = 0;
  private lastCommitted = -1;
  private readonly sub: SubTopology;
  private readonly partition: number;
  private reader: TaskInputReader | undefined = undefined;
  private readonly changelogTopics: readonly ChangelogTopicPlan[];
  /** Writes the task's state changes into each transaction; created when the task starts. */
  private changelog: ChangelogWriter | undefined = undefined;

  constructor(
    /** `<sub-topology>_<partition>`. */
    readonly id: string,
    private readonly context: ClusterTaskContext,
    private readonly onFailure: (task: ClusterTask, error: unknown) => void,
  ) {
    const [sub, partition] = id.split('_').map(Number);
    this.sub = context.topology.subTopologies[sub!]!;
    this.partition = partition!;
    this.changelogTopics = changelogTopicsOf(this.sub, context.jobId);
  }

  /** The transactional id, also the consumer group of the task's input offsets. */
  get transactionalId(): string {
    return `${this.context.jobId}-task-${this.id}`;
  }

  /** Transactions committed so far. */
  get commits(): number {
    return this.transaction?.commits ?? 0;
  }

  /** The next offset of its input partition the task reads (undefined before it started). */
  get inputPosition(): number | undefined {
    return this.reader?.position().offset;
  }

  /** What the task's changelog writer wrote so far (undefined before it started). */
  get changelogFigures(): ChangelogWriter['figures'] | undefined {
    return this.changelog?.figures;
  }

  /**
   * Opens the transaction (fencing a previous owner, whose open transaction is aborted), restores the task's keyed
   * state and timers from its changelog partitions, resumes the input at its committed offset, starts running.
   */
  async start(): Promise<void> {
    const { context } = this;
    const transaction = await TaskTransaction.open(
      this.transactionalId,
      context.bootstrapServers,
      context.properties,
      TRANSACTION_TIMEOUT_MS,
    );
    this.transaction = transaction;
    try {
      const restored = await restoreChangelog(
        this.changelogTopics,
        this.partition,
        context.bootstrapServers,
        context.properties,
        this.transactionalId,
      );
      if (restored.messages > 0)
        context.logger.info(
          { job: context.jobId, task: this.id },
          `task ${this.id} restored ${restored.entries} key group snapshots from ${restored.messages} changelog ` +
            `messages (${restored.bytes} bytes) in ${Math.round(restored.ms)} ms`,
        );
      const changelog = new ChangelogWriter(this.changelogTopics, this.partition);
      changelog.restored(restored.snapshot, restored.inputState);
      this.changelog = changelog;
      const input = this.input();
      this.reader = input;
      const committed = await transaction.committedOffset(input.topic, input.partition);
      await input.open(committed.offset);
      if (restored.inputState !== undefined) input.restoreInputState(restored.inputState);
      this.lastCommitted = input.position().offset;
      this.lastCommitAt = context.clock.now();
      const graph = buildTaskGraph(context.topology, this.sub, {
        input: new TaskInputSource(input, this),
        emission: context.emission,
        sink: (node) => this.sink(node),
        repartitionSink: (topic, edge) =>
          new TaskRepartitionSink(
            {
              topic: topic.name,
              partitions: topic.partitions,
              producerId: `${this.id}/${edge.source.uid}`,
              keySelector: edge.partitioning.keySelector!,
              maxParallelism: topic.maxParallelism,
            },
            () => transaction,
          ),
      });
      const runtime = new JobRuntime(graph, {
        clock: context.clock,
        logger: context.logger,
        ...(context.stateBackend === undefined ? {} : { stateBackend: this.backend(context.stateBackend) }),
        ...(restored.snapshot === undefined ? {} : { restoreFrom: restored.snapshot }),
      });
      this.runtime = runtime;
      await runtime.open();
      // A Kafka source resumes at the watermark and idleness committed with its offset, restated downstream: its
      // previous owner's last records are not read again, and their watermark may not have reached the topics it
      // feeds before the commit that moved the task (a new owner with nothing left to read would emit none).
      if (committed.metadata !== undefined && input instanceof KafkaPartitionInput)
        this.kafkaSource()?.restoreWatermarks(
          decodeSourceWatermark(committed.metadata, input.topic, input.partition, this.transactionalId),
        );
      this.running = this.run(runtime);
    } catch (error) {
      await transaction.close();
      throw error;
    }
  }

  /**
   * Called by the input before each read, when every record read so far has reached the transaction: commits
   * when the interval is due, and stops here when asked to.
   */
  async beforeRead(input: TaskInputReader): Promise<'read' | 'stop'> {
    const request = this.stopRequest;
    if (request !== undefined) {
      if (!request.lost) await this.commit(input);
      request.acknowledge();
      return 'stop';
    }
    if (this.context.clock.now() - this.lastCommitAt >= this.context.commitIntervalMs)
      await this.commit(input);
    await this.transaction!.drained();
    return 'read';
  }

  /**
   * Stops the task: at its next batch boundary it commits (unless `lost`: then the group gave it away already and
   * nothing may be committed), its run is cancelled, and its clients close.
   */
  async stop(lost: boolean): Promise<void> {
    const runtime = this.runtime;
    const running = this.running;
    if (runtime !== undefined && running !== undefined) {
      const acknowledged = new Promise<void>((acknowledge) => (this.stopRequest = { lost, acknowledge }));
      // A run that ended or failed reads no more: nothing to wait for.
      await Promise.race([acknowledged, running.catch(() => {})]);
      runtime.cancel(new TaskStopped(`Task '${this.id}' stopped`));
      await running.catch(() => {});
      await runtime.close().catch(() => {});
      runtime.disposeBackends();
    }
    await this.transaction?.close();
    const figures = this.changelog?.figures;
    if (figures !== undefined && figures.messages > 0)
      this.context.logger.info(
        { job: this.context.jobId, task: this.id },
        `task ${this.id} changelog: ${figures.messages} messages, ${figures.bytes} bytes in ` +
          `${figures.commitsWithChanges} of ${this.commits} commits; ${Math.round(figures.snapshotMs)} ms snapshotting`,
      );
  }

  private async run(runtime: JobRuntime): Promise<void> {
    try {
      await runtime.runSources();
      // The input ended (a repartition topic whose producers all ended): the last records commit.
      await this.commit(this.reader!);
    } catch (error) {
      // A lost task's commit fails as fenced: it stops, it does not fail the job.
      if (error instanceof TaskStopped || this.stopRequest?.lost === true) return;
      this.onFailure(this, error);
      throw error;
    }
  }

  /**
   * Commits the open transaction: the state changes since the last commit (into the changelog), what was written
   * downstream and the input position, as one unit. Skipped when nothing was read, written or could have changed.
   */
  private async commit(input: TaskInputReader): Promise<void> {
    const transaction = this.transaction!;
    const position = input.position();
    this.lastCommitAt = this.context.clock.now();
    const moved = position.offset !== this.lastCommitted;
    const changelog = this.changelog!;
    // The source's watermark of everything read so far goes into this transaction, and its event-time position
    // is committed with the offset: the task's next owner resumes there.
    const cut = input instanceof KafkaPartitionInput ? this.kafkaSource()?.watermarkCut() : undefined;
    const committed = cut === undefined ? position : { ...position, metadata: encodeSourceWatermark(cut) };
    // State changes only through input, or through processing-time timers firing between reads.
    if (moved || transaction.sentSinceCommit > 0 || changelog.hadProcessingTimers)
      changelog.write(this.runtime!, input.inputState(), (record) => transaction.send(record));
    if (transaction.sentSinceCommit === 0 && !moved) return;
    await transaction.commit([committed]);
    this.lastCommitted = position.offset;
  }

  /**
   * The environment's backend, creating each keyed operator's backend as subtask `<partition>` of the operator
   * (the task stands for it): two tasks of one sub-topology in one process get two stores (an on-disk backend
   * names its directory by operator and subtask).
   */
  private backend(backend: StateBackend): StateBackend {
    const partition = this.partition;
    return {
      name: backend.name,
      createKeyedStateBackend: (context) =>
        backend.createKeyedStateBackend({ ...context, subtaskIndex: partition }),
    };
  }

  /** The source operator of a task that reads the job's Kafka topic. */
  private kafkaSource(): SourceOperator<unknown> | undefined {
    const runtime = this.runtime!;
    const node = runtime.graph.nodes.find((n) => n.transformation.kind === 'source');
    const operator = node === undefined ? undefined : runtime.subtasksOf(node)[0]?.operator;
    return operator instanceof SourceOperator ? operator : undefined;
  }

  /** The input partition: of the job's Kafka topic, or of the repartition topic the sub-topology reads. */
  private input(): TaskInputReader {
    const { context, sub, partition } = this;
    const source = sub.nodes.find((n) => n.transformation.kind === 'source');
    if (source !== undefined) {
      const config = (source.transformation.source as KafkaSource<unknown>).config;
      return new KafkaPartitionInput(
        config.topics![0]!,
        partition,
        config,
        context.bootstrapServers,
        this.transactionalId,
      );
    }
    const topic = context.topology.repartitionTopics.find((t) => t.name === sub.inputTopics[0])!;
    return new RepartitionPartitionInput(
      topic.name,
      partition,
      topic.producers,
      topic.maxParallelism,
      context.bootstrapServers,
      this.transactionalId,
      context.properties,
    );
  }

  private sink(node: StreamNode): Sink<unknown> {
    const sink = node.transformation.sink!;
    if (sink instanceof KafkaSink) return new TaskKafkaSink(sink.config, () => this.transaction!);
    return sink;
  }
}
