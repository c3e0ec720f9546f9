// SourceWatermarkAlignment: pauses a source subtask whose watermark runs ahead of its alignment group's lowest.
import { MIN_WATERMARK } from '../core/time-domain.ts';
import type { StreamGraph, StreamNode } from '../graph/stream-graph.ts';
import type { WatermarkAlignment } from '../time/watermark-alignment.ts';
import type { Subtask } from './subtask.ts';

/** A group's members: where their watermarks are, and how far one may run ahead of the lowest. */
interface AlignmentGroup {
  readonly maxAllowedDriftMs: number;
  readonly updateIntervalMs: number;
  /** The slots of the group's subtasks (of every source that names it), in the job's slot array. */
  readonly slots: Int32Array;
}

/** One aligned source subtask: its own slot and its group. */
interface AlignedSubtask {
  readonly slot: number;
  readonly group: AlignmentGroup;
}

/**
 * Flink's watermark alignment (`WatermarkStrategy.withWatermarkAlignment`): a source subtask whose watermark is ahead
 * of its group's lowest by more than the group's drift is not polled until the others catch up.
 *
 * Each aligned source subtask of the job has a slot, one number per subtask of every aligned source, in graph order:
 * the watermark its output last emitted, or +Infinity while it is left out of the group's lowest (no watermark yet,
 * idle, ended), as Flink's coordinator counts only subtasks that reported a watermark and counts idle and finished
 * ones as at the end of time. A subtask writes its own slot before and after each poll, and before a poll reads its
 * group's slots to decide: the lowest is read where it is, not announced (on one thread that is every batch, so the
 * interleaving of a group's batches stays a function of the input; Flink reports and announces every update
 * interval because its subtasks are processes apart). In worker mode the slots are one SharedArrayBuffer made by the
 * main thread and handed to every worker, so a subtask sees the others' progress as of their last batch, without a
 * message; a number read while another thread writes it is, on the 64-bit platforms Node runs on, the old or the
 * new value (V8 writes a double in one aligned store), and a stale one only pauses or polls a subtask one check
 * longer, never changes a record.
 *
 * A paused subtask looks again after its group's update interval (the driver waits that long, on timers that do not
 * depend on the job's clock), and barriers and stop requests still go in while it waits. No deadlock: the subtask
 * at the group's lowest is never paused (its watermark is not above lowest + drift), and subtasks that cannot move
 * (idle, ended) are left out of the lowest.
 */
export class SourceWatermarkAlignment {
  private readonly aligned = new Map<Subtask, AlignedSubtask>();
  private readonly groups = new Map<string, AlignmentGroup>();
  private readonly byNode = new Map<StreamNode, { first: number; group: AlignmentGroup }>();

  private constructor(
    graph: StreamGraph,
    /** One number per aligned source subtask of the job (shared between threads in worker mode). */
    private readonly slots: Float64Array,
  ) {
    const members = new Map<string, { alignment: WatermarkAlignment; slots: number[] }>();
    let next = 0;
    for (const node of alignedSources(graph)) {
      const alignment = node.transformation.watermarkStrategy!.alignment as WatermarkAlignment;
      let group = members.get(alignment.group);
      if (group === undefined) members.set(alignment.group, (group = { alignment, slots: [] }));
      for (let i = 0; i < node.parallelism; i++) group.slots.push(next + i);
      next += node.parallelism;
    }
    let first = 0;
    for (const node of alignedSources(graph)) {
      const { alignment, slots: groupSlots } = members.get(
        node.transformation.watermarkStrategy!.alignment!.group,
      )!;
      const group = groupFor(alignment, groupSlots, this.groups);
      this.byNode.set(node, { first, group });
      first += node.parallelism;
    }
  }

  /**
   * The slots of `graph`'s aligned source subtasks, all left out (+Infinity), or undefined when no source is
   * aligned; `shared` puts them in a SharedArrayBuffer, for the threads of a job in worker mode.
   */
  static slotsFor(graph: StreamGraph, shared: boolean): Float64Array | undefined {
    let count = 0;
    for (const node of alignedSources(graph)) count += node.parallelism;
    if (count === 0) return undefined;
    const bytes = count * Float64Array.BYTES_PER_ELEMENT;
    const slots = new Float64Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    slots.fill(Number.POSITIVE_INFINITY);
    return slots;
  }

  /** The alignment of `graph`'s sources over `slots` (from {@link slotsFor}), or undefined when none is aligned. */
  static forJob(graph: StreamGraph, slots: Float64Array | undefined): SourceWatermarkAlignment | undefined {
    return slots === undefined ? undefined : new SourceWatermarkAlignment(graph, slots);
  }

  /** Registers a source subtask of this thread (a no-op for a source without alignment). */
  add(subtask: Subtask): void {
    const node = this.byNode.get(subtask.node);
    if (node !== undefined)
      this.aligned.set(subtask, { slot: node.first + subtask.index, group: node.group });
  }

  /**
   * Publishes `subtask`'s watermark and tells whether it must pause: its watermark is ahead of its group's lowest
   * by more than the drift. Always false for a subtask without alignment.
   */
  mustPause(subtask: Subtask): boolean {
    const aligned = this.aligned.get(subtask);
    if (aligned === undefined) return false;
    const watermark = this.write(aligned, subtask);
    const slots = this.slots;
    const members = aligned.group.slots;
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < members.length; i++) {
      const w = slots[members[i]!]!;
      if (w < lowest) lowest = w;
    }
    return watermark > lowest + aligned.group.maxAllowedDriftMs;
  }

  /** Publishes `subtask`'s watermark after a batch, so its peers see where it is now, not where it was. */
  publish(subtask: Subtask): void {
    const aligned = this.aligned.get(subtask);
    if (aligned !== undefined) this.write(aligned, subtask);
  }

  /** Writes the subtask's watermark into its slot (+Infinity while it has none or is idle) and returns it. */
  private write(aligned: AlignedSubtask, subtask: Subtask): number {
    const output = subtask.output;
    const watermark = output.currentWatermark;
    this.slots[aligned.slot] =
      watermark === MIN_WATERMARK || output.idle ? Number.POSITIVE_INFINITY : watermark;
    return watermark;
  }

  /** `subtask` ended (or stopped): it holds its group back no more. */
  finished(subtask: Subtask): void {
    const aligned = this.aligned.get(subtask);
    if (aligned !== undefined) this.slots[aligned.slot] = Number.POSITIVE_INFINITY;
  }

  /** How long a paused subtask waits before it looks again: its group's update interval. */
  pauseMs(subtask: Subtask): number {
    return this.aligned.get(subtask)?.group.updateIntervalMs ?? 0;
  }
}

/** The source nodes of `graph` whose watermark strategy asks for alignment, in graph order. */
function alignedSources(graph: StreamGraph): StreamNode[] {
  return graph.nodes.filter(
    (n) => n.transformation.kind === 'source' && n.transformation.watermarkStrategy?.alignment !== undefined,
  );
}

/**
 * The group named by `alignment`, made once from the first source that names it: every source of a group uses the
 * first one's drift and interval (Flink leaves sources of one group with different settings undefined).
 */
function groupFor(
  alignment: WatermarkAlignment,
  slots: readonly number[],
  groups: Map<string, AlignmentGroup>,
): AlignmentGroup {
  let group = groups.get(alignment.group);
  if (group === undefined) {
    group = {
      maxAllowedDriftMs: alignment.maxAllowedDriftMs,
      updateIntervalMs: alignment.updateIntervalMs,
      slots: Int32Array.from(slots),
    };
    groups.set(alignment.group, group);
  }
  return group;
}
