// The fault-tolerance example job: per-user click totals per minute, checkpointed, into an exactly-once file sink.
import { existsSync, writeFileSync } from 'node:fs';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { RestartStrategies } from '../../src/execution/restart-strategies.ts';
import { FileSink } from '../../src/connectors/file-sink.ts';
import { DeliveryGuarantee } from '../../src/core/delivery-guarantee.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { LmdbStateBackend } from '../../src/state/lmdb/lmdb-state-backend.ts';
import { Time } from '../../src/time/time.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../../src/index.ts';

/** A click: `ts` is event time in ms (one click every 10 ms of event time). */
export interface Click {
  readonly id: number;
  readonly user: string;
  readonly ts: number;
}

/** Where the job keeps its files. */
export interface FaultTolerantJobOptions {
  readonly checkpoints: string;
  readonly output: string;
  /** On-disk state (LMDB) in this directory; heap state without it. */
  readonly stateDirectory?: string;
  readonly clicks: number;
  readonly ratePerSecond?: number;
  /**
   * Throws once on this click id, to show a restart from the latest checkpoint. Once: the first throw leaves the
   * file `marker`, which a file system shares between every thread and attempt (in worker mode a restart starts
   * new worker threads, whose memory would arm a flag again).
   */
  readonly failOnce?: { id: number; marker: string };
}

/**
 * Builds the job on `env`: checkpoints every 100 ms, up to 3 restarts, one-minute tumbling windows per user, and
 * a two-phase-commit sink whose files appear only when the checkpoint covering them completes.
 */
export function buildFaultTolerantJob(
  env: StreamExecutionEnvironment,
  options: FaultTolerantJobOptions,
): void {
  env.enableCheckpointing(100, { storage: options.checkpoints, retained: 3 });
  env.setRestartStrategy(RestartStrategies.fixedDelay(3, 100));
  if (options.stateDirectory !== undefined)
    env.setStateBackend(new LmdbStateBackend({ path: options.stateDirectory }));
  env
    .fromSource(
      GeneratorSource.of(
        options.clicks,
        (i, random): Click => ({ id: i, user: `user-${random.nextInt(50)}`, ts: i * 10 }),
        {
          seed: 1,
          ...(options.ratePerSecond !== undefined ? { ratePerSecond: options.ratePerSecond } : {}),
        },
      ),
      WatermarkStrategy.forBoundedOutOfOrderness(1_000).withTimestampAssigner((c) => c.ts),
      'clicks',
    )
    .uid('clicks')
    .map((c) => {
      if (c.id === options.failOnce?.id && !existsSync(options.failOnce.marker)) {
        writeFileSync(options.failOnce.marker, `crashed at click ${c.id}\n`);
        throw new Error(`simulated crash at click ${c.id}`);
      }
      return { user: c.user, clicks: 1 };
    })
    .uid('maybe-fail')
    .keyBy((c) => c.user)
    .window(TumblingEventTimeWindows.of(Time.minutes(1)))
    .reduce((a, b) => ({ user: a.user, clicks: a.clicks + b.clicks }))
    .uid('clicks-per-minute')
    .sinkTo(FileSink.jsonLines(options.output, { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }))
    .uid('per-minute-files');
}
