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
  sorted,
  type ChangelogRestore,
  type ChangelogTopicPlan,
} from './task-changelog.ts';
import { TaskLocalStore } from './task-local-store.ts';
import type { JobSnapshot, OperatorSnapshot } from '../../runtime/job-snapshot.ts';
import { join } from 'node:path';

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
  /**
   * Where the job's tasks keep their stores between runs of the process (`<root>/cluster/<job id>`), when the
   * state backend keeps stores on disk (LMDB).
   */
  readonly localStoreDirectory?: string;
  /**
   * Takes the closing of a stopped task's clients that its stop did not wait for (a lost task's, inside a call to
   * the brokers), so that the process waits for it before it exits.
   */
  readonly closingInBackground?: (closing: Promise<void>) => void;
}

/** How a task's state came back when it started: what it read and what it found on local disk. */
export interface TaskRestoreFigures {
  /** `local`: the stores and checkpoint on disk, and the changelog after it; `full`: the changelog from its start. */
  readonly from: 'local' | 'full';
  /** Why a local store was not used (no checkpoint, a corrupt one...), when the backend keeps stores. */
  readonly checkpointRejected: string | undefined;
  readonly messages: number;
  readonly bytes: number;
  readonly ms: number;
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
  /** The task's state on local disk, kept between runs (with an on-disk backend). */
  private local: TaskLocalStore | undefined = undefined;
  /** The checkpoint written once the last commit's delivery reports came. */
  private checkpointing: Promise<void> = Promise.resolve();
  /** The first stop's work (a task stops once; later calls wait for it). */
  private stopping: Promise<void> | undefined = undefined;
  /** How the task's state came back (undefined before it started). */
  restore: TaskRestoreFigures | undefined = undefined;

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

  /** Whether the task waits on the brokers now (a commit, a full producer queue), not on its input. */
  get waitingOnBrokers(): boolean {
    return this.transaction?.busy === true;
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
      const local = this.openLocalStore();
      const checkpoint = local?.readCheckpoint();
      const restored = await restoreChangelog(
        this.changelogTopics,
        this.partition,
        context.bootstrapServers,
        context.properties,
        this.transactionalId,
        checkpoint?.offsets,
      );
      const fromLocal = local !== undefined && restored.fromCheckpoint;
      const rejected = checkpoint?.rejected ?? restored.checkpointRejected;
      this.restore = {
        from: fromLocal ? 'local' : 'full',
        checkpointRejected: local === undefined ? undefined : rejected,
        messages: restored.messages,
        bytes: restored.bytes,
        ms: restored.ms,
      };
      if (restored.messages > 0 || local !== undefined)
        context.logger.info(
          { job: context.jobId, task: this.id },
          `task ${this.id} restored ${fromLocal ? 'its local store and ' : ''}${restored.entries} key group ` +
            `snapshots from ${restored.messages} changelog messages (${restored.bytes} bytes` +
            `${fromLocal ? ', after its checkpoint' : local === undefined ? '' : `, in full: its checkpoint was not used, ${rejected}`}) ` +
            `in ${Math.round(restored.ms)} ms`,
        );
      local?.open(!fromLocal);
      const snapshot = local === undefined ? restored.snapshot : this.localSnapshot(local, restored);
      const inputState =
        local === undefined
          ? restored.inputState
          : local.inputState(this.changelogTopics[0]?.uid, restored.inputState);
      const changelog = new ChangelogWriter(this.changelogTopics, this.partition);
      if (local === undefined) changelog.restored(restored.snapshot, restored.inputState);
      else {
        changelog.keep = (uid, key, value) => local.keep(uid, key, value);
        for (const topic of this.changelogTopics)
          transaction.trackOffsets(topic.name, restored.ends[topic.name]!);
      }
      this.changelog = changelog;
      const input = this.input();
      this.reader = input;
      const committed = await transaction.committedOffset(input.topic, input.partition);
      await input.open(committed.offset);
      if (inputState !== undefined) input.restoreInputState(inputState);
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
        ...(context.stateBackend === undefined
          ? {}
          : { stateBackend: this.backend(context.stateBackend, local, restored, fromLocal) }),
        ...(snapshot === undefined ? {} : { restoreFrom: snapshot }),
      });
      this.runtime = runtime;
      await runtime.open();
      if (local !== undefined) {
        // What the changelog holds is what the stores hold now; the checkpoint names the end just read.
        changelog.prime(runtime, input.inputState());
        local.checkpoint(restored.ends);
      }
      // A Kafka source resumes at the watermark and idleness committed with its offset, restated downstream: its
      // previous owner's last records are not read again, and their watermark may not have reached the topics it
      // feeds before the commit that moved the task (a new owner with nothing left to read would emit none).
      if (committed.metadata !== undefined && input instanceof KafkaPartitionInput)
        this.kafkaSource()?.restoreWatermarks(
          decodeSourceWatermark(committed.metadata, input.topic, input.partition, this.transactionalId),
        );
      this.running = this.run(runtime);
    } catch (error) {
      this.local?.close();
      await transaction.close();
      throw error;
    }
  }

  /**
   * Called by the input before each read, when every record read so far has reached the transaction: commits
   * when the interval is due, and stops here when asked to.
   */
  async beforeRead(input: TaskInputReader): Promise<'read' | 'stop'> {
    if (this.stopRequest === undefined) {
      if (this.context.clock.now() - this.lastCommitAt >= this.context.commitIntervalMs)
        await this.commit(input);
      await this.transaction!.drained();
    }
    // A stop asked for meanwhile comes first: a lost task's does not wait for the commit above to return.
    const request = this.stopRequest;
    if (request !== undefined) {
      if (!request.lost) await this.commit(input);
      request.acknowledge();
      return 'stop';
    }
    return 'read';
  }

  /**
   * Stops the task: at its next batch boundary it commits (unless `lost`: then the group gave it away already, or
   * its transaction failed, and nothing may be committed), its run is cancelled, and its clients close. The
   * first call decides; a later one waits for it.
   */
  stop(lost: boolean): Promise<void> {
    this.stopping ??= this.stopOnce(lost);
    return this.stopping;
  }

  private async stopOnce(lost: boolean): Promise<void> {
    const runtime = this.runtime;
    const running = this.running;
    // A lost task commits nothing, so when it waits on the brokers (a commit, a full producer queue: it reads
    // nothing meanwhile) it stops at once. Waiting would hold up the group's rebalance, and every task of every
    // process with it, for as long as the client waits (seconds to a minute with a broker down).
    const waitingOnBrokers = lost && this.waitingOnBrokers;
    if (runtime !== undefined && running !== undefined) {
      const acknowledged = new Promise<void>((acknowledge) => (this.stopRequest = { lost, acknowledge }));
      // A run that ended or failed reads no more: nothing to wait for.
      if (!waitingOnBrokers) await Promise.race([acknowledged, running.catch(() => {})]);
      // A clean stop leaves a checkpoint of its last commit: a later run here reads only what others wrote since.
      if (!lost) await this.checkpointing.catch(() => {});
      runtime.cancel(new TaskStopped(`Task '${this.id}' stopped`));
      await running.catch(() => {});
      await runtime.close().catch(() => {});
      runtime.disposeBackends();
    }
    this.local?.close();
    // The producer closes once its call in progress returned; a lost task's stop does not wait for that.
    const closing = this.transaction?.close();
    if (waitingOnBrokers && closing !== undefined) this.context.closingInBackground?.(closing);
    else await closing;
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
    const local = this.local;
    let snapshotWrites = -1;
    if (moved || transaction.sentSinceCommit > 0 || changelog.hadProcessingTimers) {
      changelog.write(this.runtime!, input.inputState(), (record) => transaction.send(record));
      if (local !== undefined) snapshotWrites = local.writes;
    }
    if (transaction.sentSinceCommit === 0 && !moved) {
      // Nothing changed since the last commit: the disk, if written, holds the committed state.
      if (local !== undefined && snapshotWrites === local.writes) local.checkpoint({});
      return;
    }
    await transaction.commit([committed]);
    // A lost task's stop may have closed its store while the commit waited: nothing more of this run.
    if (this.stopRequest?.lost === true) return;
    this.lastCommitted = position.offset;
    // The disk holds this commit's snapshot unless it was written after it (a cache write-back while the commit
    // waited, or the next commit's snapshot): then a later commit checkpoints. The offsets are exact once the
    // commit's delivery reports came, which is not awaited here (the task reads on).
    if (local !== undefined && snapshotWrites >= 0)
      this.checkpointing = transaction.whenDelivered().then(() => {
        // A lost task's store may be closed, and open again for its next run here: it checkpoints nothing.
        if (snapshotWrites === local.writes && this.stopRequest?.lost !== true)
          local.checkpoint(Object.fromEntries(transaction.delivered));
      });
  }

  /**
   * The environment's backend, creating each keyed operator's backend as subtask `<partition>` of the operator
   * (the task stands for it): two tasks of one sub-topology in one process get two stores (an on-disk backend
   * names its directory by operator and subtask).
   */
  private backend(
    backend: StateBackend,
    local: TaskLocalStore | undefined,
    restored: ChangelogRestore,
    fromLocal: boolean,
  ): StateBackend {
    const partition = this.partition;
    return {
      name: backend.name,
      createKeyedStateBackend: (context) => {
        const subtask = { ...context, subtaskIndex: partition };
        if (local === undefined) return backend.createKeyedStateBackend(subtask);
        // After a checkpoint, each key group the changelog read holds a newer value of (or a tombstone for)
        // replaces the one on disk.
        const read = fromLocal ? restored.read.get(context.uid)?.keyedState.keys() : undefined;
        return local.keyedBackend(subtask, read ?? []);
      },
    };
  }

  /**
   * A task whose backend keeps stores on disk keeps them in `<root>/cluster/<job id>/<task id>`: on a later
   * assignment to this process (or a restart of it on the same directory) they restore from their checkpoint.
   */
  private openLocalStore(): TaskLocalStore | undefined {
    const { stateBackend, localStoreDirectory } = this.context;
    const stores = stateBackend?.localStores;
    if (stores === undefined || localStoreDirectory === undefined || this.changelogTopics.length === 0)
      return undefined;
    this.local = new TaskLocalStore(stores, join(localStoreDirectory, this.id));
    return this.local;
  }

  /**
   * The snapshot a task with a local store restores: the keyed state the changelog read found (the stores hold
   * the rest), and every timer (the ones kept with the read's over them).
   */
  private localSnapshot(local: TaskLocalStore, restored: ChangelogRestore): JobSnapshot | undefined {
    const operators: Record<string, OperatorSnapshot> = {};
    for (const topic of this.changelogTopics) {
      const read = restored.read.get(topic.uid);
      const keyedState = read === undefined ? [] : sorted(read.keyedState);
      const timers = local.timers(topic.uid, read);
      if (keyedState.length > 0 || timers.length > 0)
        operators[topic.uid] = { parallelism: 1, keyedState, timers, operatorState: [] };
    }
    return Object.keys(operators).length === 0 ? undefined : { version: 1, operators };
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
