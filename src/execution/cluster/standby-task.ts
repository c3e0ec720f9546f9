// StandbyTask: a warm copy of a task another process owns, its local store kept current from the task's changelog.
import { join } from 'node:path';
import type { SubTopology } from '../../graph/sub-topologies.ts';
import { KeyGroupRange } from '../../state/key-group-range.ts';
import type { LocalStores } from '../../state/state-backend.ts';
import type { ClusterTaskContext } from './cluster-task.ts';
import {
  ChangelogReader,
  changelogTopicsOf,
  sorted,
  type ChangelogRestore,
  type ChangelogTopicPlan,
} from './task-changelog.ts';
import { CHECKPOINT_FILE, TaskLocalStore, writeCheckpoint } from './task-local-store.ts';

/** What one catch-up read and did. */
export interface StandbyCatchUp {
  /** `full`: the store had no usable checkpoint and was rebuilt from each partition's start. */
  readonly from: 'checkpoint' | 'full';
  /** Why the checkpoint was not used, for a full catch-up. */
  readonly checkpointRejected: string | undefined;
  readonly messages: number;
  readonly bytes: number;
  readonly ms: number;
  /** Whether the checkpoint now names the ends read (false: the store holds entries it could not write yet). */
  readonly checkpointed: boolean;
}

/** Totals of a standby's catch-ups, for its log line when it stops. */
export interface StandbyFigures {
  catchUps: number;
  messages: number;
  bytes: number;
  ms: number;
}

/**
 * A standby replica of task `<sub-topology>_<partition>` (Kafka Streams' standby task): the local store the task
 * would use in this process (`<root>/cluster/<job id>/<task id>`), which each {@link catchUp} brings up to date by
 * reading the task's changelog partitions with read_committed from the store's checkpoint to their end (the last
 * stable offset: only committed state) and applying them exactly as a task's start does, then rewriting the
 * checkpoint. When the group assigns the task to this process, the task's start finds that store and checkpoint
 * and reads only what was committed since the last catch-up.
 *
 * A standby writes nothing to Kafka and runs no operator: it holds no producer and no runtime, only a changelog
 * reader. It must be stopped before the task starts in this process (one writer per LMDB directory); `stop` waits
 * for a catch-up under way. The store's checkpoint invariant holds as for a task: the first write of a catch-up
 * removes the checkpoint, the end of it writes the new one, so a process killed mid-way restores that store in full.
 */
export class StandbyTask {
  private readonly sub: SubTopology;
  private readonly partition: number;
  private readonly topics: readonly ChangelogTopicPlan[];
  private reader: ChangelogReader | undefined = undefined;
  private running: Promise<StandbyCatchUp | undefined> = Promise.resolve(undefined);
  private stopped = false;
  readonly figures: StandbyFigures = { catchUps: 0, messages: 0, bytes: 0, ms: 0 };

  constructor(
    /** `<sub-topology>_<partition>`. */
    readonly id: string,
    private readonly context: ClusterTaskContext,
    private readonly stores: LocalStores,
  ) {
    const [sub, partition] = id.split('_').map(Number);
    this.sub = context.topology.subTopologies[sub!]!;
    this.partition = partition!;
    this.topics = changelogTopicsOf(this.sub, context.jobId);
  }

  /** Reads what the task's owner committed since the last catch-up into the store; undefined once stopped. */
  catchUp(): Promise<StandbyCatchUp | undefined> {
    const next = this.running.then(() => (this.stopped ? undefined : this.catchUpOnce()));
    this.running = next.catch(() => undefined);
    return next;
  }

  /** Stops catching up (a catch-up under way finishes first) and disconnects; the store stays on disk. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await this.reader?.close();
    this.reader = undefined;
  }

  private async catchUpOnce(): Promise<StandbyCatchUp> {
    const started = performance.now();
    const { context } = this;
    this.reader ??= await ChangelogReader.open(
      context.bootstrapServers,
      context.properties,
      `${context.jobId}-standby-${this.id}`,
    );
    const directory = join(context.localStoreDirectory!, this.id);
    const local = new TaskLocalStore(this.stores, directory);
    const checkpoint = local.readCheckpoint();
    const restored = await this.reader.read(this.topics, this.partition, checkpoint.offsets);
    let checkpointed = true;
    if (restored.fromCheckpoint && restored.messages === 0) {
      // Nothing committed since (at most aborted messages and transaction markers): the stores are the committed
      // state below the new ends too, and only the checkpoint moves, without opening them.
      if (Object.entries(restored.ends).some(([topic, end]) => checkpoint.offsets![topic] !== end))
        writeCheckpoint(join(directory, CHECKPOINT_FILE), restored.ends);
    } else
      try {
        checkpointed = applyChangelogRead(local, this.sub, this.partition, this.topics, restored, () =>
          context.clock.now(),
        );
      } finally {
        local.close();
      }
    const ms = performance.now() - started;
    const figures = this.figures;
    figures.catchUps++;
    figures.messages += restored.messages;
    figures.bytes += restored.bytes;
    figures.ms += ms;
    return {
      from: restored.fromCheckpoint ? 'checkpoint' : 'full',
      checkpointRejected: checkpoint.rejected ?? restored.checkpointRejected,
      messages: restored.messages,
      bytes: restored.bytes,
      ms,
      checkpointed,
    };
  }
}

/**
 * Applies a changelog read to a task's local store as a task's start does: read from the checkpoint, each key group
 * the read holds a value or a tombstone for replaces the one on disk, and the read's timers and input state replace
 * the kept ones; read from each partition's start, the store is emptied first and takes what was read. Then the
 * checkpoint names the ends read. Returns whether it was written (not while a backend holds entries it could not
 * write: their state is not registered, which no run of Weir's own changelog writer leaves).
 */
export function applyChangelogRead(
  local: TaskLocalStore,
  sub: SubTopology,
  partition: number,
  topics: readonly ChangelogTopicPlan[],
  restored: ChangelogRestore,
  clock: () => number,
): boolean {
  const fromCheckpoint = restored.fromCheckpoint;
  local.open(!fromCheckpoint);
  const backends = [];
  try {
    for (const topic of topics) {
      const read = restored.read.get(topic.uid);
      const node = sub.nodes.find((n) => n.uid === topic.uid);
      const backend = local.keyedBackend(
        {
          operatorName: node?.name ?? topic.uid,
          uid: topic.uid,
          subtaskIndex: partition,
          maxParallelism: topic.maxParallelism,
          keyGroupRange: new KeyGroupRange(0, topic.maxParallelism - 1),
          clock,
        },
        fromCheckpoint && read !== undefined ? read.keyedState.keys() : [],
      );
      backends.push(backend);
      if (read !== undefined) backend.restore(sorted(read.keyedState));
      local.timers(topic.uid, read);
    }
    local.inputState(topics[0]?.uid, restored.inputState);
    return local.checkpoint(restored.ends);
  } finally {
    for (const backend of backends) backend.dispose();
  }
}
