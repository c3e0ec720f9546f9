// ThreadedJobRuntime: one attempt of a job across worker threads, driven from the main thread.
import { MessageChannel, type MessagePort, type ResourceLimits, type Worker } from 'node:worker_threads';
import { WeirError } from '../../core/errors.ts';
import type { StreamGraph, StreamNode } from '../../graph/stream-graph.ts';
import type { CheckpointBarrier } from '../../runtime/checkpoint-barrier.ts';
import type { JobAttempt, SubtaskRef } from '../../runtime/job-attempt.ts';
import { JobRuntime, type JobRuntimeOptions, type OperatorMetrics } from '../../runtime/job-runtime.ts';
import type { SubtaskFigures } from '../../runtime/subtask-figures.ts';
import { MAIN_THREAD, slotHost } from '../../runtime/slot-placement.ts';
import { SourceWatermarkAlignment } from '../../runtime/source-watermark-alignment.ts';
import { SourceTurns } from '../../runtime/source-turns.ts';
import { ThreadExchange } from '../../runtime/thread-exchange.ts';
import { spawnWorker } from './spawn-worker.ts';
import { keepIdleWorker, poolKey, takeIdleWorker } from './worker-pool.ts';
import { WorkerMetricMirror } from './worker-metric-mirror.ts';
import type { PartialMatchQuery, SubtaskPartialMatches } from '../../cep/operator/partial-match-snapshot.ts';
import type { JobLocation } from './job-locator.ts';
import {
  deserializeError,
  graphFingerprint,
  serializeError,
  type FromWorker,
  type ToWorker,
  type WorkerEnvironmentDefaults,
  type WorkerSlotData,
} from './worker-messages.ts';

/** How a job runs across threads. */
export interface WorkerSettings {
  /** Worker threads (2 or more). */
  readonly workers: number;
  /** The module each worker imports to build the job (a file URL). */
  readonly jobModule: string;
  /** Where a job locator found the job, when one did. */
  readonly location?: JobLocation;
  readonly jobName: string;
  /** The launcher's environment defaults that shape the graph, for the workers' environments. */
  readonly environmentDefaults: WorkerEnvironmentDefaults;
  /** Keep the workers after a clean close for the process's next job, and take kept ones (worker-pool.ts). */
  readonly reuseWorkers?: boolean;
  /** The workers' heap limits (Node's `resourceLimits`), over {@link DEFAULT_WORKER_RESOURCE_LIMITS}. */
  readonly resourceLimits?: ResourceLimits;
}

/**
 * The heap limits a worker starts with unless the job sets others (`workerResourceLimits`; a limit it leaves out
 * keeps this default). A young generation of up to 192 MB (semi-spaces of 64 MB) is what Node 24's threads may grow
 * to by default; Node 20 stops at 48 MB (semi-spaces of 16 MB), where session windows and CEP, whose windows and
 * partial matches live seconds of event time, scavenged and copied their survivors about twice as often: on Node 20
 * this default cut weir-p2's process CPU by 12-13 % on sessions and 8-24 % on CEP (docs/performance.md, "Where a worker
 * thread's time goes"). V8 grows the young generation only while many young objects survive, so a job with little
 * state does not reach it.
 */
export const DEFAULT_WORKER_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 192 };

/** One worker thread of the attempt and what the main thread knows of it. */
interface WorkerState {
  readonly host: number;
  readonly worker: Worker;
  ready: boolean;
  sourcesDone: boolean;
  finished: boolean;
  exited: boolean;
  closing: boolean;
  metrics: OperatorMetrics[] | undefined;
  closeError: Error | undefined;
  closed: (() => void) | undefined;
  /** Kept for the next job (the attempt no longer owns it). */
  kept: boolean;
  /** The attempt's listeners on the worker, removed when it is kept. */
  readonly listeners: {
    message: (m: FromWorker) => void;
    error: (e: Error) => void;
    exit: (code: number) => void;
  };
}

const ENTRY = new URL(`./worker-entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/**
 * The main thread's side of worker mode. It spawns one worker per slot group (`workers`), each of which imports the
 * job module again and runs the subtasks of its slots (see slot-placement.ts); it runs the subtasks pinned to the
 * main thread itself (sinks that keep their records here). Ports between every pair of threads carry the
 * exchanges; the workers' control ports carry the life cycle and the checkpoints: the coordinator on this thread
 * triggers a checkpoint in every worker, receives one acknowledgement per subtask with its snapshot, and tells the
 * workers when it is durable. A worker that fails, throws or exits fails the attempt, and every worker is
 * terminated when the attempt ends, so a restart starts fresh workers from the latest checkpoint.
 */
export class ThreadedJobRuntime implements JobAttempt {
  /** The main thread's share (pinned sinks); its exchange reaches the workers. */
  readonly local: JobRuntime;
  private readonly exchange: ThreadExchange;
  private readonly workers: WorkerState[] = [];
  private failed = false;
  private failure: unknown = undefined;
  private readonly failureListeners: ((error: unknown) => void)[] = [];
  private progress: (() => void) | undefined = undefined;
  private stopped = false;
  private readonly refs = new Map<string, SubtaskRef>();
  /** Checkpoint completions waiting for workers' commits: the hosts yet to confirm, by checkpoint id. */
  private readonly completions = new Map<
    number,
    { waiting: Set<number>; done: () => void; fail: (e: unknown) => void }
  >();
  private closedMetrics: OperatorMetrics[][] = [];
  workerStartupMs = 0;
  /** Partial-match requests waiting for workers' answers, by request number. */
  private readonly partialMatchRequests = new Map<
    number,
    { remaining: Set<number>; subtasks: SubtaskPartialMatches[]; done: () => void }
  >();
  private nextPartialMatchRequest = 1;
  /** The workers' subtask figures as of their last metrics tick, by operator uid, then subtask index. */
  private readonly remoteFigures = new Map<string, SubtaskFigures[]>();
  /** The workers' subtask metrics in this thread's registry, for its reporters (metrics on). */
  private readonly mirror: WorkerMetricMirror | undefined;

  /** Whether this attempt takes kept workers and keeps its own (never for a located job: see reuseWorkers). */
  private readonly reuse: boolean;
  private readonly poolKey: string;

  constructor(
    readonly graph: StreamGraph,
    private readonly options: JobRuntimeOptions,
    private readonly settings: WorkerSettings,
  ) {
    // A job locator's module is imported once per worker (its jobs run in turn inside it): a kept worker would not
    // run it again.
    this.reuse = settings.reuseWorkers === true && settings.location === undefined;
    const resourceLimits = { ...DEFAULT_WORKER_RESOURCE_LIMITS, ...settings.resourceLimits };
    this.poolKey = poolKey(process.argv.slice(2), resourceLimits);
    const count = settings.workers;
    const hosts = [MAIN_THREAD];
    for (let h = 1; h <= count; h++) hosts.push(h);
    const ports = new Map<number, Map<number, MessagePort>>(hosts.map((h) => [h, new Map()]));
    for (let a = 0; a < hosts.length; a++) {
      for (let b = a + 1; b < hosts.length; b++) {
        const { port1, port2 } = new MessageChannel();
        ports.get(hosts[a]!)!.set(hosts[b]!, port1);
        ports.get(hosts[b]!)!.set(hosts[a]!, port2);
      }
    }
    this.exchange = new ThreadExchange(graph, ports.get(MAIN_THREAD)!, (error) => this.fail(error));
    // One slot per aligned source subtask, in memory every thread of the job shares (see SourceWatermarkAlignment).
    const alignmentSlots = SourceWatermarkAlignment.slotsFor(graph, true);
    // One count of batches per source subtask, shared likewise (see SourceTurns).
    const turnSlots = SourceTurns.slotsFor(graph);
    this.local = new JobRuntime(graph, {
      ...options,
      ...(alignmentSlots !== undefined ? { watermarkAlignmentSlots: alignmentSlots } : {}),
      ...(turnSlots !== undefined ? { sourceTurnSlots: turnSlots } : {}),
      placement: {
        host: MAIN_THREAD,
        hostOf: (node, i) => slotHost(node, i, count),
        exchange: this.exchange,
      },
    });
    this.local.onFailure((error) => this.fail(error));
    this.mirror = options.metrics !== undefined ? new WorkerMetricMirror(options.metrics, graph) : undefined;
    const fingerprint = graphFingerprint(graph);
    for (let host = 1; host <= count; host++) {
      const own = ports.get(host)!;
      const slot: WorkerSlotData = {
        jobModule: settings.jobModule,
        location: settings.location,
        jobName: settings.jobName,
        environmentDefaults: settings.environmentDefaults,
        fingerprint,
        host,
        workers: count,
        ports: Object.fromEntries(own),
        restoreFrom: options.restoreFrom,
        allowNonRestoredState: options.allowNonRestoredState === true,
        checkpointing: options.checkpointing === true,
        maxAlignmentBytes: options.maxAlignmentBytes,
        watermarkAlignmentSlots: alignmentSlots,
        sourceTurnSlots: turnSlots,
        metrics:
          options.metrics !== undefined
            ? {
                intervalMs: options.metrics.registry.intervalMs,
                jobVariables: { ...options.metrics.jobGroup.getAllVariables() },
              }
            : undefined,
      };
      // A worker kept from an earlier job of this process is handed this job's slot; otherwise a new one starts.
      const kept = this.reuse ? takeIdleWorker(this.poolKey) : undefined;
      if (kept !== undefined) {
        kept.postMessage(
          { type: 'attach', slot, env: { ...process.env } as Record<string, string> } satisfies ToWorker,
          [...own.values()],
        );
      }
      const worker =
        kept ??
        spawnWorker(ENTRY, {
          workerData: { weirSlot: slot },
          transferList: [...own.values()],
          // The job module sees the process's arguments, as on the main thread.
          argv: process.argv.slice(2),
          name: `weir ${settings.jobName} worker ${host}`,
          resourceLimits,
        });
      const state: WorkerState = {
        host,
        worker,
        ready: false,
        sourcesDone: false,
        finished: false,
        exited: false,
        closing: false,
        metrics: undefined,
        closeError: undefined,
        closed: undefined,
        kept: false,
        listeners: {
          message: (message: FromWorker) => this.onMessage(state, message),
          error: (error: Error) =>
            this.fail(
              new WeirError(`Worker ${host} of job '${settings.jobName}' died: ${error.message}`, {
                cause: error,
              }),
            ),
          exit: (code: number) => this.onExit(state, code),
        },
      };
      this.workers.push(state);
      worker.on('message', state.listeners.message);
      worker.on('error', state.listeners.error);
      worker.on('exit', state.listeners.exit);
    }
  }

  /** A worker of this attempt ended. */
  private onExit(state: WorkerState, code: number): void {
    state.exited = true;
    state.closed?.();
    this.partialMatchesAnswered(state.host, undefined, []);
    if (!state.closing) {
      this.fail(
        new WeirError(
          `Worker ${state.host} of job '${this.settings.jobName}' exited unexpectedly (exit code ${code})`,
        ),
      );
    }
    // A worker that ends never acknowledges the completions it was counted in: waiting for them would hang.
    if (this.failed) this.abandonCompletions(this.failure);
    this.wake();
  }

  get restoredCheckpointId(): number | undefined {
    return this.local.restoredCheckpointId;
  }

  get hasFailed(): boolean {
    return this.failed;
  }

  get failureCause(): unknown {
    return this.failure;
  }

  /** Threads of this attempt still running (the tests' proof that none is left behind). */
  get liveWorkers(): number {
    return this.workers.filter((w) => !w.exited && !w.kept).length;
  }

  fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.failure = error;
    this.local.fail(error);
    for (const listener of this.failureListeners) listener(error);
    this.broadcast({ type: 'cancel', error: serializeError(error) });
    this.abandonCompletions(error);
    this.wake();
  }

  /** Rejects every checkpoint completion still waiting for workers' commits: the attempt has failed. */
  private abandonCompletions(error: unknown): void {
    for (const completion of this.completions.values()) completion.fail(error);
    this.completions.clear();
  }

  cancel(reason: unknown): void {
    this.fail(reason);
  }

  /** Opens the main thread's subtasks, then waits until every worker loaded the job and opened its subtasks. */
  async open(): Promise<void> {
    await this.local.open();
    this.exchange.start();
    const waiting = performance.now();
    try {
      await this.until(() => this.workers.every((w) => w.ready));
    } finally {
      this.workerStartupMs = performance.now() - waiting;
    }
  }

  /** Starts every worker's sources; resolves once every subtask on every thread finished (or the job stopped). */
  async runSources(): Promise<void> {
    // This thread's own subtasks (a sink that runs here) can finish after every worker reported: a worker's last
    // batches may still be in flight, or wait for this thread's credit, when its report arrives on another port.
    void this.local.whenAllFinished().then(() => this.wake());
    // Sources pinned to this thread (`Source.runsOnMainThread`) run here, beside the workers' own; a failure here
    // fails the attempt through the local runtime's failure listener.
    let localSourcesDone = false;
    void this.local.runSources().then(
      () => ((localSourcesDone = true), this.wake()),
      () => this.wake(),
    );
    this.broadcast({ type: 'start' });
    await this.until(
      () =>
        localSourcesDone &&
        this.workers.every((w) => w.sourcesDone) &&
        (this.stopped || (this.workers.every((w) => w.finished) && this.localFinished())),
    );
    await this.local.settleFinishes();
    if (this.failed) throw this.failure;
  }

  private localFinished(): boolean {
    for (const list of this.local.subtasks.values()) for (const s of list) if (!s.isFinished) return false;
    return true;
  }

  /** Closes every worker's operators, then ends the worker threads; the first close failure is reported. */
  async close(): Promise<void> {
    let firstError: unknown = undefined;
    try {
      await this.local.close();
    } catch (error) {
      firstError = error;
    }
    await Promise.all(
      this.workers.map(async (w) => {
        w.closing = true;
        if (w.exited) return;
        const closed = new Promise<void>((resolve) => (w.closed = resolve));
        if (this.failed) {
          await w.worker.terminate();
          return;
        }
        w.worker.postMessage({ type: 'close' } satisfies ToWorker);
        await closed;
        if (this.reuse && !this.failed && w.closeError === undefined && !w.exited) {
          w.worker.off('message', w.listeners.message);
          w.worker.off('error', w.listeners.error);
          w.worker.off('exit', w.listeners.exit);
          w.kept = true;
          keepIdleWorker(this.poolKey, w.worker);
          return;
        }
        await w.worker.terminate();
      }),
    );
    for (const w of this.workers) if (w.metrics !== undefined) this.closedMetrics.push(w.metrics);
    this.exchange.close();
    for (const w of this.workers) if (w.closeError !== undefined) firstError ??= w.closeError;
    if (firstError !== undefined) throw firstError;
  }

  /** Ends every worker at once (a job that failed for good, or a test that checks none is left). */
  async terminate(): Promise<void> {
    await Promise.all(
      this.workers.map((w) => (w.exited || w.kept ? undefined : ((w.closing = true), w.worker.terminate()))),
    );
  }

  disposeBackends(): void {
    this.local.disposeBackends();
  }

  triggerCheckpoint(barrier: CheckpointBarrier): void {
    this.local.triggerCheckpoint(barrier);
    this.broadcast({ type: 'trigger', barrier });
  }

  abortCheckpoint(checkpointId: number): void {
    this.local.abortCheckpoint(checkpointId);
    this.broadcast({ type: 'abort', id: checkpointId });
  }

  /** Tells every thread the checkpoint is durable; resolves once every worker's sinks committed. */
  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const live = this.workers.filter((w) => !w.exited);
    const done = new Promise<void>((resolve, reject) =>
      this.completions.set(checkpointId, {
        waiting: new Set(live.map((w) => w.host)),
        done: resolve,
        fail: reject,
      }),
    );
    for (const w of live) w.worker.postMessage({ type: 'complete', id: checkpointId } satisfies ToWorker);
    await this.local.notifyCheckpointComplete(checkpointId);
    if (live.length === 0) this.completions.delete(checkpointId);
    else await done;
  }

  /**
   * The workers yet to confirm checkpoint `checkpointId` complete, each with the subtasks it runs (the first five,
   * in graph order): `worker 1, which runs 'source' subtask 0, 'map' subtask 0`.
   */
  describeCompletionWaits(checkpointId: number): string | undefined {
    const waiting = this.completions.get(checkpointId)?.waiting;
    if (waiting === undefined || waiting.size === 0) return undefined;
    const hosts = [...waiting].sort((a, b) => a - b);
    return hosts
      .map((host) => {
        const subtasks: string[] = [];
        for (const node of this.graph.nodes) {
          for (let i = 0; i < node.parallelism; i++) {
            if (slotHost(node, i, this.settings.workers) === host)
              subtasks.push(`'${node.uid}' subtask ${i}`);
          }
        }
        const shown =
          subtasks.length <= 5
            ? subtasks.join(', ')
            : `${subtasks.slice(0, 5).join(', ')} and ${subtasks.length - 5} more`;
        return `worker ${host}, which runs ${shown}`;
      })
      .join('; ');
  }

  stopSourcesAfterBarriers(decision: Promise<boolean>): void {
    this.local.stopSourcesAfterBarriers(decision);
    this.broadcast({ type: 'stop' });
    void decision.then((stop) => {
      if (stop) this.stopped = true;
      this.broadcast({ type: 'stop-decision', stop });
      this.wake();
    });
  }

  describeWaits(): string[] {
    const lines = [...this.local.describeWaits(), ...this.exchange.describeCongestion()];
    for (const w of this.workers) {
      if (w.exited) continue;
      if (!w.ready) lines.push(`worker ${w.host} has not loaded the job yet`);
      else if (!w.finished) lines.push(`worker ${w.host} has subtasks still running`);
    }
    return lines;
  }

  /** Per operator, summed over the threads that ran its subtasks (known once the workers closed). */
  metrics(): OperatorMetrics[] {
    const all = [this.local.metrics(), ...this.closedMetrics];
    return this.graph.nodes.map((node, i) => {
      const parts = all.map((m) => m[i]!);
      return {
        name: node.name,
        parallelism: node.parallelism,
        recordsIn: sum(parts, (p) => p.recordsIn),
        recordsOut: sum(parts, (p) => p.recordsOut),
        alignments: sum(parts, (p) => p.alignments),
        alignmentMs: sum(parts, (p) => p.alignmentMs),
        maxAlignmentMs: Math.max(...parts.map((p) => p.maxAlignmentMs)),
        peakAlignmentBufferedBytes: Math.max(...parts.map((p) => p.peakAlignmentBufferedBytes)),
        peakAlignmentBufferedEvents: Math.max(...parts.map((p) => p.peakAlignmentBufferedEvents)),
      };
    });
  }

  releaseMetrics(): void {
    this.local.releaseMetrics();
    this.mirror?.release();
  }

  /** A node's subtask figures: this thread's read now, the workers' as of their last metrics tick. */
  subtaskFigures(node: StreamNode): SubtaskFigures[] {
    const all = [...(this.remoteFigures.get(node.uid) ?? [])];
    for (const f of this.local.subtaskFigures(node)) all[f.index] = f;
    return all.filter((f) => f !== undefined);
  }

  /**
   * A CEP node's partial matches from every thread that runs its subtasks: this thread's read at once, the workers'
   * asked for and answered between their record calls. A worker that exits before it answers leaves its subtasks
   * out (the job is then failing or over).
   */
  async partialMatches(node: StreamNode, query: PartialMatchQuery): Promise<SubtaskPartialMatches[]> {
    const subtasks = this.local.localPartialMatches(node, query);
    const hosts = new Set<number>();
    for (let i = 0; i < node.parallelism; i++) hosts.add(slotHost(node, i, this.settings.workers));
    const asked = this.workers.filter((w) => hosts.has(w.host) && !w.exited && !w.closing);
    if (asked.length > 0) {
      const request = this.nextPartialMatchRequest++;
      await new Promise<void>((resolve) => {
        this.partialMatchRequests.set(request, {
          remaining: new Set(asked.map((w) => w.host)),
          subtasks,
          done: resolve,
        });
        for (const w of asked) {
          w.worker.postMessage({ type: 'partial-matches', request, uid: node.uid, query } satisfies ToWorker);
        }
      });
    }
    return subtasks.sort((a, b) => a.subtask - b.subtask);
  }

  /** A worker answered a partial-match request, or can no longer answer any. */
  private partialMatchesAnswered(
    host: number,
    request: number | undefined,
    answer: SubtaskPartialMatches[],
  ): void {
    for (const [id, pending] of this.partialMatchRequests) {
      if (request !== undefined && id !== request) continue;
      if (!pending.remaining.delete(host)) continue;
      pending.subtasks.push(...answer);
      if (pending.remaining.size === 0) {
        this.partialMatchRequests.delete(id);
        pending.done();
      }
    }
  }

  private onMessage(state: WorkerState, message: FromWorker): void {
    switch (message.type) {
      case 'partial-matches':
        this.partialMatchesAnswered(state.host, message.request, message.subtasks);
        return;
      case 'figures':
        for (const { uid, figures } of message.nodes) {
          let list = this.remoteFigures.get(uid);
          if (list === undefined) this.remoteFigures.set(uid, (list = []));
          for (const f of figures) {
            list[f.index] = f;
            this.mirror?.update(uid, f);
          }
        }
        return;
      case 'ready':
        state.ready = true;
        break;
      case 'failed':
        this.fail(deserializeError(message.error));
        break;
      case 'sources-done':
        state.sourcesDone = true;
        break;
      case 'finished':
        state.finished = true;
        break;
      case 'ack':
        this.options.onSubtaskSnapshot?.(
          this.ref(message.uid, message.index, message.alignmentNs),
          message.barrier,
          message.snapshot,
        );
        return;
      case 'declined': {
        const node = this.node(message.uid);
        this.options.onCheckpointDeclined?.(
          this.ref(message.uid, message.index, 0),
          message.id,
          `'${node.name}' (${message.index + 1}/${node.parallelism}): ${message.reason}`,
        );
        return;
      }
      case 'completed': {
        const completion = this.completions.get(message.id);
        if (completion === undefined) return;
        if (message.error !== undefined) {
          this.completions.delete(message.id);
          completion.fail(deserializeError(message.error));
        } else if (completion.waiting.delete(state.host) && completion.waiting.size === 0) {
          this.completions.delete(message.id);
          completion.done();
        }
        return;
      }
      case 'closed':
        state.metrics = message.metrics;
        if (message.error !== undefined) state.closeError = deserializeError(message.error);
        state.closed?.();
        return;
    }
    this.wake();
  }

  private node(uid: string): StreamNode {
    return this.graph.nodes.find((n) => n.uid === uid)!;
  }

  /** A stand-in for a subtask on a worker, as the checkpoint coordinator sees it (one object per subtask). */
  private ref(uid: string, index: number, alignmentNs: number): SubtaskRef {
    const key = `${uid}#${index}`;
    let ref = this.refs.get(key);
    if (ref === undefined) {
      ref = { node: this.node(uid), index, checkpointedStateSize: 0, checkpointAlignmentTime: alignmentNs };
      this.refs.set(key, ref);
    }
    (ref as { checkpointAlignmentTime: number }).checkpointAlignmentTime = alignmentNs;
    return ref;
  }

  private broadcast(message: ToWorker): void {
    for (const w of this.workers) if (!w.exited && !w.closing) w.worker.postMessage(message);
  }

  private wake(): void {
    const wake = this.progress;
    this.progress = undefined;
    wake?.();
  }

  /** Waits until `condition` holds (checked whenever a worker reports), or rejects with the job's failure. */
  private async until(condition: () => boolean): Promise<void> {
    while (!this.failed && !condition()) {
      await new Promise<void>((resolve) => (this.progress = resolve));
    }
    if (this.failed) throw this.failure;
  }
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += of(item);
  return total;
}
