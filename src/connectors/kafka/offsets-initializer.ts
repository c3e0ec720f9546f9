// OffsetsInitializer: where a Kafka source starts (or stops) reading each partition, as in Flink.
import { ConfigurationError } from '../../core/errors.ts';
import {
  call,
  OFFSET_INVALID,
  type ClientConsumer,
  type TopicPartition,
  type TopicPartitionOffset,
} from './kafka-client.ts';
import { splitId } from './kafka-partition-split.ts';

/** How long a metadata or offset lookup may take before it fails the reader. */
const LOOKUP_TIMEOUT_MS = 30_000;

/**
 * Resolves a concrete offset for each partition (Flink's OffsetsInitializer). Offsets are concrete numbers, not
 * librdkafka's logical "beginning"/"end", so a checkpoint always records a position that can be replayed.
 *
 * @example
 * KafkaSource.builder<string>().setStartingOffsets(OffsetsInitializer.committedOffsets('earliest'));
 * KafkaSource.builder<string>().setBounded(OffsetsInitializer.latest());
 */
export abstract class OffsetsInitializer {
  /** @internal The offsets of `partitions`, by split id (`topic-partition`). */
  abstract resolve(
    partitions: readonly TopicPartition[],
    consumer: ClientConsumer,
  ): Promise<Map<string, number>>;

  /** The first offset still in each partition (its log start). */
  static earliest(): OffsetsInitializer {
    return new WatermarkOffsetsInitializer('earliest');
  }

  /** The offset after the last record in each partition when the reader starts (its high watermark). */
  static latest(): OffsetsInitializer {
    return new WatermarkOffsetsInitializer('latest');
  }

  /**
   * The consumer group's committed offsets (the group id is required); partitions without one start at `reset`
   * (`'earliest'` or `'latest'`), or fail the reader with `'none'`.
   */
  static committedOffsets(reset: 'earliest' | 'latest' | 'none' = 'none'): OffsetsInitializer {
    return new CommittedOffsetsInitializer(reset);
  }

  /** The first record whose timestamp is at or after `timestamp` (ms since the epoch); the end if none is. */
  static timestamp(timestamp: number): OffsetsInitializer {
    if (!Number.isFinite(timestamp)) {
      throw new ConfigurationError(`OffsetsInitializer.timestamp: expected milliseconds, got ${timestamp}`);
    }
    return new TimestampOffsetsInitializer(timestamp);
  }

  /**
   * Explicit offsets by split id (`'orders-0'`) or as a list; partitions not given start at `reset` (default:
   * earliest), as Flink's `OffsetsInitializer.offsets(map, resetStrategy)`.
   */
  static offsets(
    offsets: Record<string, number> | readonly { topic: string; partition: number; offset: number }[],
    reset: 'earliest' | 'latest' = 'earliest',
  ): OffsetsInitializer {
    const map = new Map<string, number>();
    const entries = Array.isArray(offsets)
      ? (offsets as readonly { topic: string; partition: number; offset: number }[]).map(
          (o) => [splitId(o.topic, o.partition), o.offset] as const,
        )
      : Object.entries(offsets as Record<string, number>);
    for (const [id, offset] of entries) {
      if (!(Number.isSafeInteger(offset) && offset >= 0)) {
        throw new ConfigurationError(
          `OffsetsInitializer.offsets: offset of ${id} must be an integer >= 0, got ${offset}`,
        );
      }
      map.set(id, offset);
    }
    return new SpecifiedOffsetsInitializer(map, reset);
  }
}

async function watermarks(
  partitions: readonly TopicPartition[],
  consumer: ClientConsumer,
  which: 'earliest' | 'latest',
): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  for (const { topic, partition } of partitions) {
    const offsets = await call<{ lowOffset: number; highOffset: number }>(
      `querying the offsets of ${splitId(topic, partition)}`,
      (cb) => consumer.queryWatermarkOffsets(topic, partition, LOOKUP_TIMEOUT_MS, cb),
    );
    result.set(splitId(topic, partition), which === 'earliest' ? offsets.lowOffset : offsets.highOffset);
  }
  return result;
}

class WatermarkOffsetsInitializer extends OffsetsInitializer {
  constructor(readonly which: 'earliest' | 'latest') {
    super();
  }
  resolve(partitions: readonly TopicPartition[], consumer: ClientConsumer): Promise<Map<string, number>> {
    return watermarks(partitions, consumer, this.which);
  }
}

class CommittedOffsetsInitializer extends OffsetsInitializer {
  constructor(readonly reset: 'earliest' | 'latest' | 'none') {
    super();
  }
  async resolve(
    partitions: readonly TopicPartition[],
    consumer: ClientConsumer,
  ): Promise<Map<string, number>> {
    const committed = await call<TopicPartitionOffset[]>('reading the committed offsets', (cb) =>
      consumer.committed(
        partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
        LOOKUP_TIMEOUT_MS,
        cb,
      ),
    );
    const result = new Map<string, number>();
    const missing: TopicPartition[] = [];
    for (const c of committed) {
      if (c.offset === OFFSET_INVALID || c.offset < 0) missing.push(c);
      else result.set(splitId(c.topic, c.partition), c.offset);
    }
    if (missing.length > 0) {
      if (this.reset === 'none') {
        throw new ConfigurationError(
          `KafkaSource: no committed offset for ${missing.map((p) => splitId(p.topic, p.partition)).join(', ')} and the reset strategy is 'none'`,
        );
      }
      for (const [id, offset] of await watermarks(missing, consumer, this.reset)) result.set(id, offset);
    }
    return result;
  }
}

class TimestampOffsetsInitializer extends OffsetsInitializer {
  constructor(readonly timestamp: number) {
    super();
  }
  async resolve(
    partitions: readonly TopicPartition[],
    consumer: ClientConsumer,
  ): Promise<Map<string, number>> {
    const found = await call<TopicPartitionOffset[]>(
      `looking up offsets for timestamp ${this.timestamp}`,
      (cb) =>
        consumer.offsetsForTimes(
          partitions.map((p) => ({ topic: p.topic, partition: p.partition, offset: this.timestamp })),
          LOOKUP_TIMEOUT_MS,
          cb,
        ),
    );
    const result = new Map<string, number>();
    const past: TopicPartition[] = [];
    for (const f of found) {
      // -1: no record at or after the timestamp; start at the end, as Flink does.
      if (f.offset < 0) past.push(f);
      else result.set(splitId(f.topic, f.partition), f.offset);
    }
    for (const [id, offset] of await watermarks(past, consumer, 'latest')) result.set(id, offset);
    return result;
  }
}

class SpecifiedOffsetsInitializer extends OffsetsInitializer {
  constructor(
    readonly offsets: ReadonlyMap<string, number>,
    readonly reset: 'earliest' | 'latest',
  ) {
    super();
  }
  async resolve(
    partitions: readonly TopicPartition[],
    consumer: ClientConsumer,
  ): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    const rest: TopicPartition[] = [];
    for (const p of partitions) {
      const offset = this.offsets.get(splitId(p.topic, p.partition));
      if (offset === undefined) rest.push(p);
      else result.set(splitId(p.topic, p.partition), offset);
    }
    for (const [id, offset] of await watermarks(rest, consumer, this.reset)) result.set(id, offset);
    return result;
  }
}
