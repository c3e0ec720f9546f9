// SourceTurns: in worker mode, keeps a bounded source's subtasks on different threads within a few batches of each other.
import type { StreamGraph, StreamNode } from '../graph/stream-graph.ts';
import type { Subtask } from './subtask.ts';

/**
 * Batches a bounded source subtask may poll beyond the fewest polled by a running subtask of the same source on
 * another thread, before it waits for that one. On one thread the subtasks take strict turns (a slack of 0); across
 * threads a thread polls for a whole turn of the event loop (SOURCE_TURN_MS, 2 ms: about 13 of the bench's batches
 * of 1,000 events, or 5 of its bids) before it handles the other threads' batches, so the slack covers a turn or
 * more and the threads wait for each other only when one falls behind for longer (descheduled, or collecting
 * garbage). Measured with 4, 8, 16 and 64 (docs/performance.md, "Source subtasks in turn across threads").
 */
export const SOURCE_TURN_SLACK = 16;

/**
 * How long a thread whose source subtasks all wait looks again at most (ms of real time, not the job's clock): it
 * looks as soon as the subtask it waits for polls a batch, or after this long, so that barriers and stops get in.
 */
export const SOURCE_TURN_WAIT_MS = 1;

/** A slot's value while its subtask is left out: above any count of batches. */
const LEFT_OUT = 0x7fffffff;

/** One source subtask of this thread: its slot, its source's slots, and the batches it has polled. */
interface TurnSubtask {
  readonly slot: number;
  readonly first: number;
  readonly parallelism: number;
  polled: number;
  /** The slot of the subtask with the fewest batches at the last look (what a wait waits on). */
  fewestSlot: number;
}

/**
 * The batches each source subtask of a job polled, in memory every thread of the job shares (one number per source
 * subtask, in graph order), so that a bounded source's subtasks on different threads advance as they do on one
 * thread, where the runtime polls them one batch each in turn: there a subtask can never be more than one batch
 * ahead of another of its source, here it can be {@link SOURCE_TURN_SLACK} batches ahead before it waits.
 *
 * Why: nothing else holds the subtasks of a source on different threads together. A consumer takes every batch as it
 * comes, so a thread that got more of the machine for a while keeps its lead, and keeps it to the end, where the
 * thread ahead idles while the other finishes alone; meanwhile every downstream subtask's watermark is the lagging
 * side's, and windows, timers and buffered elements of the leading side wait for it (docs/performance.md, "Source
 * subtasks in turn across threads"). Counting batches, not event time, keeps this a matter of
 * scheduling, as one thread's turns are: subtasks that read different stretches of event time by design still run
 * side by side (Flink's watermark alignment, which waits on event time, stays the job's choice:
 * `WatermarkStrategy.withWatermarkAlignment`).
 *
 * A slot holds LEFT_OUT while its subtask is left out of the count: not started, finished, held back by a blocked
 * channel for barrier alignment (on one thread such a subtask's turns are skipped too), or paused by watermark
 * alignment (which waits for event time its peers may still be behind in: counting it would deadlock). The subtask
 * with the fewest batches is never held, so the subtasks of a source cannot all wait. A waiting thread still handles
 * messages, so credits, barriers and stops reach it.
 */
export class SourceTurns {
  private readonly own = new Map<Subtask, TurnSubtask>();
  private readonly first = new Map<StreamNode, number>();

  private constructor(
    graph: StreamGraph,
    private readonly slots: Int32Array,
  ) {
    let next = 0;
    for (const node of paced(graph)) {
      this.first.set(node, next);
      next += node.parallelism;
    }
  }

  /** Shared slots for `graph`'s source subtasks, all left out, or undefined when no source has several subtasks. */
  static slotsFor(graph: StreamGraph): Int32Array | undefined {
    let count = 0;
    for (const node of paced(graph)) count += node.parallelism;
    if (count === 0) return undefined;
    const slots = new Int32Array(new SharedArrayBuffer(count * Int32Array.BYTES_PER_ELEMENT));
    slots.fill(LEFT_OUT);
    return slots;
  }

  /** The turns of `graph`'s sources over `slots` (from {@link slotsFor}), or undefined without slots. */
  static forJob(graph: StreamGraph, slots: Int32Array | undefined): SourceTurns | undefined {
    return slots === undefined ? undefined : new SourceTurns(graph, slots);
  }

  /** Registers a bounded source subtask of this thread; it counts from now on. */
  add(subtask: Subtask): void {
    const first = this.first.get(subtask.node);
    if (first === undefined) return;
    const slot = first + subtask.index;
    const turn = { slot, first, parallelism: subtask.node.parallelism, polled: 0, fewestSlot: slot };
    this.own.set(subtask, turn);
    Atomics.store(this.slots, slot, 0);
  }

  /**
   * Whether `subtask` must wait before its next batch: it is more than the slack ahead of the subtask of its source
   * with the fewest batches. Also writes its own count (it may have been left out while blocked).
   */
  mustWait(subtask: Subtask): boolean {
    const turn = this.own.get(subtask);
    if (turn === undefined) return false;
    const slots = this.slots;
    Atomics.store(slots, turn.slot, turn.polled);
    let fewest = LEFT_OUT;
    for (let i = turn.first, end = turn.first + turn.parallelism; i < end; i++) {
      const polled = Atomics.load(slots, i);
      if (polled < fewest) {
        fewest = polled;
        turn.fewestSlot = i;
      }
    }
    return turn.polled > fewest + SOURCE_TURN_SLACK;
  }

  /**
   * Resolves once the subtask `subtask` waits for (the one with the fewest batches at its last look) polls again, or
   * after {@link SOURCE_TURN_WAIT_MS}: a wait on that subtask's slot, which its thread notifies after each batch.
   */
  waitFor(subtask: Subtask): Promise<unknown> {
    const turn = this.own.get(subtask)!;
    const slot = turn.fewestSlot;
    const waiting = waitAsync(this.slots, slot, Atomics.load(this.slots, slot), SOURCE_TURN_WAIT_MS);
    if (!waiting.async) return Promise.resolve();
    // A timer as well: a pending waitAsync alone may not keep the event loop alive.
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([
      waiting.value,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SOURCE_TURN_WAIT_MS))),
    ]).finally(() => clearTimeout(timer));
  }

  /** `subtask` polled one more batch (a thread waiting for it looks again). */
  polled(subtask: Subtask): void {
    const turn = this.own.get(subtask);
    if (turn === undefined) return;
    Atomics.store(this.slots, turn.slot, ++turn.polled);
    Atomics.notify(this.slots, turn.slot);
  }

  /**
   * `subtask` cannot poll for now (a blocked channel downstream, a watermark alignment pause) or no longer (it ended):
   * the others go on without it.
   */
  leaveOut(subtask: Subtask): void {
    const turn = this.own.get(subtask);
    if (turn === undefined) return;
    Atomics.store(this.slots, turn.slot, LEFT_OUT);
    Atomics.notify(this.slots, turn.slot);
  }
}

/** `Atomics.waitAsync` (ES2024; in every Node this package supports, not yet in the compiler's library here). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** The source nodes with more than one subtask, in graph order (one thread's turns are enough for one subtask). */
function paced(graph: StreamGraph): StreamNode[] {
  return graph.nodes.filter((n) => n.transformation.kind === 'source' && n.parallelism > 1);
}
