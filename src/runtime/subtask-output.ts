// SubtaskOutput: the Output of one operator subtask, fanning records out to main and side-output edges.
import type { OutputTag } from '../core/output-tag.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { Output } from '../operators/output.ts';
import { MIN_WATERMARK } from '../core/time-domain.ts';
import type { RecordRouter, RecordWriter } from './record-router.ts';
import { SubtaskInput } from './subtask-input.ts';

/** Observes every side-output record of a job (the test harness uses it to expose `sideOutput(tag)`). */
export type SideOutputTap = (tagId: string, value: unknown, timestamp: number) => void;

/**
 * Main records go to every main edge; side-output records only to the edges of their tag (a direct route, where
 * Flink broadcasts to all outputs and filters by tag). Watermarks, idleness and end-of-input go to every edge.
 * Records of a tag nobody consumes are dropped, as in Flink.
 *
 * A record is one call per hop where it can be: with one main edge, and that edge forward, `collect` calls the
 * router's writer itself (the consumer's input when its channel never blocks, see
 * {@link RecordRouter.deliverRecords}), so a chained hop is output → input → operator. When that consumer takes one
 * input, the operator does not emit here at all but into a `ChainedOutput`, the hop compiled for the consumer's
 * class (see there why); `collect` then serves whoever holds this output itself.
 */
export class SubtaskOutput<T> implements Output<T> {
  private readonly main: RecordRouter[] = [];
  private single: RecordRouter | undefined = undefined;
  /** The writer of the one main edge when that edge is forward: records skip the router. */
  private direct: RecordWriter | undefined = undefined;
  private readonly side = new Map<string, RecordRouter[]>();
  private readonly all: RecordRouter[] = [];
  sideTap: SideOutputTap | undefined = undefined;
  /** Counts for metrics: records emitted on the main output. */
  recordsOut = 0;
  /** The last watermark emitted (Flink's currentOutputWatermark); MIN_WATERMARK before the first. */
  currentWatermark = MIN_WATERMARK;
  /** Whether the subtask last declared itself idle (a source without data). */
  idle = false;

  addMain(router: RecordRouter): void {
    this.main.push(router);
    this.all.push(router);
    // Stryker disable next-line ConditionalExpression: without the shortcut the loop over main edges sends the same
    this.single = this.main.length === 1 ? router : undefined;
    this.direct = this.single?.directWriter();
  }

  /**
   * The consumer's input when this output's one main edge is forward into a one-input operator whose channel never
   * blocks (the runtime then gives the operator a `ChainedOutput` into it); otherwise undefined.
   */
  chainedInput(): SubtaskInput | undefined {
    const direct = this.direct;
    return direct instanceof SubtaskInput && direct.slot === 0 ? direct : undefined;
  }

  addSide(tagId: string, router: RecordRouter): void {
    let list = this.side.get(tagId);
    if (list === undefined) this.side.set(tagId, (list = []));
    list.push(router);
    this.all.push(router);
  }

  collect(value: T, timestamp: number): void {
    this.recordsOut++;
    const direct = this.direct;
    if (direct !== undefined) {
      direct.process(value, timestamp);
      return;
    }
    // One main edge (the common case) is one call; the loop over several sends to the same routers.
    const single = this.single;
    // Stryker disable next-line ConditionalExpression: the loop over main edges sends to the single one the same
    if (single !== undefined) single.route(value, timestamp);
    else {
      const main = this.main;
      for (let i = 0; i < main.length; i++) main[i]!.route(value, timestamp);
    }
  }

  collectSide<X>(tag: OutputTag<X>, value: X, timestamp: number): void {
    this.sideTap?.(tag.id, value, timestamp);
    const routers = this.side.get(tag.id);
    if (routers === undefined) return;
    for (let i = 0; i < routers.length; i++) routers[i]!.route(value, timestamp);
  }

  emitWatermark(watermark: number): void {
    this.currentWatermark = watermark;
    for (const router of this.all) router.watermark(watermark);
  }

  emitWatermarkStatus(idle: boolean): void {
    this.idle = idle;
    for (const router of this.all) router.status(idle);
  }

  endOfInput(): void {
    for (const router of this.all) router.endOfInput();
  }

  /** Forwards a checkpoint barrier on every edge, main and side outputs alike. */
  emitBarrier(barrier: CheckpointBarrier): void {
    for (const router of this.all) router.barrier(barrier);
  }
}
