// RepartitionSink: the producing side of a repartition exchange as a sink: its input, keyed, into a topic.
import type { KeySelector } from '../../core/functions.ts';
import type { Sink, SinkWriter, SinkWriterContext } from '../../core/sink.ts';
import type { KafkaProperties } from './kafka-client.ts';
import type { RepartitionCodec } from './repartition-codec.ts';
import { RepartitionWriter } from './repartition-writer.ts';

/** What a {@link RepartitionSink} needs: the topic and how records are keyed and encoded. */
export interface RepartitionSinkOptions<T> {
  /** `host:port[,host:port...]` of the brokers. */
  readonly bootstrapServers: string;
  /** The repartition topic; it must exist, with at most `maxParallelism` partitions. */
  readonly topic: string;
  /** The key of a record, as the keyBy's key selector. */
  readonly keySelector: KeySelector<T, unknown>;
  /** The job's max parallelism (default 128). */
  readonly maxParallelism?: number;
  /** Record values to bytes (default msgpackr). */
  readonly codec?: RepartitionCodec<T>;
  /** Any other librdkafka producer property. */
  readonly properties?: KafkaProperties;
}

/**
 * Writes its input into a repartition topic: each sink subtask is one producer, named `<sink name>/<subtask>`
 * ({@link RepartitionSink.producerIds}), writing records into the partition of their key group and its input
 * watermark and end of input as markers into every partition. A {@link RepartitionSource} reading the topic
 * carries the keyed stream on, with the merged watermark.
 *
 * The producer is idempotent, not transactional, and the sink keeps no state in checkpoints: a job restored
 * from a checkpoint writes again what it wrote after that checkpoint. Exactly-once across the topic is the
 * per-task transaction of the scale-out mode (docs/scale-out.md), not this sink's.
 */
export class RepartitionSink<T> implements Sink<T> {
  constructor(private readonly options: RepartitionSinkOptions<T>) {}

  /** The producer ids of a repartition sink named `sinkName` at `parallelism`: what its readers expect. */
  static producerIds(sinkName: string, parallelism: number): string[] {
    return Array.from({ length: parallelism }, (_, i) => `${sinkName}/${i}`);
  }

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    return new RepartitionSinkWriter(this.options, context);
  }
}

/** A write or a watermark held back while the producer connects or librdkafka's queue drains. */
interface Held<T> {
  readonly value: T | undefined;
  readonly timestamp: number | undefined;
  /** A watermark, or NaN for a record. */
  readonly watermark: number;
}

class RepartitionSinkWriter<T> implements SinkWriter<T> {
  private writer: RepartitionWriter<T> | undefined = undefined;
  private held: Held<T>[] = [];
  private draining: Promise<void> | undefined = undefined;
  private blocked = false;
  private failure: Error | undefined = undefined;
  private readonly ready: Promise<void>;

  constructor(
    options: RepartitionSinkOptions<T>,
    private readonly context: SinkWriterContext,
  ) {
    // Until the producer is connected the sources upstream wait; what they already emitted is held.
    this.setBlocked(true);
    this.ready = RepartitionWriter.open<T>({
      bootstrapServers: options.bootstrapServers,
      topic: options.topic,
      producerId: `${context.sinkName}/${context.subtaskIndex}`,
      keySelector: options.keySelector,
      ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
      ...(options.codec === undefined ? {} : { codec: options.codec }),
      ...(options.properties === undefined ? {} : { properties: options.properties }),
    }).then((writer) => {
      this.writer = writer;
      return this.drain();
    });
    this.ready.catch((error) => this.fail(error));
  }

  write(value: T, timestamp: number | undefined): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.writer === undefined || this.draining !== undefined) {
      this.held.push({ value, timestamp, watermark: Number.NaN });
      return;
    }
    const waiting = this.writer.write(value, timestamp);
    if (waiting !== undefined) this.wait(waiting);
  }

  writeWatermark(watermark: number): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.writer === undefined || this.draining !== undefined) {
      this.held.push({ value: undefined, timestamp: undefined, watermark });
      return;
    }
    const waiting = this.writer.emitWatermark(watermark);
    if (waiting !== undefined) this.wait(waiting);
  }

  async endOfInput(): Promise<void> {
    await this.ready;
    while (this.draining !== undefined) await this.draining;
    const writer = this.writer!;
    const waiting = writer.end();
    if (waiting !== undefined) await waiting;
    await writer.flush();
  }

  async close(): Promise<void> {
    await this.ready.catch(() => {});
    await this.draining?.catch(() => {});
    await this.writer?.close();
    this.writer = undefined;
  }

  /** librdkafka's queue is full: hold what comes next, and stop the sources, until it has drained. */
  private wait(waiting: Promise<void>): void {
    this.setBlocked(true);
    this.draining = waiting.then(() => this.drain());
    this.draining.catch((error) => this.fail(error));
  }

  /** Writes what was held, in order, then lets the sources go on. */
  private drain(): Promise<void> {
    const run = async (): Promise<void> => {
      while (this.held.length > 0) {
        const batch = this.held;
        this.held = [];
        for (const h of batch) {
          const waiting = Number.isNaN(h.watermark)
            ? this.writer!.write(h.value as T, h.timestamp)
            : this.writer!.emitWatermark(h.watermark);
          if (waiting !== undefined) await waiting;
        }
      }
    };
    const draining = run().finally(() => {
      if (this.draining === draining) this.draining = undefined;
      if (this.failure === undefined) this.setBlocked(false);
    });
    this.draining = draining;
    return draining;
  }

  private setBlocked(blocked: boolean): void {
    if (this.blocked === blocked || this.context.setBackpressure === undefined) return;
    this.blocked = blocked;
    this.context.setBackpressure(blocked);
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.context.failJob?.(this.failure, `writing to repartition topic`);
  }
}
