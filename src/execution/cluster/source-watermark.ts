// The event-time position of a task's Kafka source, committed as the metadata of its input offset.
import { WeirError } from '../../core/errors.ts';
import type { SourceWatermarkState } from '../../operators/timestamps-and-watermarks.ts';

/** The version of the text below; a later version reads this one or says it cannot. */
const VERSION = 1;

/**
 * The text committed with a source task's input offset, in the same transaction: `{"weir":1,"watermark":W,"idle":b}`
 * (W null before the first watermark). Kafka Streams keeps a partition's stream time in the same place.
 */
export function encodeSourceWatermark(state: SourceWatermarkState): string {
  const watermark = Number.isFinite(state.watermark) ? state.watermark : null;
  return JSON.stringify({ weir: VERSION, watermark, idle: state.idle });
}

/** Committed offset metadata that is not a source watermark of this version: names the partition and the task. */
export class SourceWatermarkDecodeError extends WeirError {}

/** Reads back {@link encodeSourceWatermark}'s text committed for `topic`-`partition`. */
export function decodeSourceWatermark(
  text: string,
  topic: string,
  partition: number,
  task: string,
): SourceWatermarkState {
  const fail = (reason: string): never => {
    throw new SourceWatermarkDecodeError(
      `The metadata committed with ${topic}-${partition} for task '${task}' is not a source watermark: ${reason} ` +
        `(${JSON.stringify(text.slice(0, 80))})`,
    );
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail(`not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null) return fail('not an object');
  const { weir, watermark, idle } = value as Record<string, unknown>;
  if (weir !== VERSION) return fail(`version ${String(weir)}, this version reads ${VERSION}`);
  if (watermark !== null && (typeof watermark !== 'number' || !Number.isFinite(watermark)))
    return fail('the watermark is neither a number nor null');
  if (typeof idle !== 'boolean') return fail('idle is not true or false');
  return { watermark: watermark ?? Number.NEGATIVE_INFINITY, idle };
}
