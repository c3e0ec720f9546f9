// When periodic watermark generators emit: after a fixed count of records (deterministic) or on the clock (Flink).
import { ConfigurationError } from '../core/errors.ts';

/**
 * How `onPeriodicEmit` of a watermark generator is driven.
 *
 * - `'deterministic'` (the default): after every `autoWatermarkRecords`-th record a source subtask (or an
 *   `assignTimestampsAndWatermarks` subtask) forwards, and once more at the end of a bounded input. Bounded
 *   inputs never consult the clock, so which records are late is a function of the input and the job alone.
 *   Unbounded inputs are additionally driven by the clock every `autoWatermarkInterval`, so a slow or quiet
 *   source still advances event time.
 * - `'processing-time'`: Flink's behaviour: only every `autoWatermarkInterval` of processing time, whatever the
 *   input. On a bounded input the result then depends on how fast the machine runs it.
 */
export type WatermarkEmissionMode = 'deterministic' | 'processing-time';

/** The periodic-emission settings an environment hands to every watermark-generating operator. */
export interface WatermarkEmission {
  readonly mode: WatermarkEmissionMode;
  /** Processing-time interval in ms (0 disables clock-driven emission). */
  readonly intervalMs: number;
  /** Records between two emissions in deterministic mode. */
  readonly everyRecords: number;
}

/** The default interval of periodic watermark emission (Flink's `pipeline.auto-watermark-interval`). */
export const DEFAULT_AUTO_WATERMARK_INTERVAL = 200;

/**
 * The default record count between deterministic emissions: small enough that a short input sees its
 * watermarks advance, large enough that a watermark's cost downstream (valve, timer heap) is amortised.
 */
export const DEFAULT_AUTO_WATERMARK_RECORDS = 100;

/** Checks a mode name given by a user. */
export function checkWatermarkEmissionMode(mode: unknown): WatermarkEmissionMode {
  if (mode !== 'deterministic' && mode !== 'processing-time') {
    throw new ConfigurationError(
      `The watermark emission mode must be 'deterministic' or 'processing-time', got ${String(mode)}`,
    );
  }
  return mode;
}

/** Checks a record count between emissions. */
export function checkAutoWatermarkRecords(records: number): number {
  if (!Number.isSafeInteger(records) || records < 1) {
    throw new ConfigurationError(
      `The number of records between periodic watermarks must be a positive integer, got ${records}`,
    );
  }
  return records;
}
