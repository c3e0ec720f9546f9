// SourceOperator: one subtask of a source: polls its reader and applies the watermark strategy.
import { describeRecord, JobExecutionError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { PollResult, ReaderOutput, Source, SourceReader, SplitOutput } from '../core/source.ts';
import { MIN_WATERMARK, NO_TIMESTAMP } from '../core/time-domain.ts';
import type { WatermarkStrategy } from '../time/watermark-strategy.ts';
import { AbstractStreamOperator, type SnapshotContext } from './stream-operator.ts';
import type { OperatorStateDistribution } from './operator-state-distribution.ts';
import { assignSplits, openSourceReader } from './split-assignment.ts';
import type { WatermarkEmission } from '../time/watermark-emission.ts';
import { IdlenessLog } from './idleness-log.ts';
import { SplitWatermarks } from './split-watermarks.ts';
import { TimestampsAndWatermarks, type SourceWatermarkState } from './timestamps-and-watermarks.ts';

/**
 * The runtime's source driver calls `pollNext` in a loop. Each record gets the strategy's timestamp, leaves, and
 * only then reaches the watermark generator (Flink's SourceOutputWithWatermarks), so a punctuated watermark
 * follows the record that produced it. A failure in the strategy names the source and the record.
 */
export class SourceOperator<T> extends AbstractStreamOperator<T> implements ReaderOutput<T> {
  private reader: SourceReader<T> | undefined = undefined;
  private watermarks: TimestampsAndWatermarks<T> | undefined;
  private splitWatermarks: SplitWatermarks<T> | undefined = undefined;
  /** Every old subtask's unfinished splits, by old subtask, when restored. */
  private restoredSplits: readonly unknown[] | undefined = undefined;
  /** The last watermark the reader emitted itself (`emitWatermark`), so only rising ones go downstream. */
  private readerWatermark = MIN_WATERMARK;

  constructor(
    readonly source: Source<T>,
    private readonly strategy: WatermarkStrategy<T> | undefined,
    private readonly emission: WatermarkEmission,
  ) {
    super();
  }

  get bounded(): boolean {
    return this.source.boundedness === 'bounded';
  }

  override open(): void {
    const { subtaskIndex, parallelism, operatorName: sourceName, clock, logger, metricGroup } = this.context;
    this.reader = openSourceReader(
      this.source,
      { subtaskIndex, parallelism, sourceName, clock, logger, metricGroup },
      this.restoredSplits,
    );
    if (this.strategy !== undefined) {
      this.watermarks = new TimestampsAndWatermarks(
        this.strategy,
        this.context,
        this.output,
        this.emission,
        this.bounded,
      );
      this.watermarks.startPeriodicEmission();
    }
  }

  pollNext(): PollResult | Promise<PollResult> {
    return this.reader!.pollNext(this);
  }

  collect(value: T, timestamp?: number): void {
    const watermarks = this.watermarks;
    if (watermarks === undefined) {
      this.output.collect(value, timestamp ?? NO_TIMESTAMP);
      return;
    }
    let ts: number;
    try {
      ts = watermarks.assignTimestamp(value, timestamp ?? NO_TIMESTAMP);
    } catch (error) {
      throw this.strategyFailure(value, error);
    }
    this.output.collect(value, ts);
    try {
      watermarks.onEvent(value, ts);
    } catch (error) {
      throw this.strategyFailure(value, error);
    }
  }

  private strategyFailure(value: T, error: unknown): JobExecutionError {
    return new JobExecutionError(
      {
        operator: this.context.operatorName,
        subtask: this.context.subtaskIndex,
        parallelism: this.context.parallelism,
        record: describeRecord(value),
      },
      error,
    );
  }

  collectSide<X>(tag: OutputTag<X>, value: X): void {
    this.output.collectSide(tag, value, NO_TIMESTAMP);
  }

  createOutputForSplit(splitId: string): SplitOutput<T> {
    if (this.splitWatermarks === undefined) {
      // From the first split on, watermarks are per split: the subtask-wide generator stops.
      this.watermarks?.stop();
      this.splitWatermarks = new SplitWatermarks(
        this.strategy,
        this.context.clock,
        this.output,
        this.emission,
        this.bounded,
        new IdlenessLog(this.context.logger, this.context.operatorName, this.context.subtaskIndex),
      );
      this.splitWatermarks.startPeriodicEmission();
    }
    const split = this.splitWatermarks.outputFor(splitId);
    return {
      collect: (value: T, timestamp?: number): void => {
        try {
          split.collect(value, timestamp);
        } catch (error) {
          throw new JobExecutionError(
            {
              operator: this.context.operatorName,
              subtask: this.context.subtaskIndex,
              parallelism: this.context.parallelism,
              record: describeRecord(value),
            },
            error,
          );
        }
      },
    };
  }

  releaseOutputForSplit(splitId: string): void {
    this.splitWatermarks?.release(splitId);
  }

  emitWatermark(watermark: number): void {
    if (watermark <= this.readerWatermark) return;
    this.readerWatermark = watermark;
    this.output.emitWatermark(watermark);
  }

  markIdle(idle: boolean): void {
    this.output.emitWatermarkStatus(idle);
  }

  /** At the end of input: a last periodic emit, then no more; the driver then emits the final watermark. */
  finishWatermarks(): void {
    this.watermarks?.finish();
    this.splitWatermarks?.finish();
  }
  /** Stops periodic watermarks without a last emit (a stop-with-savepoint: the job resumes from here). */
  stopWatermarks(): void {
    this.watermarks?.stop();
    this.splitWatermarks?.stop();
  }

  /**
   * Runs one periodic emit of the watermark strategy now and returns the source's event-time position (its last
   * watermark and idleness), or undefined without a strategy or with per-split watermarks. A cluster task calls it
   * before each commit and commits the result with its input offsets.
   */
  watermarkCut(): SourceWatermarkState | undefined {
    const watermarks = this.watermarks;
    if (watermarks === undefined || this.splitWatermarks !== undefined) return undefined;
    watermarks.emitPeriodicNow();
    return watermarks.state();
  }

  /** Resumes the event-time position a previous owner of this source's input committed (after `open`). */
  restoreWatermarks(state: SourceWatermarkState): void {
    this.watermarks?.restore(state);
  }

  /** The reader's unfinished splits (before `open`, the splits it is about to get). */
  override snapshotOperatorState(context?: SnapshotContext): unknown {
    if (this.reader === undefined) return this.splitsToRead();
    return this.reader.snapshotState?.(context?.checkpointId);
  }

  /** The splits this subtask reads, fresh or restored; undefined for a source without splits. */
  private splitsToRead(): unknown[] | undefined {
    const { subtaskIndex, parallelism, operatorName: sourceName } = this.context;
    const enumerator = this.source.createEnumerator?.({ parallelism, sourceName });
    if (enumerator === undefined) return undefined;
    return assignSplits(enumerator, this.restoredSplits, subtaskIndex, parallelism, sourceName);
  }

  /** Every old subtask's split list (union): `open` keeps the splits the enumerator assigns to this subtask. */
  override restoreOperatorState(states: unknown): void {
    this.restoredSplits = states as readonly unknown[];
  }

  override get operatorStateDistribution(): OperatorStateDistribution {
    return 'union';
  }

  override notifyCheckpointComplete(checkpointId: number): void | Promise<void> {
    return this.reader?.notifyCheckpointComplete?.(checkpointId);
  }

  override close(): void | Promise<void> {
    this.watermarks?.stop();
    this.splitWatermarks?.stop();
    return this.reader?.close?.();
  }
}
