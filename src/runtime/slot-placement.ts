// SlotPlacement: which thread runs each subtask in worker mode (Flink's slot sharing), and what crosses threads.
import type { StreamNode } from '../graph/stream-graph.ts';
import type { ThreadExchange } from './thread-exchange.ts';

/** The main thread's host number; workers are 1..workers. */
export const MAIN_THREAD = 0;

/** Where this thread's share of a job runs, and how it reaches the others. */
export interface SubtaskPlacement {
  /** This thread's host number. */
  readonly host: number;
  /** The host that runs subtask `index` of `node`. */
  hostOf(node: StreamNode, index: number): number;
  /** The channels to and from other threads. */
  readonly exchange: ThreadExchange;
}

/**
 * Slot sharing as in Flink: slot i holds subtask i of every operator, and slot i runs on worker `i % workers` + 1.
 * A forward edge (subtask i → subtask i) therefore never leaves its thread, so a chain of forward operators stays
 * a chain of synchronous calls; only keyBy, rebalance, rescale, broadcast and global edges cross threads. Sinks
 * that keep their records in the memory of the thread that created them (`runsOnMainThread`, as CollectSink) run
 * on the main thread, where the job's code reads them.
 */
export function slotHost(node: StreamNode, index: number, workers: number): number {
  if (node.transformation.sink?.runsOnMainThread === true) return MAIN_THREAD;
  if (node.transformation.source?.runsOnMainThread === true) return MAIN_THREAD;
  return 1 + (index % workers);
}
