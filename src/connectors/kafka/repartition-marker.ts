// The in-band control messages of a repartition topic: a producer's watermark, idleness and end of input.
import { KafkaError } from './kafka-client.ts';

/** The header that marks a message of a repartition topic as a marker; records carry no header at all. */
export const MARKER_HEADER = 'weir.marker';
/** The marker format's version, the header's value; a reader refuses any other. */
export const MARKER_VERSION = '1';

/**
 * What a producer says about itself, written into every partition of the topic so that each partition carries,
 * in order with the producer's records, everything a consumer needs to merge event time:
 * - `watermark`: no record with a timestamp at or below `watermark` follows from this producer (and the producer
 *   is active, if it was idle);
 * - `idle`: the producer has no input for now; it does not hold the consumers' watermark back until its next
 *   watermark (which a producer that writes records again always sends first);
 * - `end`: the producer's input is finished; nothing more follows from it.
 *
 * `partitions` and `maxParallelism` are the producer's view of the topic, so a consumer configured otherwise
 * fails with a clear error instead of owning the wrong key groups.
 */
export interface RepartitionMarker {
  /** The producer's id. */
  readonly producer: string;
  /** What the producer says: see above. */
  readonly kind: 'watermark' | 'idle' | 'end';
  /** The watermark, for `watermark` markers (finite, or Infinity for a producer's final watermark). */
  readonly watermark?: number;
  /** The number of partitions the producer writes over. */
  readonly partitions: number;
  /** The producer's max parallelism (number of key groups). */
  readonly maxParallelism: number;
}

/** The marker as message value bytes (JSON: markers are rare, and readable with any Kafka tool). */
export function encodeMarker(marker: RepartitionMarker): Buffer {
  const { producer, kind, partitions, maxParallelism } = marker;
  const w = marker.watermark;
  // JSON has no Infinity: a non-finite watermark is written as its string.
  const watermark = w === undefined ? undefined : Number.isFinite(w) ? w : String(w);
  return Buffer.from(JSON.stringify({ producer, kind, watermark, partitions, maxParallelism }));
}

/** Reads a marker's value, naming where it was read when it is not one. */
export function decodeMarker(bytes: Buffer | null, where: string): RepartitionMarker {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes === null ? '' : bytes.toString('utf8'));
  } catch (error) {
    throw new KafkaError(`Repartition marker at ${where} is not JSON: ${(error as Error).message}`);
  }
  const m = parsed as Partial<Record<keyof RepartitionMarker, unknown>>;
  const watermark = m.watermark === undefined ? undefined : Number(m.watermark);
  const valid =
    typeof m.producer === 'string' &&
    (m.kind === 'watermark' || m.kind === 'idle' || m.kind === 'end') &&
    (m.kind !== 'watermark' || (watermark !== undefined && !Number.isNaN(watermark))) &&
    Number.isSafeInteger(m.partitions) &&
    Number.isSafeInteger(m.maxParallelism);
  if (!valid)
    throw new KafkaError(
      `Repartition marker at ${where} is malformed: ${bytes?.toString('utf8') ?? 'null'}; expected ` +
        '{ producer, kind: watermark|idle|end, watermark?, partitions, maxParallelism }',
    );
  return {
    producer: m.producer as string,
    kind: m.kind as RepartitionMarker['kind'],
    ...(watermark === undefined ? {} : { watermark }),
    partitions: m.partitions as number,
    maxParallelism: m.maxParallelism as number,
  };
}

/** A record's timestamp as the message key: 8 bytes, big-endian float64; no key for a record without one. */
export function encodeTimestamp(timestamp: number | undefined): Buffer | null {
  if (timestamp === undefined) return null;
  const key = Buffer.allocUnsafe(8);
  key.writeDoubleBE(timestamp, 0);
  return key;
}

/** The inverse of {@link encodeTimestamp}. */
export function decodeTimestamp(key: Buffer | string | null | undefined, where: string): number | undefined {
  if (key === null || key === undefined) return undefined;
  if (typeof key === 'string' || key.length !== 8)
    throw new KafkaError(
      `Repartition record at ${where} has a key of ${key.length} ${typeof key === 'string' ? 'characters' : 'bytes'}; ` +
        'a repartition record is keyed by its 8-byte timestamp (is another producer writing into the topic?)',
    );
  return key.readDoubleBE(0);
}
