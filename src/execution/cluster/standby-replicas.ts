// StandbyReplicas: the standby tasks of one process, placed from the group's description and kept caught up.
import type { TaskGroupView } from '../../connectors/kafka/task-membership.ts';
import type { LocalStores } from '../../state/state-backend.ts';
import type { ClusterTaskContext } from './cluster-task.ts';
import { standbyTasks } from './standby-placement.ts';
import { StandbyTask, type StandbyCatchUp, type StandbyFigures } from './standby-task.ts';
import { changelogTopicsOf } from './task-changelog.ts';

/** A standby catches up every this many commit intervals. */
export const STANDBY_CATCH_UP_COMMITS = 10;

/** What the standbys need of the process's group membership. */
export interface StandbyMembership {
  describe(): Promise<TaskGroupView>;
  inTurn(action: () => Promise<void>): Promise<void>;
  owns(task: number): boolean;
}

/** What the replicas drive of a standby (a {@link StandbyTask}). */
export interface Standby {
  readonly id: string;
  readonly figures: StandbyFigures;
  catchUp(): Promise<StandbyCatchUp | undefined>;
  stop(): Promise<void>;
}

/**
 * The standby replicas of one process (`standbyReplicas: n`): every {@link STANDBY_CATCH_UP_COMMITS} commit
 * intervals, and soon after each rebalance event, it describes the job's group and keeps a standby of each keyed
 * task the placement ({@link standbyTasks}) gives this process and it does not own; then it catches each standby
 * up, one after the other. A standby whose task this process is assigned is stopped before the task starts
 * ({@link release}); one the placement moves elsewhere is stopped at the next description (its store stays on
 * disk, as a stopped task's does). Placement changes are made in turn with the rebalance events, so a task never
 * runs beside its own standby.
 */
export class StandbyReplicas {
  private readonly standbys = new Map<number, Standby>();
  /** The task indexes that have changelogs (a standby of any other would hold nothing). */
  private readonly keyed: ReadonlySet<number>;
  private closed = false;
  private wake: (() => void) | undefined = undefined;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly replicas: number,
    private readonly context: ClusterTaskContext,
    stores: LocalStores,
    private readonly membership: StandbyMembership,
    private readonly newStandby: (id: string) => Standby = (id) => new StandbyTask(id, context, stores),
  ) {
    const keyed = new Set<number>();
    context.topology.tasks.forEach((id, index) => {
      const sub = context.topology.subTopologies[Number(id.split('_')[0])]!;
      if (changelogTopicsOf(sub, context.jobId).length > 0) keyed.add(index);
    });
    this.keyed = keyed;
  }

  /** Starts placing and catching up. */
  start(): void {
    this.loop = this.run();
  }

  /** Re-describes the group soon (after a rebalance event), not at the end of the interval. */
  poke(): void {
    this.wake?.();
  }

  /** The tasks this process keeps standbys of now. */
  get tasks(): number[] {
    return [...this.standbys.keys()].sort((a, b) => a - b);
  }

  /** Stops the standbys of tasks this process was just assigned (each store is about to be its task's again). */
  async release(indexes: readonly number[]): Promise<void> {
    await Promise.all(
      indexes.map(async (index) => {
        const standby = this.standbys.get(index);
        if (standby === undefined) return;
        this.standbys.delete(index);
        await standby.stop();
        this.logStopped(standby, 'its task is assigned to this process');
      }),
    );
  }

  /** Stops placing and every standby. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.loop;
    const all = [...this.standbys.values()];
    this.standbys.clear();
    for (const standby of all) {
      await standby.stop();
      this.logStopped(standby, 'the process leaves');
    }
  }

  private async run(): Promise<void> {
    const intervalMs = this.context.commitIntervalMs * STANDBY_CATCH_UP_COMMITS;
    while (!this.closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        timer.unref();
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      if (this.closed) return;
      await this.round();
    }
  }

  /** One round: places the standbys from a description of the group, then catches each up in turn. */
  async round(): Promise<void> {
    try {
      await this.place();
    } catch (error) {
      // The next round describes the group again; the standbys placed so far stay.
      this.context.logger.warn(
        { job: this.context.jobId },
        `standby placement: ${(error as Error)?.message ?? String(error)}; trying again next round`,
      );
    }
    for (const standby of [...this.standbys.values()]) {
      if (this.closed) return;
      await this.catchUp(standby);
    }
  }

  /** Describes the group and starts and stops standbys to match the placement. */
  private async place(): Promise<void> {
    const view = await this.membership.describe();
    // Between rebalance rounds the assignments are not final: the standbys stay as they are until the next.
    if (!view.stable || view.self === undefined) return;
    const placed = new Set(
      standbyTasks(view.members, view.self, this.replicas).filter((t) => this.keyed.has(t)),
    );
    const { jobId, logger, topology } = this.context;
    await this.membership.inTurn(async () => {
      if (this.closed) return;
      for (const [index, standby] of [...this.standbys]) {
        if (placed.has(index) && !this.membership.owns(index)) continue;
        this.standbys.delete(index);
        await standby.stop();
        this.logStopped(standby, 'the placement moved it');
      }
      for (const index of placed) {
        if (this.standbys.has(index) || this.membership.owns(index)) continue;
        const standby = this.newStandby(topology.tasks[index]!);
        this.standbys.set(index, standby);
        logger.info({ job: jobId, task: standby.id }, `standby ${standby.id} started`);
      }
    });
  }

  private async catchUp(standby: Standby): Promise<void> {
    const { jobId, logger } = this.context;
    try {
      const done = await standby.catchUp();
      if (done === undefined) return;
      const first = standby.figures.catchUps === 1;
      const how =
        done.from === 'full'
          ? `in full (its checkpoint was not used: ${done.checkpointRejected ?? 'there is none'})`
          : 'from its checkpoint';
      const line =
        `standby ${standby.id} caught up ${how}: ${done.messages} changelog messages (${done.bytes} bytes) in ` +
        `${Math.round(done.ms)} ms${done.checkpointed ? '' : '; its checkpoint is not written (state not registered)'}`;
      if (first || done.from === 'full') logger.info({ job: jobId, task: standby.id }, line);
      else logger.debug({ job: jobId, task: standby.id }, line);
    } catch (error) {
      // A failed read leaves the store without a checkpoint at worst: the next catch-up (or the task) reads in full.
      logger.warn(
        { job: jobId, task: standby.id },
        `standby ${standby.id} failed to catch up: ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }

  private logStopped(standby: Standby, why: string): void {
    const f = standby.figures;
    this.context.logger.info(
      { job: this.context.jobId, task: standby.id },
      `standby ${standby.id} stopped (${why}) after ${f.catchUps} catch-ups reading ${f.messages} changelog ` +
        `messages (${f.bytes} bytes) in ${Math.round(f.ms)} ms`,
    );
  }
}
