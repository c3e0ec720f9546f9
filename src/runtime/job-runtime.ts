// JobRuntime: makes a StreamGraph physical (subtasks, routers, channels) and runs it to completion.
import { defaultLogger, type Logger } from '../core/logger.ts';
import { ConfigurationError, JobStalledError, WeirError } from '../core/errors.ts';
import type { StreamEdge, StreamGraph, StreamNode } from '../graph/stream-graph.ts';
import type { ProcessingTimeClock } from '../core/clock.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import type { JobSnapshot, OperatorSnapshot } from './job-snapshot.ts';
import { SourceOperator } from '../operators/source-operator.ts';
import { SourceWatermarkAlignment } from './source-watermark-alignment.ts';
import { SourceTurns } from './source-turns.ts';
import { mutableExchangeFigures } from './thread-exchange-figures.ts';
import type { PollResult } from '../core/source.ts';
import {
  BroadcastRouter,
  ForwardRouter,
  GlobalRouter,
  HashRouter,
  RebalanceRouter,
  type RecordRouter,
} from './record-router.ts';
import type { TwoInputStreamOperator, OneInputStreamOperator } from '../operators/stream-operator.ts';
import { canRedistribute, operatorStateShare } from '../operators/operator-state-distribution.ts';
import { Subtask, type JobServices } from './subtask.ts';
import { InputChannel } from './input-channel.ts';
import { SubtaskInput } from './subtask-input.ts';
import type { MetricGroupImpl } from '../metrics/metric-group.ts';
import type { MetricRegistry } from '../metrics/metric-registry.ts';
import { subtaskFigures, type SubtaskFigures } from './subtask-figures.ts';
import { BusyTimeTracker } from './busy-time-tracker.ts';
import { GaugeReadBudget } from '../metrics/gauge-read-budget.ts';
import { registerSubtaskMetrics } from './subtask-metrics.ts';
import type { SideOutputTap } from './subtask-output.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { CheckpointedJobSnapshot, CheckpointedOperatorSnapshot } from './checkpointed-job-snapshot.ts';
import { supportsIncrementalSnapshots } from '../state/incremental-snapshot.ts';
import type { StateBackend } from '../state/state-backend.ts';
import { takeSubtaskSnapshot, type SubtaskStateSnapshot } from './subtask-state-snapshot.ts';
import type { SubtaskPlacement } from './slot-placement.ts';
import type { JobAttempt, SubtaskRef } from './job-attempt.ts';
import type { ChannelWriter } from './record-router.ts';
import type { OutboundChannel } from './outbound-channel.ts';
import { CepOperator } from '../cep/operator/cep-operator.ts';
import type { PartialMatchQuery, SubtaskPartialMatches } from '../cep/operator/partial-match-snapshot.ts';

/**
 * Worker mode: milliseconds a thread polls its sources in one turn of the event loop before letting it run, so a
 * turn fills outbound batches instead of sending a message per source batch (see JobRuntime.endOfRound).
 */
export const SOURCE_TURN_MS = 2;

export interface JobRuntimeOptions {
  readonly clock: ProcessingTimeClock;
  readonly restoreFrom?: JobSnapshot;
  /** With restoreFrom: whether snapshot state for operators missing from this job may be ignored. */
  readonly allowNonRestoredState?: boolean;
  /** Where operators and sources log (default: stderr). */
  readonly logger?: Logger;
  readonly sideTap?: SideOutputTap;
  /** Creates keyed state backends (default: heap). */
  readonly stateBackend?: StateBackend;
  /** Whether a checkpoint coordinator drives this runtime (sinks then commit on checkpoints). */
  readonly checkpointing?: boolean;
  /** Receives each subtask's snapshot when its barrier aligned (the checkpoint coordinator). */
  /** The job's metric registry and group (metrics on); without it, metrics are off and no clock is read. */
  readonly metrics?: { readonly registry: MetricRegistry; readonly jobGroup: MetricGroupImpl };
  readonly onSubtaskSnapshot?: (
    subtask: SubtaskRef,
    barrier: CheckpointBarrier,
    snapshot: SubtaskStateSnapshot,
  ) => void;
  /** Hears a subtask give up aligning a checkpoint (the checkpoint coordinator fails that checkpoint). */
  readonly onCheckpointDeclined?: (subtask: SubtaskRef, checkpointId: number, reason: string) => void;
  /** Bytes a subtask's blocked channels may hold while aligning before it declines the checkpoint. */
  readonly maxAlignmentBytes?: number;
  /**
   * Worker mode: this runtime runs only the subtasks placed on its thread, and reaches the others through the
   * placement's exchange. Without it, every subtask runs here.
   */
  readonly placement?: SubtaskPlacement;
  /**
   * Worker mode: the slots of the job's aligned source subtasks (`SourceWatermarkAlignment.slotsFor`), shared by
   * every thread of the job. On one thread the runtime makes its own.
   */
  readonly watermarkAlignmentSlots?: Float64Array;
  /**
   * Worker mode: the batches polled by each source subtask of the job (`SourceTurns.slotsFor`), shared by every thread
   * of the job, so that a bounded source's subtasks on different threads keep within a few batches of each other.
   */
  readonly sourceTurnSlots?: Int32Array;
}

/** Per-operator counts reported when a job ends. */
export interface OperatorMetrics {
  readonly name: string;
  readonly parallelism: number;
  readonly recordsIn: number;
  readonly recordsOut: number;
  /** Checkpoint barrier alignments completed, over the operator's subtasks. */
  readonly alignments: number;
  /** Milliseconds spent aligning barriers, summed over the operator's subtasks. */
  readonly alignmentMs: number;
  /** The longest single alignment of any subtask, in milliseconds. */
  readonly maxAlignmentMs: number;
  /** The most bytes (estimated) one subtask's blocked channels held at once while aligning. */
  readonly peakAlignmentBufferedBytes: number;
  /** The most events one subtask's blocked channels held at once while aligning. */
  readonly peakAlignmentBufferedEvents: number;
}

/**
 * Owns every subtask of a job. Life cycle: construct (wire + restore), `open` (user `open`s, downstream first so
 * consumers are ready), `runSources` (until every bounded source ended, or failure), `close`. A failure anywhere
 * (a record, a timer, an async source) is recorded once; sources stop at their next batch and `runSources`
 * rejects with it.
 */
export class JobRuntime implements JobServices, JobAttempt {
  /** The subtasks that run on this thread, per node (all of them without a placement). */
  readonly subtasks = new Map<StreamNode, Subtask[]>();
  /** Per node, the subtask at each index when it runs on this thread. */
  private readonly byIndex = new Map<StreamNode, (Subtask | undefined)[]>();
  /** Channels to consumers on other threads, per producing subtask. */
  private readonly outboundOf = new Map<Subtask, OutboundChannel[]>();
  /** Each consumer subtask's input channels by input edge, while wiring. */
  private readonly channelsByEdge = new Map<Subtask, Map<StreamEdge, InputChannel[]>>();
  private failure: unknown = undefined;
  private failed = false;
  private failureListeners: ((error: unknown) => void)[] = [];
  /** Subtasks whose operators finish asynchronously (async I/O, async sinks), not yet finished. */
  // Stryker disable next-line ArrayDeclaration: a value in the list only makes settleFinishes await it once more
  private readonly pendingFinishes: Promise<void>[] = [];
  /** Per subtask, the channels from other threads whose records can reach it on this thread (worker mode). */
  private readonly remoteFeeders = new Map<Subtask, InputChannel[]>();
  /** Per node, the source subtasks whose records can reach it (computed on first backpressure). */
  private readonly upstreamSources = new Map<StreamNode, Subtask[]>();
  /** Stop-with-savepoint: sources stop after their pending barriers once this resolves true (false: go on). */
  private stopRequest: Promise<boolean> | undefined = undefined;
  /** What each source driver is doing, for stall detection and stall messages. */
  private readonly sourceStates = new Map<
    Subtask,
    'polling' | 'yielding' | 'backpressured' | 'held' | 'aligning' | 'turn' | 'stopping' | 'finished'
  >();
  /** Pauses source subtasks ahead of their watermark alignment group (undefined: no source is aligned). */
  private readonly alignment: SourceWatermarkAlignment | undefined;
  /** Worker mode: keeps bounded sources' subtasks on different threads within a few batches of each other. */
  private readonly turns: SourceTurns | undefined;
  readonly timing: BusyTimeTracker;
  /** When the current turn of the event loop began polling sources (worker mode, see {@link endOfRound}). */
  private turnStarted = 0;
  /** Subtasks of this thread that have finished, and who waits for all of them. */
  private finishedSubtasks = 0;
  private readonly allFinishedWaiters: (() => void)[] = [];
  readonly logger: Logger;
  /** When the gauges in the figures of {@link allSubtaskFigures} are read again. */
  private readonly gaugeReads = new GaugeReadBudget();

  constructor(
    readonly graph: StreamGraph,
    private readonly options: JobRuntimeOptions,
  ) {
    this.timing = new BusyTimeTracker(options.metrics !== undefined);
    const placement = options.placement;
    // Batches from other threads are roots of this job's busy time, as its source batches are.
    if (placement !== undefined) placement.exchange.timing = this.timing;
    this.alignment = SourceWatermarkAlignment.forJob(
      graph,
      options.watermarkAlignmentSlots ??
        (placement === undefined ? SourceWatermarkAlignment.slotsFor(graph, false) : undefined),
    );
    this.turns = placement !== undefined ? SourceTurns.forJob(graph, options.sourceTurnSlots) : undefined;
    this.logger = options.logger ?? defaultLogger();
    for (const node of graph.nodes) {
      const list: Subtask[] = [];
      const byIndex: (Subtask | undefined)[] = [];
      for (let i = 0; i < node.parallelism; i++) {
        const local = placement === undefined || placement.hostOf(node, i) === placement.host;
        const subtask = local ? new Subtask(node, i, this) : undefined;
        if (subtask !== undefined) list.push(subtask);
        byIndex.push(subtask);
      }
      this.subtasks.set(node, list);
      this.byIndex.set(node, byIndex);
    }
    for (const node of graph.nodes) this.wireInputs(node);
    for (const node of graph.nodes) this.wireOutputs(node);
    this.wireBackpressure();
    for (const list of this.subtasks.values()) for (const s of list) s.chainOutput();
    for (const list of this.subtasks.values()) for (const s of list) s.output.sideTap = options.sideTap;
    if (options.restoreFrom !== undefined) this.restore(options.restoreFrom);
    if (options.metrics !== undefined) {
      for (const list of this.subtasks.values()) for (const s of list) registerSubtaskMetrics(s);
      options.metrics.registry.addView(this.timing);
    }
  }

  /** Removes this attempt's subtask metrics from the registry (the attempt ended). */
  releaseMetrics(): void {
    const metrics = this.options.metrics;
    if (metrics === undefined) return;
    metrics.registry.removeView(this.timing);
    for (const list of this.subtasks.values())
      for (const s of list) metrics.registry.unregister(s.metricGroup);
  }

  get metricScope(): JobRuntimeOptions['metrics'] {
    return this.options.metrics;
  }

  get clock(): ProcessingTimeClock {
    return this.options.clock;
  }

  get stateBackend(): StateBackend | undefined {
    return this.options.stateBackend;
  }

  get checkpointingEnabled(): boolean {
    return this.options.checkpointing === true;
  }

  get restoredCheckpointId(): number | undefined {
    return (this.options.restoreFrom as Partial<CheckpointedJobSnapshot> | undefined)?.checkpointId;
  }

  /** Snapshots a subtask whose barrier aligned and hands the snapshot to the coordinator. */
  onBarrierAligned(subtask: Subtask, barrier: CheckpointBarrier): void {
    subtask.lastCheckpointId = Math.max(subtask.lastCheckpointId, barrier.id);
    const listener = this.options.onSubtaskSnapshot;
    if (listener === undefined) return;
    let snapshot: SubtaskStateSnapshot;
    try {
      snapshot = takeSubtaskSnapshot(subtask, barrier);
    } catch (error) {
      throw subtask.failure(error, undefined, `the snapshot for checkpoint ${barrier.id}`);
    }
    listener(subtask, barrier, snapshot);
  }

  /** A subtask gave up aligning a checkpoint (its blocked channels outgrew their bound). */
  onCheckpointDeclined(subtask: Subtask, checkpointId: number, reason: string): void {
    const n = subtask.node;
    this.options.onCheckpointDeclined?.(
      subtask,
      checkpointId,
      `'${n.name}' (${subtask.index + 1}/${n.parallelism}): ${reason}`,
    );
  }

  get maxAlignmentBytes(): number | undefined {
    return this.options.maxAlignmentBytes;
  }

  /**
   * Starts checkpoint `barrier.id`: running sources inject the barrier at their next batch boundary; subtasks
   * that already finished are snapshotted at once (they will see no barrier).
   */
  triggerCheckpoint(barrier: CheckpointBarrier): void {
    for (const node of this.graph.nodes) {
      const isSource = node.transformation.kind === 'source';
      for (const subtask of this.subtasksOf(node)) {
        // In worker mode the barrier may have reached this subtask from another thread, and it may have finished
        // since: it was snapshotted for this checkpoint already, and must not be again (a sink would stage twice).
        if (subtask.isFinished) {
          if (subtask.lastCheckpointId < barrier.id) this.onBarrierAligned(subtask, barrier);
        } else if (isSource) subtask.pendingBarriers.push(barrier);
      }
    }
  }

  /** Gives up on a checkpoint everywhere: sources drop its barrier, aligning subtasks release held channels. */
  abortCheckpoint(checkpointId: number): void {
    for (const list of this.subtasks.values())
      for (const subtask of list) subtask.abortCheckpoint(checkpointId);
  }

  /** Checkpoint `checkpointId` is durable: backends may build on it, operators (sinks) commit. */
  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    for (const list of this.subtasks.values()) {
      for (const subtask of list) {
        const backend = subtask.backend;
        if (supportsIncrementalSnapshots(backend)) backend.notifyCheckpointComplete(checkpointId);
        try {
          await subtask.operator.notifyCheckpointComplete(checkpointId);
        } catch (error) {
          throw subtask.failure(error, undefined, `the commit of checkpoint ${checkpointId}`);
        }
      }
    }
  }

  /**
   * Stop-with-savepoint: each running source injects its pending barriers (the savepoint's among them), then
   * waits for `decision`: true (the savepoint completed) ends it without end of input, as Flink stops without
   * draining; false (the savepoint failed) lets it go on polling.
   */
  stopSourcesAfterBarriers(decision: Promise<boolean>): void {
    this.stopRequest = decision;
  }

  /** Holds back or releases every source subtask upstream of `subtask` (asynchronous operators at capacity). */
  setBackpressure(subtask: Subtask, blocked: boolean): void {
    const sources = this.upstreamSources.get(subtask.node) ?? this.findUpstreamSources(subtask.node);
    for (const source of sources) {
      if (blocked) source.holdBack();
      else source.releaseHold();
    }
    // In worker mode records also come from other threads: their channels keep their credits while this holds.
    const feeders = this.remoteFeeders.get(subtask);
    if (feeders !== undefined) this.options.placement!.exchange.withhold(feeders, blocked);
  }

  /** The source subtasks whose records can reach `node` (kept for the next call). */
  private findUpstreamSources(node: StreamNode): Subtask[] {
    // A Set's iteration visits what is added while it runs: every node upstream, each once.
    const upstream = new Set([node]);
    for (const n of upstream) for (const edge of n.inputs) upstream.add(edge.source);
    const sources = [...upstream]
      .filter((n) => n.transformation.kind === 'source')
      .flatMap((n) => this.subtasksOf(n));
    this.upstreamSources.set(node, sources);
    return sources;
  }

  trackFinish(finished: Promise<void>): void {
    const tracked = finished.catch((error: unknown) => this.fail(error));
    this.pendingFinishes.push(tracked);
  }

  /**
   * Resolves once every subtask that finishes asynchronously has finished (one finishing may start another
   * downstream, so this repeats until none is pending). The job's failure, if any, is left to the caller.
   */
  async settleFinishes(): Promise<void> {
    while (this.pendingFinishes.length > 0 && !this.failed) {
      await Promise.all(this.pendingFinishes.splice(0));
    }
  }

  /** Stops the job: sources stop at their next batch and `runSources` rejects with `reason`. */
  cancel(reason: unknown): void {
    this.fail(reason);
  }

  /** Releases every keyed state backend (an on-disk backend deletes its working files). */
  disposeBackends(): void {
    for (const list of this.subtasks.values()) for (const subtask of list) subtask.backend?.dispose();
  }

  /** The figures of a node's subtasks on this thread, read now (with `places`, the metrics' places too). */
  subtaskFigures(node: StreamNode, places = false, gauges?: GaugeReadBudget): SubtaskFigures[] {
    const registry = this.options.metrics?.registry;
    return this.subtasksOf(node).map((s) => subtaskFigures(s, registry, places, gauges));
  }

  /**
   * The figures of every subtask on this thread, with places (a worker sends them to the main thread after every
   * metrics tick, whether or not anything reads them there): a gauge whose last read was costly is taken as read then
   * until its budget allows another read ({@link GaugeReadBudget}); with `latest`, every gauge is read now (the last
   * figures a worker sends, as it closes).
   */
  allSubtaskFigures(latest = false): { uid: string; figures: SubtaskFigures[] }[] {
    const gauges = latest ? undefined : this.gaugeReads;
    return [...this.subtasks.keys()].map((node) => ({
      uid: node.uid,
      figures: this.subtaskFigures(node, true, gauges),
    }));
  }

  /** The live partial matches of a CEP node's subtasks on this thread (none for other operators). */
  partialMatches(node: StreamNode, query: PartialMatchQuery): Promise<SubtaskPartialMatches[]> {
    return Promise.resolve(this.localPartialMatches(node, query));
  }

  /** {@link partialMatches}, read at once (the caller is on this thread, between record calls). */
  localPartialMatches(node: StreamNode, query: PartialMatchQuery): SubtaskPartialMatches[] {
    const out: SubtaskPartialMatches[] = [];
    for (const subtask of this.subtasksOf(node)) {
      if (subtask.operator instanceof CepOperator) out.push(subtask.operator.partialMatchSnapshot(query));
    }
    return out;
  }

  subtasksOf(node: StreamNode): Subtask[] {
    return this.subtasks.get(node)!;
  }

  /** Called by a subtask once its input ended (see {@link whenAllFinished}). */
  subtaskFinished(): void {
    if (++this.finishedSubtasks < this.localSubtaskCount) return;
    for (const wake of this.allFinishedWaiters.splice(0)) wake();
  }

  /** Resolves once every subtask on this thread has finished (worker mode: the thread's share of the job is done). */
  whenAllFinished(): Promise<void> {
    if (this.finishedSubtasks >= this.localSubtaskCount) return Promise.resolve();
    return new Promise((resolve) => this.allFinishedWaiters.push(resolve));
  }

  private get localSubtaskCount(): number {
    let n = 0;
    for (const list of this.subtasks.values()) n += list.length;
    return n;
  }

  /** Hears the job's failure (once), e.g. to report it to another thread. */
  onFailure(listener: (error: unknown) => void): void {
    this.failureListeners.push(listener);
  }

  fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.failure = error;
    for (const listener of this.failureListeners) listener(error);
  }

  get hasFailed(): boolean {
    return this.failed;
  }

  get failureCause(): unknown {
    return this.failure;
  }

  /** Opens every operator, consumers before producers. */
  /** No worker threads: nothing to wait for (see {@link JobAttempt.workerStartupMs}). */
  readonly workerStartupMs = 0;

  async open(): Promise<void> {
    const nodes = [...this.graph.nodes].reverse();
    for (const node of nodes) {
      for (const subtask of this.subtasksOf(node)) {
        try {
          await subtask.operator.open();
        } catch (error) {
          throw subtask.failure(error, undefined, 'open()');
        }
      }
    }
  }

  /** Drives every source subtask until all bounded sources have ended. Rejects with the job's failure. */
  async runSources(): Promise<void> {
    const failure = new Promise<never>((_, reject) => this.failureListeners.push(reject));
    failure.catch(() => {});
    const bounded: Subtask[] = [];
    const unbounded: Subtask[] = [];
    for (const node of this.graph.nodes) {
      if (node.transformation.kind !== 'source') continue;
      for (const subtask of this.subtasksOf(node)) {
        // Stryker disable next-line StringLiteral: describeWaits and checkForDeadlock read 'yielding' as any state they do not name
        this.sourceStates.set(subtask, 'yielding');
        this.alignment?.add(subtask);
        if ((subtask.operator as SourceOperator<unknown>).bounded) {
          this.turns?.add(subtask);
          bounded.push(subtask);
        } else unbounded.push(subtask);
      }
    }
    // Every source is known before the first driver runs: a driver held back at once checks for a deadlock over
    // all of them, and must not take a source that has not started yet for one that is not there.
    const drivers = unbounded.map((subtask) => this.driveSource(subtask));
    // Last subtask first: when a source has fewer splits (files, records) than subtasks, the last subtasks are
    // the empty ones, and they end before the others' first batch instead of holding its watermark back.
    drivers.push(this.driveInTurn(bounded.reverse()));
    const finished = async (): Promise<void> => {
      await Promise.all(drivers);
      await this.settleFinishes();
    };
    // Every driver catches what fails in it and fails the job: only `failure` rejects, once the job has failed.
    await Promise.race([finished(), failure]).catch(() => {});
    if (this.failed) throw this.failure;
  }

  /** Closes every operator (sources first) and stops timers; the first close failure is reported. */
  async close(): Promise<void> {
    let firstError: unknown = undefined;
    for (const node of this.graph.nodes) {
      for (const subtask of this.subtasksOf(node)) {
        subtask.timers?.stop();
        try {
          await subtask.operator.close();
        } catch (error) {
          firstError ??= subtask.failure(error, undefined, 'close()');
        }
      }
    }
    if (firstError !== undefined) throw firstError;
  }

  metrics(): OperatorMetrics[] {
    return this.graph.nodes.map((node) => {
      let recordsIn = 0;
      let recordsOut = 0;
      let alignments = 0;
      let alignmentMs = 0;
      let maxAlignmentMs = 0;
      let peakBytes = 0;
      let peakEvents = 0;
      for (const s of this.subtasksOf(node)) {
        for (const input of s.inputs) recordsIn += input.recordsIn;
        recordsOut += s.output.recordsOut;
        const a = s.aligner;
        if (a === undefined) continue;
        alignments += a.alignments;
        alignmentMs += a.alignmentMsTotal;
        maxAlignmentMs = Math.max(maxAlignmentMs, a.maxAlignmentMs);
        peakBytes = Math.max(peakBytes, a.peakBufferedBytes);
        peakEvents = Math.max(peakEvents, a.peakBufferedEvents);
      }
      return {
        name: node.name,
        parallelism: node.parallelism,
        recordsIn,
        recordsOut,
        alignments,
        alignmentMs,
        maxAlignmentMs,
        peakAlignmentBufferedBytes: peakBytes,
        peakAlignmentBufferedEvents: peakEvents,
      };
    });
  }

  /**
   * What each unfinished subtask is waiting for, one line each, e.g. "'out' (1/1) waits for a barrier from
   * channel 2 ('file' 1/1) since checkpoint 3": the body of a stall error.
   */
  describeWaits(): string[] {
    const lines: string[] = [];
    for (const node of this.graph.nodes) {
      const isSource = node.transformation.kind === 'source';
      for (const subtask of this.subtasksOf(node)) {
        if (subtask.isFinished) continue;
        const name = `'${node.name}' (${subtask.index + 1}/${node.parallelism})`;
        const aligning = subtask.aligner?.aligning;
        if (aligning !== undefined) {
          const waiting = subtask.aligner!.waitingOn();
          lines.push(
            `${name} waits for a barrier from ${waiting.map((c) => c.describe()).join(', ')} since checkpoint ${aligning.id}`,
          );
        } else if (isSource) {
          const state = this.sourceStates.get(subtask);
          if (state === 'backpressured' && subtask.blockedDownstream > 0) {
            const blocked = this.blockedChannelsFedBy(subtask);
            lines.push(`${name} is held back by blocked channel(s) ${blocked.join(', ')}`);
          } else if (state === 'held' && subtask.isHeldBack) {
            lines.push(`${name} is held back by an asynchronous operator at capacity`);
          } else if (state === 'polling') {
            lines.push(`${name} waits for its reader's pollNext() to settle`);
          } else if (state === 'aligning') {
            lines.push(`${name} is paused ahead of its watermark alignment group`);
          } else if (state === 'turn') {
            lines.push(`${name} waits for its source's subtasks on other threads to catch up`);
          } else if (state === 'stopping') {
            lines.push(`${name} waits for the savepoint to complete before it stops`);
          } else if (state === 'finished') {
            // Stopped with a savepoint, or by a failure: its subtask never saw the end of its input.
            lines.push(`${name} stopped before the end of its input`);
          } else {
            lines.push(`${name} waits for its next turn on the event loop`);
          }
        } else {
          const open = subtask.channels.filter((c) => !c.ended);
          lines.push(
            `${name} waits for records or end of input from ${open.map((c) => c.describe()).join(', ')}`,
          );
        }
      }
    }
    return lines;
  }

  /** The blocked channels a source's records can reach, described with their consumer and checkpoint. */
  private blockedChannelsFedBy(source: Subtask): string[] {
    const out: string[] = [];
    for (const list of this.subtasks.values()) {
      for (const consumer of list) {
        for (const c of consumer.channels) {
          if (!c.blocked || !c.sources.includes(source)) continue;
          const n = consumer.node;
          out.push(
            `${c.describe()} of '${n.name}' (${consumer.index + 1}/${n.parallelism}) for checkpoint ${consumer.aligner!.aligning!.id}`,
          );
        }
      }
    }
    return out;
  }

  snapshot(): JobSnapshot {
    const operators: Record<string, OperatorSnapshot> = {};
    for (const node of this.graph.nodes) {
      const subtasks = this.subtasksOf(node);
      for (const s of subtasks) if (s.backend !== undefined) s.operator.prepareKeyedStateSnapshot();
      operators[node.uid] = {
        parallelism: node.parallelism,
        keyedState: subtasks.flatMap((s) => s.backend?.snapshot() ?? []),
        timers: subtasks.flatMap((s) => s.timers?.snapshot(node.maxParallelism) ?? []),
        operatorState: subtasks.map((s) => s.operator.snapshotOperatorState()),
      };
    }
    return { version: 1, operators };
  }

  private restore(snapshot: JobSnapshot): void {
    if (snapshot?.version !== 1 || typeof snapshot.operators !== 'object') {
      throw new ConfigurationError('Not a Weir job snapshot (missing version 1 marker)');
    }
    const known = new Set(this.graph.nodes.map((n) => n.uid));
    const unknown = Object.keys(snapshot.operators).filter((uid) => !known.has(uid));
    const orphaned = unknown.filter((uid) => {
      const op = snapshot.operators[uid]!;
      return (
        op.keyedState.length > 0 || op.timers.length > 0 || op.operatorState.some((s) => s !== undefined)
      );
    });
    if (orphaned.length > 0 && this.options.allowNonRestoredState !== true) {
      throw new ConfigurationError(
        `The snapshot holds state for operator uid(s) ${orphaned.map((u) => `'${u}'`).join(', ')} that this job does not have; set uids to match or allow non-restored state`,
      );
    }
    for (const node of this.graph.nodes) {
      const op = snapshot.operators[node.uid];
      if (op === undefined) continue;
      if ((op.keyedState.length > 0 || op.timers.length > 0) && !node.transformation.isKeyed) {
        throw new ConfigurationError(
          `Operator '${node.name}' (uid '${node.uid}') is not keyed, but the snapshot holds keyed state for it`,
        );
      }
      const finished = (op as Partial<CheckpointedOperatorSnapshot>).finished;
      // A subtask finished at the checkpoint must not run again (its end-of-input output was already emitted).
      // At another parallelism that is only known when every old subtask had finished.
      const allFinished = finished !== undefined && finished.length > 0 && finished.every(Boolean);
      const subtasks = this.subtasksOf(node);
      // In worker mode a thread may hold none of the node's subtasks: the threads that hold them check and restore.
      if (subtasks.length === 0) continue;
      const distribution = subtasks[0]!.operator.operatorStateDistribution;
      if (!allFinished && !canRedistribute(distribution, op.operatorState, node.parallelism)) {
        throw new ConfigurationError(
          `Operator '${node.name}' (uid '${node.uid}') cannot be restored at parallelism ${node.parallelism} from a snapshot taken at parallelism ${op.parallelism}: its operator state is kept per subtask and cannot be reassigned exactly; restore it at parallelism ${op.parallelism}`,
        );
      }
      subtasks.forEach((subtask) => {
        // In worker mode this thread holds only some subtasks: the share follows the subtask's own index.
        const i = subtask.index;
        subtask.backend?.restore(op.keyedState);
        subtask.timers?.restore(op.timers);
        const share = operatorStateShare(distribution, op.operatorState, i, node.parallelism);
        if (share !== undefined) subtask.operator.restoreOperatorState(share);
        const sameShape = op.parallelism === node.parallelism;
        if (allFinished || (sameShape && finished?.[i] === true)) subtask.markRestoredFinished();
      });
    }
  }

  /**
   * Drives bounded source subtasks one batch each in turn, in the given order, awaiting an asynchronous poll before
   * the next subtask polls. The interleaving of their batches downstream, and with it every combined watermark
   * a record meets, is then the same on every run (unbounded sources run on their own: their timing is input).
   * A subtask blocked by barrier alignment skips its turns until released, so checkpoints, which are taken on
   * processing time, may shift how batches interleave.
   */
  private async driveInTurn(subtasks: Subtask[]): Promise<void> {
    const active: Subtask[] = [];
    const turns = this.turns;
    for (const subtask of subtasks) {
      // A source that had finished before the restored checkpoint only re-emits its end of stream.
      if (subtask.wasRestoredFinished) {
        turns?.leaveOut(subtask);
        this.endSource(subtask);
      } else active.push(subtask);
    }
    const alignment = this.alignment;
    while (active.length > 0) {
      let polledAny = false;
      /** The shortest pause of a subtask paused by watermark alignment in this round (Infinity: none was). */
      let alignmentPause = Number.POSITIVE_INFINITY;
      /** A subtask that waited in this round for its source's subtasks on other threads. */
      let turnWait: Subtask | undefined = undefined;
      for (let i = 0; i < active.length;) {
        if (this.failed) return;
        const subtask = active[i]!;
        let result: PollResult;
        try {
          // Barriers go in at batch boundaries: every record emitted so far precedes them.
          injectBarriers(subtask);
          if (this.stopRequest !== undefined) {
            const request = this.stopRequest;
            // The whole group waits for the savepoint, which needs the barrier of every subtask: each one that
            // has not had its turn yet injects its barriers now.
            for (const s of active) {
              injectBarriers(s);
              this.sourceStates.set(s, 'stopping');
            }
            if (await request) {
              // Stopped with a savepoint: every subtask of this group stops here, without end of input.
              for (const s of active) {
                (s.operator as SourceOperator<unknown>).stopWatermarks();
                turns?.leaveOut(s);
                this.sourceStates.set(s, 'finished');
              }
              return;
            }
            if (this.stopRequest === request) this.stopRequest = undefined;
            continue;
          }
          if (subtask.blockedDownstream > 0) {
            // A channel it feeds is blocked while a barrier aligns: the turn passes to the others, whose
            // barriers release it (waiting here could wait for a barrier only a later turn injects).
            this.sourceStates.set(subtask, 'backpressured');
            turns?.leaveOut(subtask);
            i++;
            continue;
          }
          if (subtask.isHeldBack) {
            // An asynchronous operator downstream is at capacity: the turn waits for room, keeping the order.
            this.sourceStates.set(subtask, 'held');
            await this.timing.waitBackPressured(subtask.time, subtask.whenReleased());
            continue;
          }
          if (alignment !== undefined && alignment.mustPause(subtask)) {
            // Ahead of its alignment group: the turn passes to the others (whose polls move the group's lowest).
            // Nor do its source's subtasks on other threads wait for its batches meanwhile: they may be behind in
            // event time, which is what it waits for.
            this.sourceStates.set(subtask, 'aligning');
            alignmentPause = Math.min(alignmentPause, alignment.pauseMs(subtask));
            turns?.leaveOut(subtask);
            i++;
            continue;
          }
          if (turns !== undefined && turns.mustWait(subtask)) {
            // Batches ahead of its source's subtask furthest behind on another thread: the turn passes.
            this.sourceStates.set(subtask, 'turn');
            turnWait = subtask;
            i++;
            continue;
          }
          this.sourceStates.set(subtask, 'polling');
          const started = this.timing.beginBatch();
          let polled: PollResult | Promise<PollResult>;
          try {
            polled = (subtask.operator as SourceOperator<unknown>).pollNext();
          } finally {
            this.timing.endBatch(subtask.time, started);
          }
          result = typeof polled === 'string' ? polled : await polled;
          alignment?.publish(subtask);
          turns?.polled(subtask);
          polledAny = true;
        } catch (error) {
          this.sourceStates.set(subtask, 'finished');
          this.fail(error instanceof WeirError ? error : subtask.failure(error));
          return;
        }
        if (result === 'end') {
          alignment?.finished(subtask);
          turns?.leaveOut(subtask);
          this.endSource(subtask);
          active.splice(i, 1);
        } else {
          // Stryker disable next-line StringLiteral: describeWaits and checkForDeadlock read 'yielding' as any state they do not name
          this.sourceStates.set(subtask, 'yielding');
          i++;
        }
      }
      if (!polledAny && alignmentPause !== Number.POSITIVE_INFINITY) {
        // Every subtask that could poll is ahead of its group, whose lowest is on another thread or an unbounded
        // source: look again after the group's update interval (barriers and stops still go in meanwhile).
        await this.alignmentPause(alignmentPause);
        continue;
      }
      if (!polledAny && turnWait !== undefined) {
        // Every subtask that could poll waits for its source's subtasks on other threads: look again once the one
        // waited for polls, or shortly (this thread meanwhile takes their batches, and barriers and stops go in).
        await this.turnWait(turnWait);
        continue;
      }
      if (!polledAny) {
        // Every remaining subtask is blocked downstream: wait until one is released (or report a stall).
        this.checkForDeadlock();
        await Promise.race(active.map((s) => s.whenDownstreamReleased()));
        continue;
      }
      // Let timers, other sources and I/O run between rounds (in worker mode once the turn's budget is spent).
      const turn = this.endOfRound();
      if (turn !== undefined) await turn;
    }
  }

  /**
   * After a source batch: a promise to await when the source driver should let the event loop run now, or
   * undefined to poll on in this turn. On one thread that is after every batch. In worker mode a thread polls its
   * sources for up to {@link SOURCE_TURN_MS} per turn, because its outbound batches are sent when full or at the end
   * of the turn: yielding after every source batch sent each as a message of a few hundred events, and every message
   * costs a wake-up of the consumer's thread and a credit coming back. Grants, barriers and timers wait at most that
   * long; a congested channel still stops the source at once (it awaits the credit, which ends the turn). The
   * interleaving of bounded sources' batches stays round-robin, as on one thread.
   */
  private endOfRound(): Promise<void> | undefined {
    if (this.options.placement !== undefined && performance.now() - this.turnStarted < SOURCE_TURN_MS) {
      return undefined;
    }
    return yieldToEventLoop().then(() => {
      this.turnStarted = performance.now();
    });
  }

  /** The end of a source subtask: pending barriers, the last periodic watermark, the final one, end of input. */
  private endSource(subtask: Subtask): void {
    if (this.failed) return;
    try {
      const operator = subtask.operator as SourceOperator<unknown>;
      injectBarriers(subtask);
      if (!subtask.wasRestoredFinished) operator.finishWatermarks();
      if (operator.bounded) {
        // A source whose splits have all finished declared itself idle, and idle channels are left out of the
        // downstream minimum: it becomes active again for its final watermark (Flink's WatermarkToDataOutput marks
        // an idle output active before emitting a watermark).
        if (subtask.output.idle) subtask.output.emitWatermarkStatus(false);
        subtask.output.emitWatermark(MAX_WATERMARK);
      }
      this.sourceStates.set(subtask, 'finished');
      subtask.finish();
      this.checkForDeadlock();
    } catch (error) {
      this.sourceStates.set(subtask, 'finished');
      this.fail(error instanceof WeirError ? error : subtask.failure(error));
    }
  }

  private async driveSource(subtask: Subtask): Promise<void> {
    const operator = subtask.operator as SourceOperator<unknown>;
    const timing = this.timing;
    try {
      // A source that had finished before the restored checkpoint only re-emits its end of stream.
      while (!subtask.wasRestoredFinished) {
        if (this.failed) return;
        // Barriers go in at batch boundaries: every record emitted so far precedes them.
        injectBarriers(subtask);
        if (this.stopRequest !== undefined) {
          const request = this.stopRequest;
          this.sourceStates.set(subtask, 'stopping');
          if (await request) {
            operator.stopWatermarks();
            this.sourceStates.set(subtask, 'finished');
            return;
          }
          if (this.stopRequest === request) this.stopRequest = undefined;
          continue;
        }
        if (subtask.blockedDownstream > 0) {
          // Backpressure: a channel this source feeds is blocked while a barrier aligns. Polling resumes once it
          // is released; a barrier that comes due meanwhile goes in on resumption, ahead of the next batch.
          this.sourceStates.set(subtask, 'backpressured');
          this.checkForDeadlock();
          await timing.waitBackPressured(subtask.time, subtask.whenDownstreamReleased());
          continue;
        }
        if (subtask.isHeldBack) {
          // Backpressure: an asynchronous operator downstream is at capacity. Polling resumes once it has room;
          // a barrier that comes due meanwhile goes in on resumption, ahead of the next batch.
          this.sourceStates.set(subtask, 'held');
          await timing.waitBackPressured(subtask.time, subtask.whenReleased());
          continue;
        }
        if (this.alignment !== undefined && this.alignment.mustPause(subtask)) {
          // Ahead of its watermark alignment group: look again after the group's update interval.
          this.sourceStates.set(subtask, 'aligning');
          await this.alignmentPause(this.alignment.pauseMs(subtask));
          continue;
        }
        this.sourceStates.set(subtask, 'polling');
        const started = timing.beginBatch();
        let polled: PollResult | Promise<PollResult>;
        try {
          polled = operator.pollNext();
        } finally {
          timing.endBatch(subtask.time, started);
        }
        const result = typeof polled === 'string' ? polled : await polled;
        this.alignment?.publish(subtask);
        if (result === 'end') break;
        // Stryker disable next-line StringLiteral: describeWaits and checkForDeadlock read 'yielding' as any state they do not name
        this.sourceStates.set(subtask, 'yielding');
        // Let timers, other sources and I/O run between batches (in worker mode once the turn's budget is spent).
        const turn = this.endOfRound();
        if (turn !== undefined) await turn;
      }
      this.alignment?.finished(subtask);
      this.endSource(subtask);
    } catch (error) {
      this.sourceStates.set(subtask, 'finished');
      this.fail(error instanceof WeirError ? error : subtask.failure(error));
    }
  }

  /**
   * Waits `ms` of real time for a source paused by watermark alignment (a timer, not the job's clock: a manual clock
   * in a test would never end the pause); the driver then sees a failure, a stop or a barrier that came meanwhile.
   * Each pause and its length go into the thread's exchange figures (per pause, not per record).
   */
  private alignmentPause(ms: number): Promise<void> {
    const figures = mutableExchangeFigures();
    const started = performance.now();
    return new Promise<void>((resolve) => setTimeout(resolve, ms)).then(() => {
      figures.alignmentPauses++;
      figures.alignmentPausedMs += performance.now() - started;
    });
  }

  /** Waits until the subtask `subtask` waits for on another thread polls, or briefly (see SourceTurns.waitFor). */
  private turnWait(subtask: Subtask): Promise<void> {
    const figures = mutableExchangeFigures();
    const started = performance.now();
    return this.turns!.waitFor(subtask).then(() => {
      figures.turnWaits++;
      figures.turnWaitMs += performance.now() - started;
    });
  }

  /**
   * Fails the job when no source can make progress although the job is not finished: every source is finished
   * or held back by backpressure, and some subtask still aligns a barrier. Nothing could ever release it (no
   * record or barrier will arrive), so waiting would hang the job with nothing scheduled.
   */
  private checkForDeadlock(): void {
    // In worker mode a barrier or a credit from another thread may release any source here: no local deadlock.
    if (this.failed || this.options.placement !== undefined) return;
    let held = false;
    for (const [source, state] of this.sourceStates) {
      if (state === 'finished') continue;
      // A released source counts as running even before its driver has resumed (that is a microtask away). One
      // held back by an asynchronous operator at capacity waits for that operator's calls: not a deadlock.
      if (state !== 'backpressured' || source.blockedDownstream === 0 || source.isHeldBack) return;
      held = true;
    }
    if (!held) return;
    this.fail(
      new JobStalledError(
        this.describeWaits(),
        'Every source is finished or held back, yet the job is not done',
      ),
    );
  }

  /**
   * Creates each subtask's inputs and input channels: one channel per (producer subtask, consumer subtask) pair
   * on every edge (one for a forward edge), numbered over the consumer's input edges in order.
   */
  private wireInputs(node: StreamNode): void {
    const backendOf = (s: Subtask) => s.backend;
    for (const subtask of this.subtasksOf(node)) {
      const op = subtask.operator as Partial<
        OneInputStreamOperator<unknown, unknown> & TwoInputStreamOperator<unknown, unknown, unknown>
      >;
      const inputs = node.transformation.inputs.length;
      for (let i = 0; i < inputs; i++) {
        const slot = inputs === 2 ? (i === 0 ? 1 : 2) : 0;
        const entry = slot === 0 ? op.processElement : slot === 1 ? op.processElement1 : op.processElement2;
        if (typeof entry !== 'function') {
          throw new ConfigurationError(`Operator '${node.name}' cannot take input ${i + 1}`);
        }
        subtask.inputs.push(
          new SubtaskInput(
            subtask,
            op,
            slot,
            node.transformation.keySelectors[i],
            backendOf(subtask),
            this.timing,
          ),
        );
      }
      const channels: InputChannel[] = [];
      const byEdge = new Map<StreamEdge, InputChannel[]>();
      const placement = this.options.placement;
      for (const edge of node.inputs) {
        const input = subtask.inputs[edge.inputIndex]!;
        const producers = this.byIndex.get(edge.source)!;
        const indexes = edge.partitioning.kind === 'forward' ? [subtask.index] : producers.map((_, p) => p);
        const list = indexes.map((p) => {
          const producer = producers[p] ?? { node: edge.source, index: p };
          const channel = new InputChannel(input, channels.length, producer);
          channels.push(channel);
          // Only a placement leaves a producer off this thread.
          if (producers[p] === undefined) {
            placement!.exchange.openInbound(
              edge,
              p,
              subtask.index,
              placement!.hostOf(edge.source, p),
              channel,
            );
          }
          return channel;
        });
        byEdge.set(edge, list);
      }
      this.channelsByEdge.set(subtask, byEdge);
      subtask.setChannels(channels);
    }
  }

  private wireOutputs(node: StreamNode): void {
    const producers = this.subtasksOf(node);
    for (const edge of node.outputs) {
      const consumers = this.byIndex.get(edge.target)!;
      for (const producer of producers) {
        const index = producer.index;
        /** Local channels that can never block (only barrier alignment blocks), by the router's target index. */
        const unblockable = new Map<number, InputChannel>();
        const target = (c: number): ChannelWriter => {
          const consumer = consumers[c];
          if (consumer !== undefined) {
            const channels = this.channelsByEdge.get(consumer)!.get(edge)!;
            const channel = channels[edge.partitioning.kind === 'forward' ? 0 : index]!;
            if (consumer.aligner === undefined)
              unblockable.set(edge.partitioning.kind === 'forward' ? 0 : c, channel);
            return channel;
          }
          const placement = this.options.placement!;
          const channel = placement.exchange.openOutbound(edge, index, c, placement.hostOf(edge.target, c));
          let list = this.outboundOf.get(producer);
          if (list === undefined) this.outboundOf.set(producer, (list = []));
          list.push(channel);
          return channel;
        };
        const router =
          edge.partitioning.kind === 'forward'
            ? new ForwardRouter(target(index))
            : this.router(
                edge,
                consumers.map((_, c) => target(c)),
                index,
              );
        // A channel that never blocks passes records on unchanged: the router hands them to the input itself.
        for (const [c, channel] of unblockable) router.deliverRecords(c, channel.input);
        if (edge.sideTag !== undefined) producer.output.addSide(edge.sideTag.id, router);
        else producer.output.addMain(router);
      }
    }
  }

  /** Tells every channel which source subtasks feed it, so a blocked channel can hold those sources back. */
  private wireBackpressure(): void {
    const sourcesOf = new Map<Subtask, Set<Subtask>>();
    const remoteOf = new Map<Subtask, Set<InputChannel>>();
    const local = (channel: InputChannel): Subtask | undefined =>
      this.byIndex.get(channel.producer.node)![channel.producer.index];
    // Memoised: a subtask's sets are computed once however many consumers reach it.
    const visit = (subtask: Subtask): Set<Subtask> => sourcesOf.get(subtask) ?? collect(subtask);
    const collect = (subtask: Subtask): Set<Subtask> => {
      const set = new Set<Subtask>();
      const remote = new Set<InputChannel>();
      if (subtask.node.transformation.kind === 'source') set.add(subtask);
      for (const channel of subtask.channels) {
        const producer = local(channel);
        if (producer === undefined) {
          remote.add(channel);
          continue;
        }
        for (const s of visit(producer)) set.add(s);
        for (const c of remoteOf.get(producer)!) remote.add(c);
      }
      sourcesOf.set(subtask, set);
      remoteOf.set(subtask, remote);
      return set;
    };
    for (const list of this.subtasks.values()) {
      for (const subtask of list) {
        for (const channel of subtask.channels) {
          const producer = local(channel);
          channel.sources = producer === undefined ? [] : [...visit(producer)];
        }
      }
    }
    if (this.options.placement !== undefined) {
      for (const list of this.subtasks.values()) {
        for (const subtask of list) {
          visit(subtask);
          this.remoteFeeders.set(subtask, [...remoteOf.get(subtask)!]);
        }
      }
    }
    // An outbound channel out of credit holds back what feeds it on this thread: sources, and remote channels.
    for (const [producer, channels] of this.outboundOf) {
      const sources = [...visit(producer)];
      const feeders = [...remoteOf.get(producer)!];
      for (const channel of channels)
        this.options.placement!.exchange.wireCongestion(channel, sources, feeders);
    }
  }

  private router(edge: StreamEdge, targets: ChannelWriter[], index: number): RecordRouter {
    const p = edge.partitioning;
    switch (p.kind) {
      case 'hash':
        return new HashRouter(targets, p.keySelector!, edge.target.maxParallelism);
      case 'broadcast':
        return new BroadcastRouter(targets);
      case 'global':
        return new GlobalRouter(targets);
      default:
        return new RebalanceRouter(targets, index);
    }
  }
}

/** Injects a source subtask's pending barriers: snapshot its position, then send the barrier downstream. */
function injectBarriers(subtask: Subtask): void {
  const pending = subtask.pendingBarriers;
  while (pending.length > 0) subtask.barrierAligned(pending.shift()!);
}

/** Resolves on the next turn of the event loop (after I/O and timers), so a long source cannot starve them. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
