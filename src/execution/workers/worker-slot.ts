// The worker side of worker mode: a job's `execute()` inside a worker runs that worker's slots of the job.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { JobLoadError } from '../../core/errors.ts';
import type { ProcessingTimeClock } from '../../core/clock.ts';
import type { StreamGraph } from '../../graph/stream-graph.ts';
import { MetricRegistry } from '../../metrics/metric-registry.ts';
import { JobRuntime } from '../../runtime/job-runtime.ts';
import { slotHost } from '../../runtime/slot-placement.ts';
import { ThreadExchange } from '../../runtime/thread-exchange.ts';
import { mutableExchangeFigures } from '../../runtime/thread-exchange-figures.ts';
import type { StateBackend } from '../../state/state-backend.ts';
import type { SubtaskPartialMatches } from '../../cep/operator/partial-match-snapshot.ts';
import {
  deserializeError,
  graphFingerprint,
  serializeError,
  type FromWorker,
  type ToWorker,
  type WorkerSlotData,
} from './worker-messages.ts';

/** Set on globalThis once a job attached, so the worker entry can tell a module that never called `execute()`. */
export const ATTACHED = Symbol.for('weir.workerSlotAttached');

/** The slot of the job this worker runs now, when it was handed another job than the one it started with. */
let attached: WorkerSlotData | undefined = undefined;

/** The slot data when this thread is a job's worker, else undefined. */
export function workerSlotData(): WorkerSlotData | undefined {
  if (attached !== undefined) return attached;
  const data = workerData as { weirSlot?: WorkerSlotData } | null | undefined;
  return data?.weirSlot;
}

/** A kept worker was handed the slot of a new job (see worker-pool.ts): it runs that job next. */
export function attachSlot(slot: WorkerSlotData): void {
  attached = slot;
  (globalThis as Record<symbol, unknown>)[ATTACHED] = false;
}

/**
 * The one listener on the parent port, from the first job's attachment on: it hands each message to the running job,
 * holds those that arrive between a job's close and the next job's attachment (the port delivers at once once it has
 * a listener), and hands an `attach` to the next-job handler. Until the first job attaches there is no listener, so
 * the port holds what the main thread sends meanwhile, as it always did.
 */
let jobHandler: ((message: ToWorker) => void) | undefined = undefined;
const held: ToWorker[] = [];
let nextJob: ((slot: WorkerSlotData, env: Record<string, string>) => void) | undefined = undefined;
let listening = false;

function dispatch(message: ToWorker): void {
  if (message.type === 'attach') nextJob?.(message.slot, message.env);
  else if (jobHandler === undefined) held.push(message);
  else jobHandler(message);
}

function setJobHandler(handler: ((message: ToWorker) => void) | undefined): void {
  jobHandler = handler;
  if (!listening) {
    listening = true;
    parentPort!.on('message', dispatch);
  }
  while (handler !== undefined && held.length > 0) handler(held.shift()!);
}

/** What this worker does when it is handed another job (set by the worker entry). */
export function onNextJob(handler: (slot: WorkerSlotData, env: Record<string, string>) => void): void {
  nextJob = handler;
}

/** What the environment in a worker hands over. */
export interface WorkerJobSettings {
  readonly jobName: string;
  readonly graph: StreamGraph;
  readonly clock: ProcessingTimeClock;
  readonly stateBackend: StateBackend | undefined;
}

/**
 * Runs this worker's share of the job the main thread started: checks that the job module built the same graph,
 * builds a JobRuntime for the subtasks placed here, and then follows the main thread's instructions (start,
 * checkpoints, stop, cancel, close). Never settles: the main thread ends the worker when the job is over, so code
 * after `execute()` in the job module runs only on the main thread.
 */
export function runWorkerSlot(settings: WorkerJobSettings): Promise<never> {
  const slot = workerSlotData()!;
  const port = parentPort!;
  const post = (message: FromWorker): void => port.postMessage(message);
  const g = globalThis as Record<symbol, unknown>;
  if (g[ATTACHED] === true) {
    post({
      type: 'failed',
      error: serializeError(
        new JobLoadError(
          `The job module ${slot.jobModule} called execute() a second time in a worker ('${settings.jobName}'); in worker mode a module runs one job`,
        ),
      ),
    });
    return new Promise(() => {});
  }
  g[ATTACHED] = true;
  try {
    start(slot, settings, post);
  } catch (error) {
    post({ type: 'failed', error: serializeError(error) });
  }
  return new Promise(() => {});
}

function start(slot: WorkerSlotData, settings: WorkerJobSettings, post: (message: FromWorker) => void): void {
  const { graph } = settings;
  if (settings.jobName !== slot.jobName) {
    throw new JobLoadError(
      `The job module ${slot.jobModule} executed job '${settings.jobName}' in a worker, but the main thread runs '${slot.jobName}': in worker mode a module runs one job, the same on every thread`,
    );
  }
  const fingerprint = graphFingerprint(graph);
  if (fingerprint !== slot.fingerprint) {
    throw new JobLoadError(
      `The job module ${slot.jobModule} built a different job in a worker than on the main thread (the graph must not depend on which thread builds it).\nMain thread:\n${slot.fingerprint}\nWorker ${slot.host}:\n${fingerprint}`,
    );
  }
  const ports = new Map<number, MessagePort>();
  for (const [host, p] of Object.entries(slot.ports)) ports.set(Number(host), p);
  let runtime: JobRuntime | undefined = undefined;
  const exchange = new ThreadExchange(graph, ports, (error) => runtime?.fail(error));
  // The worker's own registry, scoped as the main thread's: its subtasks register their metrics here and their
  // figures go to the main thread after every tick (the REST API and the dashboard read them there).
  const registry =
    slot.metrics !== undefined ? new MetricRegistry({ intervalMs: slot.metrics.intervalMs }) : undefined;
  const metrics =
    registry !== undefined
      ? { registry, jobGroup: registry.createGroup('job', slot.metrics!.jobVariables, [slot.jobName]) }
      : undefined;
  runtime = new JobRuntime(graph, {
    ...(metrics !== undefined ? { metrics } : {}),
    clock: settings.clock,
    ...(slot.restoreFrom !== undefined ? { restoreFrom: slot.restoreFrom } : {}),
    allowNonRestoredState: slot.allowNonRestoredState,
    ...(settings.stateBackend !== undefined ? { stateBackend: settings.stateBackend } : {}),
    checkpointing: slot.checkpointing,
    ...(slot.maxAlignmentBytes !== undefined ? { maxAlignmentBytes: slot.maxAlignmentBytes } : {}),
    ...(slot.watermarkAlignmentSlots !== undefined
      ? { watermarkAlignmentSlots: slot.watermarkAlignmentSlots }
      : {}),
    ...(slot.sourceTurnSlots !== undefined ? { sourceTurnSlots: slot.sourceTurnSlots } : {}),
    onSubtaskSnapshot: (subtask, barrier, snapshot) =>
      post({
        type: 'ack',
        uid: subtask.node.uid,
        index: subtask.index,
        barrier,
        snapshot,
        alignmentNs: subtask.checkpointAlignmentTime,
      }),
    onCheckpointDeclined: (subtask, id, reason) =>
      post({ type: 'declined', uid: subtask.node.uid, index: subtask.index, id, reason }),
    placement: {
      host: slot.host,
      hostOf: (node, index) => slotHost(node, index, slot.workers),
      exchange,
    },
  });
  const job = runtime;
  job.onFailure((error) => post({ type: 'failed', error: serializeError(error) }));
  let stopDecision: ((stop: boolean) => void) | undefined = undefined;
  let closing = false;
  const onMessage = (message: ToWorker): void => {
    switch (message.type) {
      case 'start':
        job.runSources().then(
          () => {
            post({ type: 'sources-done' });
            const sourcesDone = performance.now();
            return job.whenAllFinished().then(async () => {
              await job.settleFinishes();
              // What this thread waited for at the end: the other threads' last batches (its figures, per job).
              mutableExchangeFigures().endWaitMs += performance.now() - sourcesDone;
              if (!job.hasFailed) post({ type: 'finished' });
            });
          },
          () => {},
        );
        break;
      case 'trigger':
        try {
          job.triggerCheckpoint(message.barrier);
        } catch (error) {
          job.fail(error);
        }
        break;
      case 'abort':
        job.abortCheckpoint(message.id);
        break;
      case 'complete':
        job.notifyCheckpointComplete(message.id).then(
          () => post({ type: 'completed', id: message.id }),
          (error: unknown) => post({ type: 'completed', id: message.id, error: serializeError(error) }),
        );
        break;
      case 'stop':
        job.stopSourcesAfterBarriers(new Promise<boolean>((resolve) => (stopDecision = resolve)));
        break;
      case 'stop-decision':
        stopDecision?.(message.stop);
        stopDecision = undefined;
        break;
      case 'cancel':
        job.cancel(deserializeError(message.error));
        break;
      case 'close':
        closing = true;
        // This job's messages end here: what arrives next is for the next job, if the worker is kept.
        setJobHandler(undefined);
        void close(job, exchange, registry, post);
        break;
      case 'partial-matches': {
        // Answered between this thread's record calls: the message is handled on its event loop.
        const node = graph.nodes.find((n) => n.uid === message.uid);
        let subtasks: SubtaskPartialMatches[] = [];
        try {
          if (node !== undefined && !closing) subtasks = job.localPartialMatches(node, message.query);
        } catch {
          // state already released by a failing attempt: nothing to show, and no reason to fail the job
        }
        post({ type: 'partial-matches', request: message.request, subtasks });
        break;
      }
    }
  };
  setJobHandler(onMessage);
  job.open().then(
    () => {
      // The subtasks' first figures go before 'ready': once the job runs, the REST API lists every subtask of every
      // thread (before the first metrics tick, or with metrics off, it listed none of the workers').
      post({ type: 'figures', nodes: job.allSubtaskFigures() });
      // Added once every subtask registered its metrics, so the figures follow this tick's rates and busy time.
      registry?.addView({ sample: () => post({ type: 'figures', nodes: job.allSubtaskFigures(closing) }) });
      registry?.start();
      exchange.start();
      post({ type: 'ready' });
    },
    (error: unknown) => post({ type: 'failed', error: serializeError(error) }),
  );
}

async function close(
  job: JobRuntime,
  exchange: ThreadExchange,
  registry: MetricRegistry | undefined,
  post: (message: FromWorker) => void,
): Promise<void> {
  let error: unknown = undefined;
  try {
    await job.close();
  } catch (e) {
    error = e;
  }
  // A last tick: the final figures reach the main thread before the worker ends (with metrics off, no tick does).
  if (registry !== undefined) registry.close();
  else post({ type: 'figures', nodes: job.allSubtaskFigures(true) });
  job.disposeBackends();
  exchange.close();
  post({
    type: 'closed',
    metrics: job.metrics(),
    ...(error !== undefined ? { error: serializeError(error) } : {}),
  });
}
